import type { Result } from './errors';

/**
 * The mail port: what the email tools need from a connected mailbox, in vendor-neutral values. Each provider
 * implements it (src/providers/<vendor>/mail); the tools in src/tools/email call nothing else.
 *
 * Conventions every adapter keeps:
 * - Addresses come out bare (`john@example.com`); dates as ISO 8601 UTC (`2024-01-10T09:30:00Z`).
 * - Ids are the vendor's, stable across moves (Graph: immutable ids).
 * - A message or thread that does not exist (or an id that cannot be one) is RESOURCE_NOT_FOUND.
 * - Bodies are text: text/plain, else text derived from HTML (cut to the configured maximum, `truncated`), and
 *   never the vendor's raw HTML.
 */

export interface MessageBody {
  body: string;
  truncated?: true;
  /** An HTML body that could not be laid out in time (or nests too deeply): its tag-stripped text. */
  body_degraded?: true;
}

export interface MessageSummary {
  message_id: string;
  thread_id: string;
  from: string;
  to: string[];
  subject: string;
  snippet: string;
  date: string;
  has_attachments: boolean;
}

export interface AttachmentInfo {
  filename: string;
  size: number;
  mime_type: string;
  attachment_id: string;
}

export interface MessageDetail extends Omit<MessageSummary, 'snippet' | 'has_attachments'> {
  attachments: AttachmentInfo[];
  unread: boolean;
}

export interface SearchOptions {
  maxResults: number;
  includeBody: boolean;
  /** Continues an earlier search with the same query; a token the vendor did not issue is VALIDATION_ERROR at `inputs.page_token`. */
  pageToken?: string;
}

export interface SearchPage {
  messages: Array<MessageSummary & Partial<MessageBody>>;
  nextPageToken: string | null;
  /** The vendor's own estimate of all matches, when it gives one (never a count). */
  resultSizeEstimate: number | null;
}

export interface ThreadMessage {
  message_id: string;
  from: string;
  snippet: string;
  date: string;
  /** Sent by the account itself (its address, a send-as alias, a draft): never a reply to it. */
  fromAccount: boolean;
}

/** What email_send sends; recipients are parsed mailboxes. */
export interface OutgoingMail {
  to: readonly { name?: string; address: string }[];
  cc: readonly { name?: string; address: string }[];
  bcc: readonly { name?: string; address: string }[];
  subject: string;
  body: string;
  bodyType: 'text' | 'html';
}

/** The message a reply answers: its subject (the reply must keep it), its thread, and what the adapter needs to thread it. */
export interface ReplyTarget {
  messageId: string;
  threadId: string;
  subject: string;
  /** Adapter-private (Gmail: Message-ID and References). */
  vendor: unknown;
}

export interface SentRef {
  id: string;
  threadId: string;
}

/**
 * Whether a message carrying one of the send markers is in the account's sent mail. `pending`: not there yet, and
 * the vendor shows a sent message only once it arrives (Outlook's Sent Items), so one sent moments ago may still
 * appear — neither found nor absent; look again after `retryAfterS`. An adapter answers `absent` only when it is
 * true.
 */
export type SentLookup =
  | { kind: 'found'; id: string; threadId: string }
  | { kind: 'absent' }
  | { kind: 'pending'; retryAfterS: number }
  | { kind: 'unverifiable'; reason: 'no_read_scope' | 'scan_limit' };

export interface MailPort {
  /** The mailbox's own address (memoised by the adapter per connection). */
  ownAddress(): Promise<Result<string>>;
  /**
   * The contract's query is Gmail's search syntax. An adapter whose vendor cannot honour an operator answers
   * VALIDATION_ERROR naming it at `inputs.query` — never a silently different result.
   */
  search(query: string, options: SearchOptions, signal?: AbortSignal): Promise<Result<SearchPage>>;
  getMessage(messageId: string): Promise<Result<MessageDetail & MessageBody>>;
  /** Clears the unread state; safe to repeat. */
  markRead(messageId: string): Promise<Result<void>>;
  /** Every message of a conversation, oldest first. */
  thread(threadId: string): Promise<Result<ThreadMessage[]>>;
  prepareReply(messageId: string): Promise<Result<ReplyTarget>>;
  /**
   * Sends once, carrying `marker` where findSent can see it. Not idempotent. A failure after which the mail may
   * have gone out carries `details.outcome: "unknown"` or an upstream 5xx status (the tool then asks findSent).
   */
  send(mail: OutgoingMail, marker: string, reply: ReplyTarget | null): Promise<Result<SentRef>>;
  /** Looks in sent mail for a message carrying one of `markers`, sent at `sinceMs` or later, reading at most `maxScan`. */
  findSent(markers: readonly string[], sinceMs: number, maxScan: number): Promise<Result<SentLookup>>;
  /** Whether this connection's grant can read sent mail at all (findSent answers unverifiable otherwise). */
  canVerifySends(): boolean;
}
