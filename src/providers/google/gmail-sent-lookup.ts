import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import { googleScope } from '../../integrations/catalog';
import { grants } from '../../integrations/scopes';
import type { SentLookup } from '../../core/mail';
import { type GoogleMailDeps, callGmail } from './gmail-request';
import { headerOf, listSchema, messageSchema } from './gmail-schemas';

/**
 * Did an earlier attempt already send this email? The one way the Hub verifies a send before repeating it.
 *
 * What Gmail keeps to find a sent message by: not the Message-ID — messages.send replaces a client-set one with
 * its own (gauteh/lieer#198, huacnlee/omamail#85), so `rfc822msgid:` cannot find it — and not a `q` search,
 * which the gmail.metadata scope refuses ("Metadata scope does not support 'q' parameter",
 * googleworkspace/cli#104) and whose index can lag behind the mailbox (anthropics/claude-code#82548). What is
 * left is reliable: every message email_send builds carries an `X-Hub-Send-Id` header (a token derived from the
 * request_id, so every attempt of one request carries the same one), and the lookup lists the SENT label
 * (labelIds, newest first) and reads that header of each candidate (messages.get format=metadata with
 * metadataHeaders) until it finds the token, passes the horizon (messages older than the first attempt), or has
 * read `maxScan` messages — then it cannot tell, and says so.
 */

export const SEND_ID_HEADER = 'X-Hub-Send-Id';

/** Any of these lets the Hub read a sent message's headers (each implies gmail.metadata or grants it). */
const READ_SCOPES = [googleScope('gmail.metadata'), googleScope('gmail.readonly')];

/** Google's clock against the store's: a sent message stamped a little before the recorded start still counts. */
const CLOCK_SKEW_MS = 2 * 60_000;
const PAGE_SIZE = 100;

export const canVerifySends = (deps: GoogleMailDeps) => READ_SCOPES.some((s) => grants(deps.connection.scopes, s));

const sentListSchema = listSchema.extend({ nextPageToken: z.string().nullish() });

interface SentHeader {
  id: string;
  threadId: string;
  internalDate: number;
  token: string | undefined;
}

/** One candidate's send token and date; null when it vanished since the listing (deleted meanwhile). */
async function sentHeader(deps: GoogleMailDeps, id: string): Promise<Result<SentHeader | null>> {
  const got = await callGmail(deps, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
    api.users.messages.get({ userId: 'me', id, format: 'metadata', metadataHeaders: [SEND_ID_HEADER] }, options),
  );
  if (!got.ok) return got.error.code === 'RESOURCE_NOT_FOUND' ? ok(null) : got;
  const m = got.value;
  return ok({ id: m.id, threadId: m.threadId, internalDate: Number(m.internalDate), token: headerOf(m.payload, SEND_ID_HEADER)?.trim() });
}

/** Looks in Sent (trashed copies included) for the message carrying one of `tokens`, sent at `sinceMs` or later. */
export async function findSent(deps: GoogleMailDeps, tokens: readonly string[], sinceMs: number, maxScan: number): Promise<Result<SentLookup>> {
  if (!canVerifySends(deps)) return ok({ kind: 'unverifiable', reason: 'no_read_scope' });
  const horizon = sinceMs - CLOCK_SKEW_MS;
  let scanned = 0;
  let pageToken: string | undefined;
  do {
    const pageSize = Math.min(PAGE_SIZE, maxScan - scanned);
    const listed = await callGmail(deps, { operation: 'gmail.users.messages.list', idempotent: true }, sentListSchema, (api, options) =>
      api.users.messages.list({ userId: 'me', labelIds: ['SENT'], includeSpamTrash: true, maxResults: pageSize, ...(pageToken ? { pageToken } : {}) }, options),
    );
    if (!listed.ok) return listed;
    const ids = (listed.value.messages ?? []).slice(0, pageSize).map((m) => m.id);
    // The newest is the likeliest (a lookup right after a send): read one first, then widen the batches.
    for (let at = 0, batch = 1; at < ids.length; at += batch, batch = Math.min(batch * 4, 16)) {
      const read = await Promise.all(ids.slice(at, at + batch).map((id) => sentHeader(deps, id)));
      const messages: SentHeader[] = [];
      for (const r of read) {
        if (!r.ok) return r;
        if (r.value) messages.push(r.value);
      }
      const match = messages.find((m) => m.token !== undefined && tokens.includes(m.token));
      if (match) return ok({ kind: 'found', id: match.id, threadId: match.threadId });
      // Newest first: once one is older than the horizon, so is everything after it.
      if (messages.some((m) => m.internalDate < horizon)) return ok({ kind: 'absent' });
    }
    scanned += ids.length;
    pageToken = listed.value.nextPageToken ?? undefined;
  } while (pageToken && scanned < maxScan);
  return ok(pageToken ? { kind: 'unverifiable', reason: 'scan_limit' } : { kind: 'absent' });
}

/** Prepended as a header line: hex only, so it can neither fold nor inject; recipients see an opaque id. */
export const withSendToken = (raw: Buffer, token: string) => Buffer.concat([Buffer.from(`${SEND_ID_HEADER}: ${token}\r\n`, 'latin1'), raw]);
