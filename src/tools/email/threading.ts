/**
 * How a reply joins its conversation, as Gmail and standard mail clients agree (RFC 5322 §3.6.4): In-Reply-To
 * names the original's Message-ID; References is the original's References (or, lacking those, its
 * In-Reply-To) followed by its Message-ID; the subject is the original's with one "Re: " in front. Gmail
 * additionally requires the threadId and a subject that matches once reply prefixes are stripped.
 */

/** Angle-bracketed ids in a header value, brackets kept (`<a@b>`). */
export function messageIds(value: string | undefined): string[] {
  return value?.match(/<[^<>\s]+>/g) ?? [];
}

/** Long conversations would grow References without bound: keep the first id and the most recent ones. */
const MAX_REFERENCES = 20;

export interface ReplyHeaders {
  inReplyTo: string;
  references: string[];
}

/** Undefined when the original has no Message-ID to reply to. */
export function replyHeaders(original: {
  messageId?: string | undefined;
  references?: string | undefined;
  inReplyTo?: string | undefined;
}): ReplyHeaders | undefined {
  const own = messageIds(original.messageId)[0];
  if (!own) return undefined;
  const earlier = messageIds(original.references);
  const parents = earlier.length ? earlier : messageIds(original.inReplyTo).slice(0, 1);
  let references = [...new Set([...parents, own])];
  if (references.length > MAX_REFERENCES) references = [references[0]!, ...references.slice(-(MAX_REFERENCES - 1))];
  return { inReplyTo: own, references };
}

/**
 * Matched against whitespace already collapsed to single spaces: with `\s*` on both sides of an optional group,
 * a prefix followed by a long run of spaces made the regex try every split of the run (quadratic — 160 ms for
 * 20,000 spaces in a hostile original's Subject).
 */
const REPLY_PREFIX = /^ ?(?:re|fwd?|aw|wg|sv|vs|antw|tr|rif|r) ?(?:\[\d+\]|\(\d+\))? ?: ?/i;

/** The subject without reply/forward prefixes, whitespace collapsed, lowercased: what Gmail compares. */
export function baseSubject(subject: string): string {
  let s = subject.replace(/\s+/g, ' ');
  for (let i = 0; i < 20 && REPLY_PREFIX.test(s); i++) s = s.replace(REPLY_PREFIX, '');
  return s.trim().toLowerCase();
}

/** "Re: " + the original subject, unless it already starts with "Re:". */
export function replySubject(original: string): string {
  const trimmed = original.trim();
  return /^re\s*:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`.trimEnd();
}
