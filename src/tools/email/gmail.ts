import type { gmail_v1 } from '@googleapis/gmail';
import type { z } from 'zod';
import { type HubError, type Result, hubError, ok } from '../../core/errors';
import { missingScopesError } from '../../integrations/scopes';
import { parseGoogle } from '../../providers/google/answers';
import { connectionFactKey } from '../tool-cache';
import type { ToolContext } from '../types';
import { profileSchema } from './gmail-schemas';

/**
 * The email tools' one way to Gmail: every request goes through ctx.callGoogle (token, retries for idempotent
 * operations, circuit breaker, api_calls, error mapping), and every answer is checked against the shape the
 * tools rely on before it is read.
 */

export interface GmailOp {
  /** Discovery method id, e.g. 'gmail.users.messages.get'. */
  operation: string;
  /** Safe to repeat: every Gmail read, and label changes; never messages.send. */
  idempotent: boolean;
}

type Options = { signal: AbortSignal; retry: false };

export async function callGmail<S extends z.ZodType>(
  ctx: ToolContext,
  op: GmailOp,
  schema: S,
  fn: (api: gmail_v1.Gmail, options: Options) => Promise<{ data: unknown }>,
): Promise<Result<z.output<S>>> {
  const answer = await ctx.callGoogle({ integration: 'google_gmail', ...op }, (signal, auth) => fn(ctx.google.gmail(auth), { signal, retry: false }));
  return answer.ok ? parseGoogle(schema, answer.value.data, op.operation, ctx) : answer;
}

/**
 * Gmail says 400 "Invalid id value" for an id that cannot be one of its ids, 404 for a well-formed unknown one;
 * to the caller both mean there is no such message (or thread) in this mailbox.
 */
export function notFoundAs(error: HubError, what: string, id: string): HubError {
  const invalidId =
    error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 400 && /invalid id value/i.test(String(error.details?.message ?? ''));
  if (error.code !== 'RESOURCE_NOT_FOUND' && !invalidId) return error;
  return hubError('RESOURCE_NOT_FOUND', `No ${what} with id "${id}" in this mailbox`, { details: { [`${what.replace(' ', '_')}_id`]: id } });
}

/**
 * For what a tool needs only with some inputs (reading the original of a reply, marking as read): the static
 * requiredScopes cannot say it, so it is checked here, before any Google call, with the same answer the
 * connection check gives.
 */
export function checkExtraScopes(ctx: ToolContext, toolScopes: readonly string[], extra: readonly string[], because: string): HubError | null {
  const { integration, scopes, setupUrl } = ctx.connection!;
  return missingScopesError({ integration, granted: scopes, required: [...toolScopes, ...extra], what: `needed ${because}`, setupUrl });
}

/** A mailbox's own address changes only if the account is replaced: remember it for an hour per connection. */
const PROFILE_TTL_MS = 3_600_000;

export function ownAddress(ctx: ToolContext): Promise<Result<string>> {
  return ctx.cache.memo(connectionFactKey(ctx.connection!, 'gmail:own-address'), PROFILE_TTL_MS, async () => {
    const profile = await callGmail(ctx, { operation: 'gmail.users.getProfile', idempotent: true }, profileSchema, (api, options) =>
      api.users.getProfile({ userId: 'me' }, options),
    );
    return profile.ok ? ok(profile.value.emailAddress) : profile;
  });
}

/** Gmail's internalDate (ms since the epoch) as ISO 8601 UTC; milliseconds only when there are any. */
export const isoDate = (internalDate: string | number) => new Date(Number(internalDate)).toISOString().replace('.000Z', 'Z');
