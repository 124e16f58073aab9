import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import { googleScope } from '../../integrations/integrations';
import { grants } from '../../integrations/scopes';
import { fingerprintOf } from '../../protection/idempotency-store';
import type { ToolContext } from '../types';
import { callGmail } from './gmail';
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

export type SentLookup =
  | { kind: 'found'; id: string; threadId: string }
  | { kind: 'absent' } // read back to the horizon (or the whole Sent folder): not there
  | { kind: 'unverifiable'; reason: 'no_read_scope' | 'scan_limit' };

/**
 * The tokens of one send, the one to write first. For a request_id, the same for every attempt with the same
 * inputs: an HMAC (the Hub's event-id key, scheme `hub-send-v2`) over length-prefixed customer, request_id and
 * the idempotency fingerprint of inputs and end user — keyed because every recipient sees the header, and an
 * unkeyed digest would let one confirm guesses of a customer's request_ids offline. The unkeyed v1 token (sha256
 * of the same parts) is still looked for, so an attempt made before this scheme is recognised by its retry.
 * Without a request_id, random (still found by a lookup within the same call). Fails only when the database
 * holding the key cannot be reached (retryable: nothing was sent).
 */
export async function sendTokens(
  ctx: Pick<ToolContext, 'customerId' | 'userId' | 'idempotencyKey' | 'settings'>,
  inputs: unknown,
): Promise<Result<readonly string[]>> {
  if (ctx.idempotencyKey === null) return ok([randomBytes(16).toString('hex')]);
  const parts = [ctx.customerId, ctx.idempotencyKey, fingerprintOf(inputs, ctx.userId)];
  const legacy = createHash('sha256')
    .update(['hub-send-v1', ...parts].map((p) => `${Buffer.byteLength(p)}:${p}`).join(''))
    .digest('hex')
    .slice(0, 32);
  const keyed = await ctx.settings.eventIds.digest(['hub-send-v2', ...parts]);
  if (!keyed.ok) return keyed;
  return ok(keyed.value === null ? [legacy] : [keyed.value, legacy]); // null: the key is unreadable here (logged)
}

export const canVerifySends = (ctx: ToolContext) => READ_SCOPES.some((s) => grants(ctx.connection!.scopes, s));

const sentListSchema = listSchema.extend({ nextPageToken: z.string().nullish() });

interface SentHeader {
  id: string;
  threadId: string;
  internalDate: number;
  token: string | undefined;
}

/** One candidate's send token and date; null when it vanished since the listing (deleted meanwhile). */
async function sentHeader(ctx: ToolContext, id: string): Promise<Result<SentHeader | null>> {
  const got = await callGmail(ctx, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
    api.users.messages.get({ userId: 'me', id, format: 'metadata', metadataHeaders: [SEND_ID_HEADER] }, options),
  );
  if (!got.ok) return got.error.code === 'RESOURCE_NOT_FOUND' ? ok(null) : got;
  const m = got.value;
  return ok({ id: m.id, threadId: m.threadId, internalDate: Number(m.internalDate), token: headerOf(m.payload, SEND_ID_HEADER)?.trim() });
}

/** Looks in Sent (trashed copies included) for the message carrying one of `tokens`, sent at `sinceMs` or later. */
export async function findSent(ctx: ToolContext, tokens: readonly string[], sinceMs: number, maxScan: number): Promise<Result<SentLookup>> {
  if (!canVerifySends(ctx)) return ok({ kind: 'unverifiable', reason: 'no_read_scope' });
  const horizon = sinceMs - CLOCK_SKEW_MS;
  let scanned = 0;
  let pageToken: string | undefined;
  do {
    const pageSize = Math.min(PAGE_SIZE, maxScan - scanned);
    const listed = await callGmail(ctx, { operation: 'gmail.users.messages.list', idempotent: true }, sentListSchema, (api, options) =>
      api.users.messages.list({ userId: 'me', labelIds: ['SENT'], includeSpamTrash: true, maxResults: pageSize, ...(pageToken ? { pageToken } : {}) }, options),
    );
    if (!listed.ok) return listed;
    const ids = (listed.value.messages ?? []).slice(0, pageSize).map((m) => m.id);
    // The newest is the likeliest (a lookup right after a send): read one first, then widen the batches.
    for (let at = 0, batch = 1; at < ids.length; at += batch, batch = Math.min(batch * 4, 16)) {
      const read = await Promise.all(ids.slice(at, at + batch).map((id) => sentHeader(ctx, id)));
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
