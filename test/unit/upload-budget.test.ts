import { graphBody, sizedGraphRequest } from '../../src/providers/microsoft/graph-request';
import { type AccountLimits, RefusedLocally, type VendorProfile, createAccountGuard } from '../../src/resilience';
import { captureLogs } from '../helpers/logs';

/**
 * Outlook's third limit per app and mailbox — "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period"
 * (learn.microsoft.com/graph/throttling-limits#outlook-service-limits) — as the account guard keeps it: each
 * attempt charged its body's exact bytes before it leaves, calendar and mail of one mailbox together, over a
 * sliding window, and a refusal that says when enough bytes have left it.
 */

const { logger } = captureLogs('error');
const settings = { replicas: 1, redisTimeoutMs: 50, longestAttemptMs: 10_000 };
const tenant = { connectionId: 'c1', account: 'ana@contoso.example', customerId: 'cust' };

function outlookWithUploads(bytes: number, windowS: number): VendorProfile {
  const mailbox: AccountLimits = { group: 'outlook_mailbox', uploads: { name: 'Outlook upload limit', bytes, windowS } };
  return { name: 'Microsoft', integrations: ['outlook_calendar', 'outlook_mail'], classify: () => undefined, limits: () => mailbox, quotaCooldownMs: 60_000 };
}

const clock = () => {
  let t = 1_000_000;
  return { now: () => t, at: (ms: number) => (t = 1_000_000 + ms) };
};

async function attempt(guard: ReturnType<typeof createAccountGuard>, integration: string, operation: string, uploadBytes?: number, who = tenant) {
  const op = { integration, operation, ...(uploadBytes !== undefined ? { uploadBytes } : {}) };
  try {
    (await guard.beforeAttempt(op, who, AbortSignal.timeout(5_000), Date.now() + 5_000))();
    return 'sent';
  } catch (err) {
    if (err instanceof RefusedLocally) return err.error;
    throw err;
  }
}

describe("the mailbox's upload budget", () => {
  it('when calendar and mail writes of one mailbox carry its bytes, then the one that would pass the budget is refused with the exact wait', async () => {
    const c = clock();
    const guard = createAccountGuard([outlookWithUploads(1_000, 60)], settings, null, logger, c.now);
    expect(await attempt(guard, 'outlook_calendar', 'events.create', 600)).toBe('sent');
    c.at(10_000);
    expect(await attempt(guard, 'outlook_mail', 'messages.create', 300)).toBe('sent');
    c.at(15_000);
    const refused = await attempt(guard, 'outlook_mail', 'messages.create', 200);
    expect(refused).toEqual({
      code: 'RATE_LIMITED',
      message: "This mailbox's Outlook upload limit (1000 bytes per 60 s) is spent; messages.create (200 bytes) was not sent to Microsoft",
      retryable: true,
      retryAfterS: 45, // the 600 bytes of 0 s leave at 60 s
      details: { scope: 'upstream_quota', reason: 'mailbox_upload_quota', limit: 1_000, window_s: 60, cost: 200 },
    });
    expect(await attempt(guard, 'outlook_mail', 'messages.send')).toBe('sent'); // no body: nothing to charge
    expect(await attempt(guard, 'outlook_mail', 'messages.create', 0)).toBe('sent');
    expect(await attempt(guard, 'outlook_mail', 'messages.create', 200, { ...tenant, account: 'ben@contoso.example' })).toBe('sent');
    c.at(60_000);
    expect(await attempt(guard, 'outlook_mail', 'messages.create', 200)).toBe('sent');
  });

  it('when one body is larger than the whole budget, then it is refused at once, not retryable, and spends nothing', async () => {
    const guard = createAccountGuard([outlookWithUploads(1_000, 60)], settings, null, logger);
    expect(await attempt(guard, 'outlook_mail', 'messages.create', 1_001)).toEqual({
      code: 'RATE_LIMITED',
      message: "messages.create carries 1001 bytes, more than this mailbox's whole Outlook upload limit (1000 bytes per 60 s); it was not sent to Microsoft",
      retryable: false,
      details: { scope: 'upstream_quota', reason: 'mailbox_upload_quota', limit: 1_000, window_s: 60, cost: 1_001 },
    });
    expect(await attempt(guard, 'outlook_mail', 'messages.create', 1_000)).toBe('sent');
  });
});

describe("a Graph request's upload size", () => {
  it('when a write is sized, then its size is the byte length of the very body sent (UTF-8, not characters)', () => {
    const body = { subject: 'Grüße', body: { contentType: 'text', content: 'é'.repeat(1_000) } };
    const sized = sizedGraphRequest({ method: 'POST', path: '/me/messages', body });
    const sent = graphBody(sized.req)!;
    expect(sent.toString('utf8')).toBe(JSON.stringify(body));
    expect(sized.uploadBytes).toBe(sent.length);
    expect(sized.uploadBytes).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(sized.uploadBytes).toBeGreaterThan(JSON.stringify(body).length);
    expect(graphBody(sized.req)).toBe(sent); // serialized once
  });

  it('when a request has no body or is a GET/DELETE, then it uploads nothing', () => {
    expect(sizedGraphRequest({ method: 'POST', path: '/me/messages/x/send' }).uploadBytes).toBe(0);
    expect(sizedGraphRequest({ method: 'GET', path: '/me/messages' }).uploadBytes).toBe(0);
    expect(sizedGraphRequest({ method: 'PATCH', path: '/me/events/x', body: { isReminderOn: false } }).uploadBytes).toBe(22);
  });
});
