import type { SandboxRandom } from '../random';
import type { UserLabel } from './labels';
import type { MimeNode } from './mime/parse';
import type { ThreadCandidate } from './threading';

/** One message in one mailbox. A mail delivered to two sandbox accounts is two StoredMessages with two ids. */
export interface StoredMessage {
  id: string;
  threadId: string;
  /** In the order they were applied (Gmail's order is not meaningful either). */
  labelIds: string[];
  /**
   * The RFC 2822 message as stored (CRLF line ends, Gmail's added headers included), as a binary string:
   * one char per byte, so it survives the control API's structuredClone snapshots intact.
   */
  raw: string;
  mime: MimeNode;
  internalDate: number;
  /** The mailbox history id of this message's last change. */
  historyId: number;
  /** Arrival order: breaks internalDate ties so listing is stable. */
  seq: number;
  snippet: string;
  /** Decoded Subject ('' when absent). */
  subject: string;
  /** Message-ID without angle brackets. */
  rfcMessageId: string | undefined;
  /**
   * Attachment ids handed out so far → partId. Gmail's attachment ids are ephemeral: every read of a message
   * issues new ones (clients that cache or compare them break), while previously issued ones keep working.
   */
  attachmentIds: Map<string, string>;
}

export interface PageCursor {
  offset: number;
  /** What was listed (q, labelIds, includeSpamTrash): a token is only valid for the same listing. */
  listing: string;
}

export interface Mailbox {
  email: string;
  historyId: number;
  messages: Map<string, StoredMessage>;
  /** threadId → message ids, in arrival order. */
  threads: Map<string, string[]>;
  /** Message-ID → ids of messages carrying it (a message sent to oneself, re-imported copies ...). */
  byRfcId: Map<string, string[]>;
  userLabels: Map<string, UserLabel>;
  nextLabelNumber: number;
  nextSeq: number;
  pageTokens: Map<string, PageCursor>;
}

export function createMailbox(email: string, random: SandboxRandom): Mailbox {
  return {
    email,
    // Real history ids are large and unrelated to message counts; start somewhere plausible.
    historyId: 1_000_000 + Math.floor(random.next() * 8_000_000),
    messages: new Map(),
    threads: new Map(),
    byRfcId: new Map(),
    userLabels: new Map(),
    nextLabelNumber: 1,
    nextSeq: 1,
    pageTokens: new Map(),
  };
}

/** A copy that can be changed and then swapped in whole, or dropped (all-or-nothing seeding). */
export function cloneMailbox(mb: Mailbox): Mailbox {
  const copyLists = (m: Map<string, string[]>) => new Map([...m].map(([k, v]) => [k, [...v]]));
  return {
    ...mb,
    messages: new Map(mb.messages),
    threads: copyLists(mb.threads),
    byRfcId: copyLists(mb.byRfcId),
    userLabels: new Map(mb.userLabels),
    pageTokens: new Map(mb.pageTokens),
  };
}

export const bumpHistory = (mb: Mailbox): number => ++mb.historyId;

/** Gmail message ids are 16 hex digits, in practice starting with '1' (they derive from a timestamp). */
export function newMessageId(mb: Mailbox, random: SandboxRandom): string {
  for (;;) {
    const id = `1${random.hex(15)}`;
    if (!mb.messages.has(id) && !mb.threads.has(id)) return id;
  }
}

export function addMessage(mb: Mailbox, msg: StoredMessage): void {
  msg.historyId = bumpHistory(mb);
  msg.seq = mb.nextSeq++;
  mb.messages.set(msg.id, msg);
  mb.threads.set(msg.threadId, [...(mb.threads.get(msg.threadId) ?? []), msg.id]);
  if (msg.rfcMessageId) mb.byRfcId.set(msg.rfcMessageId, [...(mb.byRfcId.get(msg.rfcMessageId) ?? []), msg.id]);
}

/** Replaces a message's labels; a real change is a mailbox change (new history id), a no-op is not. */
export function setLabels(mb: Mailbox, msg: StoredMessage, labelIds: string[]): void {
  const same = labelIds.length === msg.labelIds.length && labelIds.every((l) => msg.labelIds.includes(l));
  if (same) return;
  msg.labelIds = labelIds;
  msg.historyId = bumpHistory(mb);
}

/** A thread's messages, oldest first (as threads.get returns them). */
export function threadMessages(mb: Mailbox, threadId: string): StoredMessage[] {
  const ids = mb.threads.get(threadId) ?? [];
  return ids
    .map((id) => mb.messages.get(id))
    .filter((m): m is StoredMessage => m !== undefined)
    .sort((a, b) => a.internalDate - b.internalDate || a.seq - b.seq);
}

export function threadCandidates(mb: Mailbox, rfcId: string): ThreadCandidate[] {
  return (mb.byRfcId.get(rfcId) ?? []).map((id) => mb.messages.get(id)).filter((m): m is StoredMessage => m !== undefined);
}

/** Finds a user label by name (case-insensitive, as Gmail's names are), creating it when asked. */
export function userLabelByName(mb: Mailbox, name: string, create: boolean): UserLabel | undefined {
  const lower = name.toLowerCase();
  for (const label of mb.userLabels.values()) if (label.name.toLowerCase() === lower) return label;
  if (!create) return undefined;
  const label = { id: `Label_${mb.nextLabelNumber++}`, name };
  mb.userLabels.set(label.id, label);
  return label;
}
