import type { Mailbox } from './mailbox';

/** A message handed to "the internet": its recipients are not sandbox accounts. Tests read these. */
export interface OutboundMessage {
  /** Sandbox time of sending (ms). */
  at: number;
  /** The sending account. */
  from: string;
  /** Envelope recipients outside the sandbox (Bcc included). */
  recipients: string[];
  /** The sender's copy: its Gmail id and thread. */
  messageId: string;
  threadId: string;
  /** Message-ID header, without brackets. */
  rfcMessageId: string;
  subject: string;
  /** The message as it left (Bcc header stripped), as a binary string: `Buffer.from(raw, 'latin1')` gives the bytes. */
  raw: string;
}

export interface GmailState {
  /** Keyed by lowercased account email. */
  mailboxes: Map<string, Mailbox>;
  outbound: OutboundMessage[];
}

export function createGmailState(): GmailState {
  return { mailboxes: new Map(), outbound: [] };
}
