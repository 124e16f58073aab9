import type { MessageSummary, ThreadMessage } from '../../core/mail';
import { headerAddresses } from '../../tools/email/addresses';
import { type AttachmentInfo, hasAttachments, listAttachments } from './gmail-body';
import { type GmailMessage, headerOf } from './gmail-schemas';
import { isoDate } from './gmail-request';

/**
 * Gmail messages → the contract's shapes. Addresses come out bare (`john@example.com`, as the contract shows
 * them, ready to pass back to email_send); header values are the ones Gmail already decoded (RFC 2047).
 */

type MessageFields = Pick<MessageSummary, 'message_id' | 'thread_id' | 'from' | 'to' | 'subject'>;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Gmail HTML-escapes snippets (`Here&#39;s`); agents get the plain text. */
export function snippetText(snippet: string | null | undefined): string {
  return (snippet ?? '').replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return NAMED[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

const fromOf = (m: GmailMessage) => headerAddresses(headerOf(m.payload, 'from'))[0] ?? '';

const fieldsOf = (m: GmailMessage): MessageFields => ({
  message_id: m.id,
  thread_id: m.threadId,
  from: fromOf(m),
  to: headerAddresses(headerOf(m.payload, 'to')),
  subject: headerOf(m.payload, 'subject') ?? '',
});

/** email_search's entry (format=full, so the parts are there to tell attachments exactly). */
export function toSummary(m: GmailMessage): MessageSummary {
  return {
    ...fieldsOf(m),
    snippet: snippetText(m.snippet),
    date: isoDate(m.internalDate),
    has_attachments: hasAttachments(m.payload),
  };
}

export interface MessageDetail extends MessageFields {
  date: string;
  attachments: AttachmentInfo[];
}

/** email_read's result, body aside (it may need another request). */
export function toDetail(m: GmailMessage): MessageDetail {
  return {
    ...fieldsOf(m),
    date: isoDate(m.internalDate),
    attachments: listAttachments(m.payload),
  };
}

export interface Reply {
  message_id: string;
  from: string;
  snippet: string;
  date: string;
}

/** A thread's messages as the port gives them: oldest first, each marked when the account sent it itself. */
export function threadMessages(messages: readonly GmailMessage[], ownAddress: string): ThreadMessage[] {
  const own = ownAddress.toLowerCase();
  return [...messages]
    .sort((a, b) => Number(a.internalDate) - Number(b.internalDate))
    .map((m) => ({
      message_id: m.id,
      from: fromOf(m),
      snippet: snippetText(m.snippet),
      date: isoDate(m.internalDate),
      fromAccount: (m.labelIds ?? []).some((l) => l === 'SENT' || l === 'DRAFT') || fromOf(m).toLowerCase() === own,
    }));
}

/**
 * The thread's messages after `sinceMs` that the account did not send: neither from its own address nor
 * labelled SENT (mail sent from a send-as alias) or DRAFT. Oldest first.
 */
export function repliesSince(messages: readonly GmailMessage[], sinceMs: number, ownAddress: string): Reply[] {
  const own = ownAddress.toLowerCase();
  return messages
    .filter((m) => Number(m.internalDate) > sinceMs)
    .filter((m) => !(m.labelIds ?? []).some((l) => l === 'SENT' || l === 'DRAFT'))
    .filter((m) => fromOf(m).toLowerCase() !== own)
    .sort((a, b) => Number(a.internalDate) - Number(b.internalDate))
    .map((m) => ({ message_id: m.id, from: fromOf(m), snippet: snippetText(m.snippet), date: isoDate(m.internalDate) }));
}
