import type { gmail_v1 } from 'googleapis/build/src/apis/gmail';
import type { z } from 'zod';
import { type HubError, type Result, fail, hubError, ok } from '../../errors';
import { shortScope } from '../../integrations/integrations';
import { missingScopes } from '../../integrations/scopes';
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
  if (!answer.ok) return answer;
  const parsed = schema.safeParse(answer.value.data);
  if (parsed.success) return ok(parsed.data);
  // Never the body itself: it is a customer's mail.
  ctx.logger.warn({ operation: op.operation, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), code: i.code })) }, 'unexpected Gmail response');
  return fail(
    hubError('EXTERNAL_API_ERROR', `Gmail answered ${op.operation} with a response the Hub could not read`, {
      retryable: false,
      details: { reason: 'unexpected_response', operation: op.operation },
    }),
  );
}

/**
 * Gmail says 400 "Invalid id value" for an id that cannot be one of its ids, 404 for a well-formed unknown one;
 * to the caller both mean there is no such message (or thread) in this mailbox.
 */
export function notFoundAs(error: HubError, what: string, id: string): HubError {
  const invalidId = error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 400 && /invalid id value/i.test(String(error.details?.message ?? ''));
  if (error.code !== 'RESOURCE_NOT_FOUND' && !invalidId) return error;
  return hubError('RESOURCE_NOT_FOUND', `No ${what} with id "${id}" in this mailbox`, { details: { [`${what.replace(' ', '_')}_id`]: id } });
}

/**
 * For what a tool needs only with some inputs (reading the original of a reply, marking as read): the static
 * requiredScopes cannot say it, so it is checked here, before any Google call, with the same answer the
 * connection check gives.
 */
export function checkExtraScopes(ctx: ToolContext, toolScopes: readonly string[], extra: readonly string[], because: string): HubError | undefined {
  const connection = ctx.connection!;
  const missing = missingScopes(connection.scopes, extra);
  if (!missing.length) return undefined;
  return hubError('INTEGRATION_PERMISSION_DENIED', `Gmail was connected without the permissions needed ${because}`, {
    details: {
      integration: connection.integration,
      required_scopes: [...toolScopes, ...extra].map(shortScope),
      granted_scopes: connection.scopes.map(shortScope),
      missing_scopes: missing.map(shortScope),
      setup_url: connection.setupUrl(),
    },
  });
}

/**
 * A mailbox's own address changes only if the account is replaced: remember it for an hour per connection. A
 * reconnect keeps the row (and its id) but may bring another account, so the connected email is in the key too.
 */
const PROFILE_TTL_MS = 3_600_000;

export function ownAddress(ctx: ToolContext): Promise<Result<string>> {
  const connection = ctx.connection!;
  return ctx.cache.memo(`gmail:own-address:${connection.credentialId}:${connection.accountEmail ?? ''}`, PROFILE_TTL_MS, async () => {
    const profile = await callGmail(ctx, { operation: 'gmail.users.getProfile', idempotent: true }, profileSchema, (api, options) =>
      api.users.getProfile({ userId: 'me' }, options),
    );
    return profile.ok ? ok(profile.value.emailAddress) : profile;
  });
}

/** Gmail's internalDate (ms since the epoch) as ISO 8601 UTC; milliseconds only when there are any. */
export const isoDate = (internalDate: string | number) => new Date(Number(internalDate)).toISOString().replace('.000Z', 'Z');
