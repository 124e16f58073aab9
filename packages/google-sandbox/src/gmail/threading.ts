/**
 * Gmail's conversation rules. A message joins an existing thread only when it points at a message of that
 * thread (In-Reply-To / References) AND its subject matches once reply/forward prefixes are stripped. For
 * messages.send the caller must also name the thread (threadId); mail arriving from outside is threaded by
 * the headers and subject alone. Anything else starts a new thread whose id is the first message's id.
 */

/** Applied to whitespace collapsed to single spaces, so it cannot backtrack over a long run of them (linear). */
const PREFIX = /^ ?(?:re|fwd?|aw|wg|sv|vs|antw|tr|rif|r) ?(?:\[\d+\]|\(\d+\))? ?: ?/i;

export function normalizeSubject(subject: string): string {
  let s = subject.replace(/\s+/g, ' ');
  for (let i = 0; i < 20 && PREFIX.test(s); i++) s = s.replace(PREFIX, '');
  return s.trim().toLowerCase();
}

/** Message-IDs without angle brackets; lenient about clients that forget the brackets. */
export function parseMessageIds(value: string | undefined): string[] {
  if (!value) return [];
  const bracketed = value.match(/<[^<>\s]+>/g);
  const ids = bracketed ? bracketed.map((id) => id.slice(1, -1)) : value.split(/[\s,]+/);
  return ids.filter((id) => id.length > 0);
}

export const normalizeMessageId = (id: string) => id.trim().replace(/^<|>$/g, '');

/** The ids a reply refers to, most specific first: In-Reply-To, then References from the newest back. */
export function replyTargets(inReplyTo: string | undefined, references: string | undefined): string[] {
  const out = [...parseMessageIds(inReplyTo), ...parseMessageIds(references).reverse()];
  return [...new Set(out)];
}

export interface ThreadCandidate {
  threadId: string;
  subject: string;
}

/**
 * The thread a new message joins, or undefined for a new thread. `lookup` finds the messages of this mailbox
 * with a given Message-ID; `requiredThreadId` restricts joining to that thread (messages.send).
 */
export function chooseThread(
  targets: readonly string[],
  subject: string,
  lookup: (rfcId: string) => readonly ThreadCandidate[],
  requiredThreadId?: string,
): string | undefined {
  const wanted = normalizeSubject(subject);
  for (const target of targets) {
    for (const candidate of lookup(target)) {
      if (requiredThreadId !== undefined && candidate.threadId !== requiredThreadId) continue;
      if (normalizeSubject(candidate.subject) === wanted) return candidate.threadId;
    }
  }
  return undefined;
}
