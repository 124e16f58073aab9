import { createHash } from 'node:crypto';

/**
 * email_search's page tokens on Outlook. Graph pages with an `@odata.nextLink` URL; handing that URL to the agent
 * and following it back would let an agent's token choose where the customer's access token is sent. So a token
 * carries only what the next request needs — the `$skip` or `$skiptoken` value Graph gave, the search's mode, and
 * the instant relative dates (newer_than:) were counted from, so every page answers the same query — bound to a
 * digest of the query; the Hub rebuilds the request itself. A token made for another query, altered, or not made
 * by the Hub is refused (VALIDATION_ERROR at `inputs.page_token`). The digest is not a secret: forging one only
 * moves a search of the agent's own query within its own results.
 */

const PREFIX = 'o1.';
/** Graph's skip tokens are opaque; ours stay far below email_search's input limits. */
const MAX_CONTINUATION = 1500;

export interface PageState {
  mode: 'search' | 'filter';
  /** Epoch ms the first page counted relative dates from. */
  now: number;
  /** Where the next page starts: the `$skiptoken` or `$skip` of Graph's nextLink, as Graph wrote it. */
  continuation: Continuation;
}

export interface Continuation {
  param: '$skip' | '$skiptoken';
  value: string;
}

export const queryDigest = (query: string) => createHash('sha256').update(`outlook-search\u0000${query}`).digest('base64url').slice(0, 16);

export function encodePageToken(query: string, state: PageState): string {
  const { param, value } = state.continuation;
  const body = JSON.stringify([state.mode === 'search' ? 's' : 'f', queryDigest(query), Math.floor(state.now / 1000), param === '$skip' ? 'n' : 'k', value]);
  return PREFIX + Buffer.from(body, 'utf8').toString('base64url');
}

export type DecodedToken = { ok: true; state: PageState } | { ok: false; problem: string };

const bad = (problem: string): DecodedToken => ({ ok: false, problem });

export function decodePageToken(token: string, query: string): DecodedToken {
  if (!token.startsWith(PREFIX) || token.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(token.slice(PREFIX.length)))
    return bad('not a page token this search issued');
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(token.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return bad('not a page token this search issued');
  }
  if (!Array.isArray(parts) || parts.length !== 5) return bad('not a page token this search issued');
  const [mode, digest, seconds, param, continuation] = parts as unknown[];
  if (digest !== queryDigest(query)) return bad('a page token from a search with a different query');
  if ((mode !== 's' && mode !== 'f') || typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > 1e11)
    return bad('not a page token this search issued');
  if (typeof continuation !== 'string' || continuation.length === 0 || continuation.length > MAX_CONTINUATION || /[\u0000-\u001f\u007f]/.test(continuation))
    return bad('not a page token this search issued');
  if ((param !== 'n' && param !== 'k') || (param === 'n' && !/^\d{1,9}$/.test(continuation))) return bad('not a page token this search issued');
  return {
    ok: true,
    state: {
      mode: mode === 's' ? 'search' : 'filter',
      now: seconds * 1000,
      continuation: { param: param === 'n' ? '$skip' : '$skiptoken', value: continuation },
    },
  };
}

/**
 * The next page's position from Graph's nextLink (read, never followed): its `$skiptoken`, else its `$skip`.
 * Undefined when a nextLink carries neither (or one too long to carry): the caller cannot page on and says so.
 */
export function continuationOf(nextLink: string): Continuation | undefined {
  let url: URL;
  try {
    url = new URL(nextLink);
  } catch {
    return undefined;
  }
  const token = url.searchParams.get('$skiptoken');
  const skip = url.searchParams.get('$skip');
  if (token) return token.length <= MAX_CONTINUATION && !/[\u0000-\u001f\u007f]/.test(token) ? { param: '$skiptoken', value: token } : undefined;
  return skip && /^\d{1,9}$/.test(skip) ? { param: '$skip', value: skip } : undefined;
}
