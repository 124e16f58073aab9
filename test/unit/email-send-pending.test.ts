import pino from 'pino';
import { fail, hubError, ok } from '../../src/core/errors';
import type { MailPort, SentLookup } from '../../src/core/mail';
import { checkEarlierSend, sendChecked } from '../../src/tools/email/send-once';
import type { ToolContext } from '../../src/tools/types';

/**
 * The mail port's `pending` lookup (a vendor whose sent mail shows a message only once it arrives: Outlook) as the
 * send tool reads it: unknown, retried with the vendor's wait under a request_id — never "not sent", never a second send.
 */

const mail = { to: [{ address: 'ben@example.com' }], cc: [], bcc: [], subject: 'Hi', body: 'Hello', bodyType: 'text' as const };
const PENDING: SentLookup = { kind: 'pending', retryAfterS: 42 };

function context(options: { idempotencyKey: string | null; earlier?: ToolContext['earlierAttempt'] }) {
  const calls = { send: 0, uncertain: 0 };
  const port: Partial<MailPort> = {
    async send() {
      calls.send++;
      return fail(hubError('EXTERNAL_API_ERROR', 'Graph failed', { retryable: true, details: { upstream_status: 500 } }));
    },
    findSent: async () => ok(PENDING),
  };
  const ctx = {
    mail: port,
    idempotencyKey: options.idempotencyKey,
    earlierAttempt: options.earlier ?? null,
    outcomeUncertain: () => void calls.uncertain++,
    settings: { sendVerifyMaxMessages: 50 },
    logger: pino({ level: 'silent' }),
  } as unknown as ToolContext;
  return { ctx, calls };
}

test('when a send Graph failed is not in Sent yet but may arrive, then the outcome is unknown and the retry waits the vendor’s time', async () => {
  const { ctx, calls } = context({ idempotencyKey: 'k' });
  const answer = await sendChecked(ctx, mail, 'marker', null);
  expect(answer.ok || { retryable: answer.error.retryable, retryAfterS: answer.error.retryAfterS, details: answer.error.details }).toEqual({
    retryable: true,
    retryAfterS: 42,
    details: { upstream_status: 500, outcome: 'unknown', verification: 'not_found_yet' },
  });
  expect(calls.uncertain).toBeGreaterThan(0); // the request_id's record stays: the retry looks again first
});

test('when there is no request_id, then the same answer is final: check Sent before sending again', async () => {
  const { ctx } = context({ idempotencyKey: null });
  const answer = await sendChecked(ctx, mail, 'marker', null);
  expect(answer.ok || [answer.error.retryable, answer.error.retryAfterS, answer.error.details?.outcome]).toEqual([false, undefined, 'unknown']);
});

test.each(['store_reset', 'taken_over'] as const)('when an earlier attempt (%s) may still be on its way, then the retry does not send', async (reason) => {
  const { ctx, calls } = context({ idempotencyKey: 'k', earlier: { reason, since: Date.now() } });
  const answer = await checkEarlierSend(ctx, ['marker']);
  expect(answer.ok || [answer.error.details?.outcome, answer.error.retryAfterS]).toEqual(['unknown', 42]);
  expect(calls.send).toBe(0);
});
