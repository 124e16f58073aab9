import type { gmail_v1 } from '@googleapis/gmail';
import type { z } from 'zod';
import { type HubError, type Result, hubError, ok } from '../../core/errors';
import type { FactCache } from '../../core/fact-cache';
import type { VendorCall } from '../../core/vendor-call';
import type { GoogleClients } from './clients';
import type { Logger } from '../../logger';
import type { HtmlToText } from '../../tools/email/html-text';
import { parseGoogle } from './answers';
import { profileSchema } from './gmail-schemas';

/**
 * The Gmail adapter's one way to Gmail: every request goes through the connection's VendorCall (token, retries
 * for idempotent operations, circuit breaker, budgets, api_calls, error mapping), and every answer is checked
 * against the shape the adapter relies on before it is read.
 */

export interface GoogleMailDeps {
  call: VendorCall;
  clients: Pick<GoogleClients, 'gmail' | 'withAccessToken'>;
  cache: FactCache;
  connection: { credentialId: string; accountEmail: string | null; scopes: readonly string[] };
  /** The tool call's deadline. */
  deadline: AbortSignal;
  /** Read only when there is something to say (a tool call's logger is made on first use). */
  readonly logger: Pick<Logger, 'warn'>;
  /** Untrusted HTML to text within the call's budget (read on first use: most calls convert no HTML). */
  readonly htmlToText: HtmlToText;
  /** Longest text body returned per message; longer ones are cut and flagged `truncated`. */
  maxBodyChars: number;
}

export interface GmailOp {
  /** Discovery method id, e.g. 'gmail.users.messages.get'. */
  operation: string;
  /** Safe to repeat: every Gmail read, and label changes; never messages.send. */
  idempotent: boolean;
}

type Options = { signal: AbortSignal; retry: false };

export async function callGmail<S extends z.ZodType>(
  deps: GoogleMailDeps,
  op: GmailOp,
  schema: S,
  fn: (api: gmail_v1.Gmail, options: Options) => Promise<{ data: unknown }>,
): Promise<Result<z.output<S>>> {
  const answer = await deps.call(op, (signal, accessToken) => fn(deps.clients.gmail(deps.clients.withAccessToken(accessToken)), { signal, retry: false }));
  return answer.ok ? parseGoogle(schema, answer.value.data, op.operation, deps) : answer;
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

/** A mailbox's own address changes only if the account is replaced: remember it for an hour per connection. */
const PROFILE_TTL_MS = 3_600_000;

/** The key of a fact about the connection (its account included: a reconnect to another account is another key). */
const factKey = (deps: GoogleMailDeps, fact: string) => `${fact}\u0000${deps.connection.credentialId}\u0000${deps.connection.accountEmail ?? ''}`;

export function ownAddress(deps: GoogleMailDeps): Promise<Result<string>> {
  return deps.cache.memo(factKey(deps, 'gmail:own-address'), PROFILE_TTL_MS, async () => {
    const profile = await callGmail(deps, { operation: 'gmail.users.getProfile', idempotent: true }, profileSchema, (api, options) =>
      api.users.getProfile({ userId: 'me' }, options),
    );
    return profile.ok ? ok(profile.value.emailAddress) : profile;
  });
}

/** Gmail's internalDate (ms since the epoch) as ISO 8601 UTC; milliseconds only when there are any. */
export const isoDate = (internalDate: string | number) => new Date(Number(internalDate)).toISOString().replace('.000Z', 'Z');
