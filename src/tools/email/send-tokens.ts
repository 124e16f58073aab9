import { createHash, randomBytes } from 'node:crypto';
import { type Result, ok } from '../../core/errors';
import { fingerprintOf } from '../../protection/idempotency-store';
import type { ToolContext } from '../types';

/**
 * The send markers of one send (the mail port carries one where its findSent can see it), the one to write
 * first. For a request_id, the same for every attempt with the same inputs: an HMAC (the Hub's event-id key, scheme `hub-send-v2`) over length-prefixed customer, request_id and
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
