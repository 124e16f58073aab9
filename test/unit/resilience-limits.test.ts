import { OUTLOOK_MAILBOX_LIMITS } from '../../src/providers/microsoft/limits';
import { type AccountLimits, RefusedLocally, type VendorProfile, createAccountGuard } from '../../src/resilience';
import { captureLogs } from '../helpers/logs';

/**
 * The resilience layer knows no vendor: each provider hands it its limits as data. Outlook's — requests per
 * 10 minutes and 4 concurrent requests per mailbox, shared by calendar and mail of the same mailbox — must be
 * expressible as such a profile and enforced as one budget and one gate.
 */

const limit = (what: string) => OUTLOOK_MAILBOX_LIMITS.find((l) => l.what === what)!;

function outlookLike(requests = limit('requests').limit): VendorProfile {
  const shared: AccountLimits = {
    group: 'microsoft',
    budget: { name: 'Outlook request limit', unit: 'requests', units: requests, windowS: limit('requests').windowS!, cost: () => 1 },
    maxInFlight: limit('concurrent_requests').limit,
  };
  return {
    name: 'Microsoft',
    integrations: ['outlook_calendar', 'outlook_mail'],
    classify: () => undefined,
    limits: () => shared,
    quotaCooldownMs: 60_000,
  };
}

const tenant = { connectionId: 'c1', account: 'ana@contoso.example', customerId: 'cust' };
const { logger } = captureLogs('error');
const settings = { replicas: 1, redisTimeoutMs: 50, longestAttemptMs: 10_000 };

describe('vendor limits as data', () => {
  it('when calendar and mail of one Outlook mailbox hold 4 requests, then a fifth of either waits for a slot', async () => {
    const guard = createAccountGuard([outlookLike()], settings, null, logger);
    const deadlineAt = Date.now() + 5_000;
    const deadline = AbortSignal.timeout(5_000);
    const releases = await Promise.all([
      guard.beforeAttempt({ integration: 'outlook_calendar', operation: 'events.list' }, tenant, deadline, deadlineAt),
      guard.beforeAttempt({ integration: 'outlook_calendar', operation: 'events.get' }, tenant, deadline, deadlineAt),
      guard.beforeAttempt({ integration: 'outlook_mail', operation: 'messages.list' }, tenant, deadline, deadlineAt),
      guard.beforeAttempt({ integration: 'outlook_mail', operation: 'messages.get' }, tenant, deadline, deadlineAt),
    ]);
    let fifthIn = false;
    const fifth = guard.beforeAttempt({ integration: 'outlook_mail', operation: 'messages.get' }, tenant, deadline, deadlineAt).then((release) => {
      fifthIn = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fifthIn).toBe(false);
    releases[0]!();
    (await fifth)();
    expect(fifthIn).toBe(true);
    for (const release of releases.slice(1)) release();
  });

  it('when a mailbox spent its requests on calendar calls, then its mail calls are refused locally with the budget named', async () => {
    const guard = createAccountGuard([outlookLike(2)], settings, null, logger);
    const deadlineAt = Date.now() + 5_000;
    const deadline = AbortSignal.timeout(5_000);
    for (let i = 0; i < 2; i++) (await guard.beforeAttempt({ integration: 'outlook_calendar', operation: 'events.list' }, tenant, deadline, deadlineAt))();
    const refused = await guard
      .beforeAttempt({ integration: 'outlook_mail', operation: 'messages.list' }, tenant, deadline, deadlineAt)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RefusedLocally);
    const error = (refused as RefusedLocally).error;
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toBe("This mailbox's Outlook request limit (2 requests per 600 s) is spent; messages.list was not sent to Microsoft");
    expect(error.details).toMatchObject({ scope: 'upstream_quota', reason: 'mailbox_quota', limit: 2, window_s: 600, cost: 1 });
  });

  it('when another mailbox calls, then it draws on its own budget', async () => {
    const guard = createAccountGuard([outlookLike(1)], settings, null, logger);
    const deadlineAt = Date.now() + 5_000;
    const deadline = AbortSignal.timeout(5_000);
    (await guard.beforeAttempt({ integration: 'outlook_mail', operation: 'messages.list' }, tenant, deadline, deadlineAt))();
    const other = { ...tenant, connectionId: 'c2', account: 'ben@contoso.example' };
    await expect(guard.beforeAttempt({ integration: 'outlook_mail', operation: 'messages.list' }, other, deadline, deadlineAt)).resolves.toEqual(
      expect.any(Function),
    );
  });
});
