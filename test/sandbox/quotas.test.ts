import type { gmail_v1 } from '@googleapis/gmail';
import { SCOPES, useTestSandbox } from '../helpers/sandbox';

/**
 * Google's usage limits in the sandbox: Gmail's per-user concurrency limit and quota units (quotas.ts), and the
 * usage-limit fault presets (Calendar's quotaExceeded, Gmail's limits that name when they lift), with Google's
 * bodies, over HTTP through googleapis.
 */

const ANA = 'ana@acme.example';
const BEN = 'ben@acme.example';

const sb = useTestSandbox();
let ana: gmail_v1.Gmail;
let ben: gmail_v1.Gmail;
let anaIds: string[];

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: { response?: { status: number; data: any } }) => e.response!,
  );
const settle = <T>(ps: Promise<T>[]) => Promise.allSettled(ps);

beforeEach(async () => {
  const messages = Array.from({ length: 3 }, (_, i) => ({ from: BEN, to: [ANA], subject: `m${i}`, text: 'hi' }));
  await sb.createAccount({ email: ANA, messages });
  await sb.createAccount({ email: BEN, messages: [{ from: ANA, to: [BEN], subject: 'b', text: 'hi' }] });
  ana = sb.google.gmail(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.gmailModify])));
  ben = sb.google.gmail(sb.google.withAccessToken(await sb.token(BEN, [SCOPES.gmailModify])));
  anaIds = (await ana.users.messages.list({ userId: 'me' })).data.messages!.map((m) => m.id!);
});

describe('per-user concurrency', () => {
  test('when more requests than the limit are in flight for one mailbox, then the extra ones get Gmail\'s 429 "Too many concurrent requests for user."', async () => {
    expect((await sb.control('GET', '/quotas')).body).toEqual({
      gmail_max_concurrent_per_user: 25,
      gmail_units_per_user_per_minute: 6000,
      gmail_unit_costs: {},
    });
    await sb.control('PUT', '/quotas', { gmail_max_concurrent_per_user: 3 });
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.get', latency_ms: 300 });
    const results = await settle(Array.from({ length: 5 }, () => ana.users.messages.get({ userId: 'me', id: anaIds[0]! }, { retry: false })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason.response);
    expect(refused).toHaveLength(2);
    expect(refused[0].status).toBe(429);
    expect(refused[0].data).toEqual({
      error: {
        code: 429,
        message: 'Too many concurrent requests for user.',
        errors: [{ message: 'Too many concurrent requests for user.', domain: 'global', reason: 'rateLimitExceeded' }],
        status: 'RESOURCE_EXHAUSTED',
      },
    });
    // Once they are answered, the mailbox takes requests again.
    expect((await ana.users.messages.get({ userId: 'me', id: anaIds[0]! })).status).toBe(200);
  });

  test('when one mailbox is at its limit, then another mailbox is served', async () => {
    await sb.control('PUT', '/quotas', { gmail_max_concurrent_per_user: 2 });
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.list', latency_ms: 300 });
    const busy = settle([0, 1].map(() => ana.users.messages.list({ userId: 'me' })));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await ben.users.getProfile({ userId: 'me' })).data.emailAddress).toBe(BEN);
    expect((await failure(ana.users.getProfile({ userId: 'me' }, { retry: false }))).status).toBe(429);
    expect((await busy).every((r) => r.status === 'fulfilled')).toBe(true);
  });
});

describe('quota units per user per minute', () => {
  test('when a mailbox spends its units, then Gmail answers 403 with the quota body until the minute has passed', async () => {
    await sb.control('PUT', '/quotas', { gmail_units_per_user_per_minute: 20 });
    // list (5) + 3 gets (15) = 20: the whole budget.
    for (const id of anaIds) await ana.users.messages.get({ userId: 'me', id });
    const refused = await failure(ana.users.messages.get({ userId: 'me', id: anaIds[0]! }, { retry: false }));
    expect(refused.status).toBe(403);
    expect(refused.data.error).toMatchObject({
      code: 403,
      message: expect.stringMatching(/^Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'gmail\.googleapis\.com'/),
      errors: [{ domain: 'usageLimits', reason: 'rateLimitExceeded' }],
      status: 'PERMISSION_DENIED',
    });
    expect((await ben.users.messages.list({ userId: 'me' })).status).toBe(200); // per user
    await sb.control('POST', '/clock', { advance_s: 60 });
    expect((await ana.users.messages.get({ userId: 'me', id: anaIds[0]! })).status).toBe(200);
  });

  test("when a method's cost is overridden, then requests are charged that", async () => {
    await sb.control('PUT', '/quotas', { gmail_units_per_user_per_minute: 10, gmail_unit_costs: { 'messages.get': 10 } });
    // The budget is spent by the list (5) made in beforeEach plus nothing else: one get at 10 no longer fits.
    expect((await failure(ana.users.messages.get({ userId: 'me', id: anaIds[0]! }, { retry: false }))).status).toBe(403);
    await sb.control('POST', '/clock', { advance_s: 60 });
    expect((await ana.users.messages.get({ userId: 'me', id: anaIds[0]! })).status).toBe(200);
    expect((await failure(ana.users.messages.list({ userId: 'me' }, { retry: false }))).status).toBe(403);
  });

  test('when a send costs more than what is left, then it is refused and nothing is sent', async () => {
    await sb.control('PUT', '/quotas', { gmail_units_per_user_per_minute: 104 });
    const raw = Buffer.from(`From: ${ANA}\r\nTo: ${BEN}\r\nSubject: Hello\r\n\r\nHi\r\n`).toString('base64url');
    expect((await failure(ana.users.messages.send({ userId: 'me', requestBody: { raw } }, { retry: false }))).status).toBe(403); // 5 spent + 100 > 104
    expect(sb.world.gmail.mailboxes.get(BEN)!.messages.size).toBe(1);
  });

  test('when the control API is given a bad limit, then 400 and nothing changes', async () => {
    const res = await sb.control('PUT', '/quotas', { gmail_units_per_user_per_minute: -1, extra: true });
    expect(res.status).toBe(400);
    expect((await sb.control('GET', '/quotas')).body.gmail_units_per_user_per_minute).toBe(6000);
  });
});

describe('usage-limit fault presets', () => {
  test("when Calendar's usage limits are exceeded, then 403 quotaExceeded in Calendar's legacy body", async () => {
    await sb.control('POST', '/faults', { operation: 'calendar.events.insert', preset: 'quotaExceeded' });
    const cal = sb.google.calendar(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.calendarEvents])));
    const start = new Date(Date.now() + 86_400_000);
    const refused = await failure(
      cal.events.insert(
        {
          calendarId: 'primary',
          requestBody: { summary: 'x', start: { dateTime: start.toISOString() }, end: { dateTime: new Date(start.getTime() + 3600_000).toISOString() } },
        },
        { retry: false },
      ),
    );
    expect(refused.status).toBe(403);
    expect(refused.data).toEqual({
      error: {
        code: 403,
        message: 'Calendar usage limits exceeded.',
        errors: [{ message: 'Calendar usage limits exceeded.', domain: 'usageLimits', reason: 'quotaExceeded' }],
      },
    });
  });

  test('when Gmail\'s per-user limit names its end, then 403 with "Retry after <time>" in the message only', async () => {
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.list', preset: 'userRateLimitRetryAfter', retry_after_s: 600 });
    const before = Date.now();
    const refused = await failure(ana.users.messages.list({ userId: 'me' }, { retry: false }));
    expect(refused.status).toBe(403);
    expect(refused.data.error).toMatchObject({
      code: 403,
      errors: [{ message: 'User-rate limit exceeded.', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
      status: 'PERMISSION_DENIED',
    });
    const at = Date.parse(/^User-rate limit exceeded\. {2}Retry after (\S+)$/.exec(refused.data.error.message)![1]!);
    expect(at - before).toBeGreaterThanOrEqual(599_000);
    expect(at - before).toBeLessThanOrEqual(601_000);
  });

  test('when Gmail\'s sending limit is reached, then 429 "… Retry after <time> (Mail sending)"', async () => {
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', preset: 'mailSendingLimit' });
    const raw = Buffer.from(`From: ${ANA}\r\nTo: ${BEN}\r\nSubject: Hello\r\n\r\nHi\r\n`).toString('base64url');
    const refused = await failure(ana.users.messages.send({ userId: 'me', requestBody: { raw } }, { retry: false }));
    expect(refused.status).toBe(429);
    expect(refused.data.error.message).toMatch(/^User-rate limit exceeded\. {2}Retry after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(Mail sending\)$/);
    expect(refused.data.error.status).toBe('RESOURCE_EXHAUSTED');
  });
});
