import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import type { OutgoingMail, ReplyTarget, SentLookup, SentRef } from '../../core/mail';
import type { ToolContext } from '../types';

/**
 * messages.send at most once per request_id, across every failure window Gmail and the Hub have:
 * - an earlier attempt under this request_id may have sent it (it died after Gmail accepted, its record was
 *   lost, it could not tell): look in Sent first, and answer with the message found rather than send again;
 * - Gmail answers 5xx ("An unexpected error occurred while processing the request", Gmail API guide "Resolve
 *   errors"), or the connection drops or times out after the request left: the mail may have gone out
 *   (googleapis/google-api-python-client#1474) — look in Sent, and never send it again from here.
 * Gmail's 429 and 403 rate-limit answers are admission refusals (the same guide prescribes retrying them with
 * backoff, which it could not if they might have sent), and other 4xx reject the request: final, not uncertain.
 * Where the lookup cannot tell (no read scope, too many newer sent messages), the answer is EXTERNAL_API_ERROR
 * with `details.outcome: "unknown"`, not retryable — recorded, so retries replay it instead of sending.
 */

/** After a send that got no answer and is not in Sent: give the vendor this long before the retry looks again. */
const NOT_FOUND_YET_RETRY_S = 5;

/**
 * The mailbox's vendor as the caller knows it (Gmail, Outlook Mail): these messages run for every provider's send.
 * Neutral when the call has no connection to name.
 */
const vendorOf = (ctx: ToolContext) => ctx.connection?.displayName ?? null;

/** A send answer that does not say whether the mail went out. */
export const uncertainSend = (e: HubError) =>
  e.details?.outcome === 'unknown' || (e.code === 'EXTERNAL_API_ERROR' && typeof e.details?.upstream_status === 'number' && e.details.upstream_status >= 500);

/** Before a send under a request_id an earlier attempt may have carried out: found, or not-found-so-send, or a final answer. */
export async function checkEarlierSend(ctx: ToolContext, tokens: readonly string[]): Promise<Result<SentRef | null>> {
  const earlier = ctx.earlierAttempt;
  if (!earlier) return ok(null);
  const looked = await ctx.mail.findSent(tokens, earlier.since, ctx.settings.sendVerifyMaxMessages);
  if (!looked.ok) return fail(lookupFailed(ctx, looked.error, 'An earlier attempt with this request_id may have sent this email'));
  const found = looked.value;
  if (found.kind === 'found') {
    ctx.logger.info({ reason: earlier.reason }, 'an earlier attempt had sent this email; answering with it instead of sending again');
    return ok({ id: found.id, threadId: found.threadId });
  }
  // Possibly on its way to the vendor's sent mail: sending again could make a second copy, so not now.
  if (found.kind === 'pending') return fail(notInSentYet(ctx, 'An earlier attempt with this request_id may have sent this email', {}, found.retryAfterS));
  // store_reset is weak evidence (most keys after a reset are new): when it cannot be checked, send.
  if (found.kind === 'unverifiable' && earlier.reason === 'taken_over') {
    return fail(unknownOutcome(found, 'An earlier attempt with this request_id may have sent this email', {}, vendorOf(ctx)));
  }
  return ok(null);
}

/** The port's send, carrying `token`; on an uncertain failure, the Sent folder decides what the caller hears. */
export async function sendChecked(ctx: ToolContext, mail: OutgoingMail, token: string, reply: ReplyTarget | null): Promise<Result<SentRef>> {
  const startedAt = Date.now();
  // Not idempotent at the vendor: the resilience layer never repeats it once bytes left; only the lookup below decides.
  const sent = await ctx.mail.send(mail, token, reply);
  if (sent.ok || !uncertainSend(sent.error)) return sent;

  const vendor = vendorOf(ctx);
  const what = `${vendor ?? 'The mail provider'} did not confirm the send (${failureText(sent.error)})`;
  const looked = await ctx.mail.findSent([token], startedAt, ctx.settings.sendVerifyMaxMessages);
  if (!looked.ok) return fail(lookupFailed(ctx, looked.error, what, sent.error));
  const found = looked.value;
  switch (found.kind) {
    case 'found':
      ctx.logger.info({ upstream: failureText(sent.error) }, `${vendor ?? 'The mail provider'} failed a send it had carried out; the message is in Sent`);
      return ok({ id: found.id, threadId: found.threadId });
    case 'absent': {
      // The record is kept either way, so a retry looks again before sending (a late copy is still caught).
      ctx.outcomeUncertain();
      if (typeof sent.error.details?.upstream_status === 'number') {
        // The vendor answered: it is done with the request, and the message is not in Sent.
        return fail(
          hubError('EXTERNAL_API_ERROR', `${what}, and the message is not in Sent: it was not sent. Retry with the same request_id`, {
            retryable: true,
            details: { ...upstreamDetails(sent.error), outcome: 'not_sent' },
            ...(sent.error.retryAfterS !== undefined ? { retryAfterS: sent.error.retryAfterS } : {}),
          }),
        );
      }
      // No answer: the vendor may still be working on it. Only a retry that looks first again may follow.
      return fail(notInSentYet(ctx, what, upstreamDetails(sent.error), NOT_FOUND_YET_RETRY_S));
    }
    case 'pending':
      // The vendor's sent mail may not show it yet, whatever its status said: unknown, never "not sent".
      return fail(notInSentYet(ctx, what, upstreamDetails(sent.error), found.retryAfterS));
    case 'unverifiable':
      return fail(unknownOutcome(found, what, upstreamDetails(sent.error), vendor));
  }
}

/** Not in Sent yet, and it may still arrive: unknown; with a request_id the retry looks again before sending. */
function notInSentYet(ctx: ToolContext, what: string, details: Record<string, unknown>, retryAfterS: number): HubError {
  const retryable = ctx.idempotencyKey !== null;
  if (retryable) ctx.outcomeUncertain();
  return hubError(
    'EXTERNAL_API_ERROR',
    `${what}; the message is not in Sent yet, so it may still go out. ${retryable ? 'A retry with the same request_id checks again before sending' : 'Check the Sent folder before sending it again'}`,
    {
      retryable,
      details: { ...details, outcome: 'unknown', verification: 'not_found_yet' },
      ...(retryable ? { retryAfterS } : {}),
    },
  );
}

const failureText = (e: HubError) =>
  typeof e.details?.upstream_status === 'number' ? `HTTP ${e.details.upstream_status}` : String(e.details?.reason ?? e.code).replace(/_/g, ' ');

/** What the caller may keep of the vendor's answer (never the message text, which may quote the request). */
const upstreamDetails = (e: HubError) => {
  const { upstream_status, reason, code } = (e.details ?? {}) as Record<string, unknown>;
  return {
    ...(upstream_status !== undefined ? { upstream_status } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(code !== undefined ? { code } : {}),
  };
};

function unknownOutcome(found: Extract<SentLookup, { kind: 'unverifiable' }>, what: string, details: Record<string, unknown>, vendor: string | null): HubError {
  const why =
    found.reason === 'no_read_scope'
      ? `the connection has no ${vendor ? `${vendor} ` : ''}read access to check Sent`
      : 'too many newer messages in Sent to check';
  return hubError(
    'EXTERNAL_API_ERROR',
    `${what}, and the Hub cannot tell whether it went out (${why}); it was not sent again. Check the Sent folder before sending it with a new request_id`,
    {
      retryable: false,
      details: { ...details, outcome: 'unknown', verification: found.reason },
    },
  );
}

/**
 * The check itself failed (the vendor unreachable, rate limited…): still unknown. With a request_id the record stays
 * and the retry checks again, so the retry is safe; without one nothing would check, so it is final.
 */
function lookupFailed(ctx: ToolContext, lookupError: HubError, what: string, sendError?: HubError): HubError {
  const retryable = ctx.idempotencyKey !== null && lookupError.retryable;
  if (retryable) ctx.outcomeUncertain();
  return hubError(
    'EXTERNAL_API_ERROR',
    `${what}, and checking the Sent folder failed (${failureText(lookupError)}); it was not sent again${retryable ? '. Retry with the same request_id' : ''}`,
    {
      retryable,
      details: { ...(sendError ? upstreamDetails(sendError) : {}), outcome: 'unknown', verification: 'failed' },
      ...(retryable && lookupError.retryAfterS !== undefined ? { retryAfterS: lookupError.retryAfterS } : {}),
    },
  );
}
