import type { SandboxRandom } from '../random';
import { type Mailbox, type StoredMessage, addMessage, newMessageId, threadCandidates } from './mailbox';
import { decodedValue, findField, rawValue } from './mime/headers';
import { type MimeNode, parseMime } from './mime/parse';
import { snippetOf } from './mime/text';
import { chooseThread, parseMessageIds, replyTargets } from './threading';

export interface StoreOptions {
  labelIds: string[];
  internalDate: number;
  /**
   * How the message may join an existing thread: 'headers' (mail arriving: References/In-Reply-To + subject),
   * a thread id (messages.send with threadId: that thread only, same header + subject test), or 'new'.
   */
  threading: 'headers' | 'new' | { threadId: string };
}

export function headerValue(mime: MimeNode, name: string): string | undefined {
  const field = findField(mime.fields, name);
  return field ? decodedValue(field) : undefined;
}

export function rawHeaderValue(mime: MimeNode, name: string): string | undefined {
  const field = findField(mime.fields, name);
  return field ? rawValue(field) : undefined;
}

/** Parses `raw`, threads it by Gmail's rules and adds it to the mailbox. */
export function storeMessage(mb: Mailbox, random: SandboxRandom, raw: string, options: StoreOptions): StoredMessage {
  const mime = parseMime(raw);
  const subject = headerValue(mime, 'subject') ?? '';
  let threadId: string | undefined;
  if (options.threading !== 'new') {
    const targets = replyTargets(rawHeaderValue(mime, 'in-reply-to'), rawHeaderValue(mime, 'references'));
    const required = options.threading === 'headers' ? undefined : options.threading.threadId;
    threadId = chooseThread(targets, subject, (rfcId) => threadCandidates(mb, rfcId), required);
  }
  const id = newMessageId(mb, random);
  const msg: StoredMessage = {
    id,
    threadId: threadId ?? id,
    labelIds: [...new Set(options.labelIds)],
    raw,
    mime,
    internalDate: options.internalDate,
    historyId: 0,
    seq: 0,
    snippet: snippetOf(mime),
    subject,
    rfcMessageId: parseMessageIds(rawHeaderValue(mime, 'message-id'))[0],
    attachmentIds: new Map(),
  };
  addMessage(mb, msg);
  return msg;
}
