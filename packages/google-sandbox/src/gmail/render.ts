import type { gmail_v1 } from '@googleapis/gmail';
import { ALPHABETS, type SandboxRandom, createRandom } from '../random';
import { base64url } from './base64';
import { storeMessage } from './ingest';
import { type Mailbox, type StoredMessage, createMailbox } from './mailbox';
import { type MimeNode, isAttachment } from './mime/parse';

export type MessageFormat = 'full' | 'metadata' | 'minimal' | 'raw';

/** What send, modify and trash answer with. */
export function messageRef(msg: StoredMessage): gmail_v1.Schema$Message {
  return { id: msg.id, threadId: msg.threadId, ...(msg.labelIds.length ? { labelIds: [...msg.labelIds] } : {}) };
}

/**
 * A Message resource in one of Gmail's formats, keys in Gmail's order. Empty label lists are omitted (as
 * Gmail omits empty repeated fields), but empty strings it does send (`filename: ""`, root `partId: ""`).
 */
export function renderMessage(msg: StoredMessage, format: MessageFormat, random: SandboxRandom, metadataHeaders?: readonly string[]): gmail_v1.Schema$Message {
  const out: gmail_v1.Schema$Message = { ...messageRef(msg), snippet: msg.snippet };
  if (format === 'full') out.payload = renderPart(msg, msg.mime, '', random);
  if (format === 'metadata') out.payload = metadataPayload(msg.mime, metadataHeaders);
  out.sizeEstimate = msg.raw.length;
  if (format === 'raw') out.raw = base64url(Buffer.from(msg.raw, 'latin1'), true);
  out.historyId = String(msg.historyId);
  out.internalDate = String(msg.internalDate);
  return out;
}

/** format=metadata: the top-level type and headers only, filtered by metadataHeaders (case-insensitive). */
function metadataPayload(mime: MimeNode, only?: readonly string[]): gmail_v1.Schema$MessagePart {
  const wanted = only?.length ? new Set(only.map((h) => h.toLowerCase())) : undefined;
  const headers = mime.headers.filter((h) => !wanted || wanted.has(h.name.toLowerCase()));
  return { mimeType: mime.mimeType, ...(headers.length ? { headers: headers.map((h) => ({ ...h })) } : {}) };
}

function renderPart(msg: StoredMessage, node: MimeNode, partId: string, random: SandboxRandom): gmail_v1.Schema$MessagePart {
  const part: gmail_v1.Schema$MessagePart = { partId, mimeType: node.mimeType, filename: node.filename };
  if (node.headers.length) part.headers = node.headers.map((h) => ({ ...h }));
  if (node.children.length) {
    part.body = { size: 0 };
    part.parts = node.children.map((child, i) => renderPart(msg, child, partId === '' ? String(i) : `${partId}.${i}`, random));
  } else if (isAttachment(node)) {
    // Attachments never carry inline data, whatever their size: only an (ephemeral) id to fetch them by.
    part.body = { attachmentId: issueAttachmentId(msg, partId, random), size: node.body.length };
  } else {
    part.body = node.body.length ? { size: node.body.length, data: base64url(Buffer.from(node.body, 'latin1'), true) } : { size: 0 };
  }
  return part;
}

/** How many issued attachment ids stay valid per message; older ones expire, as Gmail's do after a while. */
const LIVE_ATTACHMENT_IDS = 100;

/** A fresh opaque attachment id (Gmail's start with "ANGjdJ" and run well over 100 characters). */
function issueAttachmentId(msg: StoredMessage, partId: string, random: SandboxRandom): string {
  const id = `ANGjdJ${random.string(122, ALPHABETS.base64url)}`;
  msg.attachmentIds.set(id, partId);
  if (msg.attachmentIds.size > LIVE_ATTACHMENT_IDS) msg.attachmentIds.delete(msg.attachmentIds.keys().next().value!);
  return id;
}

export function renderThread(
  mb: Mailbox,
  messages: readonly StoredMessage[],
  threadId: string,
  format: MessageFormat,
  random: SandboxRandom,
  metadataHeaders?: readonly string[],
): gmail_v1.Schema$Thread {
  const historyId = Math.max(...messages.map((m) => m.historyId), 0) || mb.historyId;
  return { id: threadId, historyId: String(historyId), messages: messages.map((m) => renderMessage(m, format, random, metadataHeaders)) };
}

/**
 * A raw RFC 2822 message (bytes, or a string of one character per byte) as this Gmail serves it from
 * messages.get, without a running sandbox: for testing code that reads Gmail's MessagePart trees (charsets,
 * transfer encodings, nesting a composer would never produce). Ids are drawn from a fixed seed.
 */
export function renderRawMessage(
  raw: Buffer | string,
  options: { format?: MessageFormat; labelIds?: string[]; internalDate?: number } = {},
): gmail_v1.Schema$Message {
  const random = createRandom(1);
  const mailbox = createMailbox('me@example.com', random);
  const stored = storeMessage(mailbox, random, typeof raw === 'string' ? raw : raw.toString('latin1'), {
    labelIds: options.labelIds ?? ['INBOX', 'UNREAD'],
    internalDate: options.internalDate ?? Date.now(),
    threading: 'new',
  });
  return renderMessage(stored, options.format ?? 'full', random);
}
