import { createSandbox } from '@hub/google-sandbox';
import { SCOPES, useTestSandbox } from '../helpers/sandbox';

/** The control API: accounts, faults, the request log, the clock — and that it exists only in sandbox mode. */

const ANA = 'ana@acme.example';
const sb = useTestSandbox();
let token: string;

beforeEach(async () => {
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
  token = await sb.token(ANA, [SCOPES.calendarReadonly, SCOPES.gmailReadonly]);
});

const settings = () => fetch(`${sb.url}/calendar/v3/users/me/settings/timezone`, { headers: { authorization: `Bearer ${token}` } });

describe('accounts', () => {
  test('when an account is created twice, then 409; when the body is invalid, then 400 naming the field', async () => {
    expect((await sb.control('POST', '/accounts', { email: ANA })).status).toBe(409);
    const bad = await sb.control('POST', '/accounts', { email: 'x@y.example', time_zone: 'Mars/Olympus' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('time_zone');
    expect((await sb.control('POST', '/accounts', { email: 'x@y.example', colour: 'red' })).status).toBe(400);
  });

  test('when an account is read, then it shows its grants and never a token', async () => {
    const res = await sb.control('GET', `/accounts/${ANA}`);
    expect(res.body).toMatchObject({ email: ANA, time_zone: 'Europe/Madrid', grants: [{ scopes: [SCOPES.calendarReadonly, SCOPES.gmailReadonly] }] });
    expect(JSON.stringify(res.body)).not.toContain('ya29.');
  });
});

describe('fault injection', () => {
  test("when a preset fault is set for N times, then exactly N calls fail with Google's body and the next succeeds", async () => {
    const fault = await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'rateLimitExceeded', times: 2 });
    expect(fault.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await settings();
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error).toMatchObject({
        code: 403,
        message: 'Rate Limit Exceeded',
        errors: [{ domain: 'usageLimits', reason: 'rateLimitExceeded' }],
      });
    }
    expect((await settings()).status).toBe(200);
    expect((await sb.control('GET', '/faults')).body.faults[0]).toMatchObject({ id: fault.body.id, hits: 2 });
  });

  test('when a 429 fault carries retry_after_s, then the answer has Retry-After and RESOURCE_EXHAUSTED', async () => {
    await sb.control('POST', '/faults', { path: '/calendar/v3/users/*/settings/**', preset: 'tooManyRequests', retry_after_s: 7 });
    const res = await settings();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(((await res.json()) as any).error.status).toBe('RESOURCE_EXHAUSTED');
  });

  test('when latency is injected, then the answer is late but correct', async () => {
    await sb.control('POST', '/faults', { operation: 'calendar.settings.get', latency_ms: 150, times: 1 });
    const started = Date.now();
    expect((await settings()).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test('when a connection is dropped, then the client sees a network error and the log records status 0', async () => {
    await sb.control('POST', '/faults', { operation: 'calendar.settings.get', drop: true, times: 1 });
    await expect(settings()).rejects.toThrow();
    const log = (await sb.control('GET', '/requests')).body.requests;
    expect(log.at(-1)).toMatchObject({ operation: 'calendar.settings.get', status: 0 });
  });

  test('when a custom status and body are given, then they are sent verbatim', async () => {
    const body = { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } };
    await sb.control('POST', '/faults', { operation: 'oauth.token', status: 503, body });
    const res = await fetch(`${sb.url}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token' }) });
    expect(res.status).toBe(503);
    expect((await res.json()) as any).toEqual(body);
  });

  test('when a fault has a probability, then a seeded sandbox fails the same calls on every run', async () => {
    const run = async () => {
      await sb.control('POST', '/reset', { seed: 7 });
      await sb.createAccount({ email: ANA });
      token = await sb.token(ANA, [SCOPES.calendarReadonly]);
      await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'backendError', probability: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await settings()).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  describe('apply_first: Google fails after carrying the request out', () => {
    const BEN = 'ben@acme.example';
    const api = (path: string, auth: string, init: RequestInit = {}) =>
      fetch(`${sb.url}${path}`, { ...init, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', ...init.headers } });

    test("when messages.send gets an apply_first 500, then the answer is Google's 500 but the mail went out: in Sent and delivered", async () => {
      await sb.createAccount({ email: BEN });
      const sender = await sb.token(ANA, [SCOPES.gmailSend, SCOPES.gmailReadonly]);
      await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', preset: 'backendError', apply_first: true, times: 1 });
      const raw = Buffer.from(`To: ${BEN}\r\nSubject: Invoice\r\n\r\nAttached.`).toString('base64url');
      const res = await api('/gmail/v1/users/me/messages/send', sender, { method: 'POST', body: JSON.stringify({ raw }) });
      expect(res.status).toBe(500);
      expect(((await res.json()) as any).error).toMatchObject({ code: 500, errors: [{ reason: 'backendError' }] });
      const sent = (await (await api('/gmail/v1/users/me/messages?labelIds=SENT', sender)).json()) as any;
      expect(sent.messages).toHaveLength(1);
      expect(sb.world.gmail.mailboxes.get(BEN)!.messages.size).toBe(1);
      const log = (await sb.control('GET', '/requests')).body.requests;
      expect(log.find((r: any) => r.operation === 'gmail.users.messages.send')).toMatchObject({ status: 500, fault: expect.stringMatching(/^fault-/) });
    });

    test('when events.insert gets an apply_first drop, then the client sees a network error but the event exists', async () => {
      const writer = await sb.token(ANA, [SCOPES.calendarEvents]);
      await sb.control('POST', '/faults', { operation: 'calendar.events.insert', drop: true, apply_first: true, times: 1 });
      const event = { id: 'appl1edf1rst01', summary: 'Kick-off', start: { dateTime: '2030-01-07T10:00:00Z' }, end: { dateTime: '2030-01-07T11:00:00Z' } };
      await expect(api('/calendar/v3/calendars/primary/events', writer, { method: 'POST', body: JSON.stringify(event) })).rejects.toThrow();
      expect((await api('/calendar/v3/calendars/primary/events/appl1edf1rst01', writer)).status).toBe(200);
      const log = (await sb.control('GET', '/requests')).body.requests;
      expect(log.find((r: any) => r.operation === 'calendar.events.insert')).toMatchObject({ status: 0 });
      // The client's retry with the same id meets Google's 409: the event was created once.
      expect((await api('/calendar/v3/calendars/primary/events', writer, { method: 'POST', body: JSON.stringify(event) })).status).toBe(409);
    });

    test('when apply_first has no failure to give, or names an OAuth endpoint, then 400', async () => {
      expect((await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', latency_ms: 10, apply_first: true })).status).toBe(400);
      expect((await sb.control('POST', '/faults', { operation: 'oauth.token', status: 500, apply_first: true })).status).toBe(400);
    });
  });

  test('when a fault spec is incomplete, then 400', async () => {
    expect((await sb.control('POST', '/faults', { operation: 'calendar.settings.get' })).status).toBe(400);
    expect((await sb.control('POST', '/faults', { preset: 'backendError' })).status).toBe(400);
  });
});

describe('request log and clock', () => {
  test('when calls are made, then the log shows method, path, query, operation, account and scopes used — no token', async () => {
    await fetch(`${sb.url}/gmail/v1/users/me/messages?q=is:unread&maxResults=5`, { headers: { authorization: `Bearer ${token}` } });
    const { requests } = (await sb.control('GET', '/requests')).body;
    expect(requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/gmail/v1/users/me/messages',
      query: { q: 'is:unread', maxResults: '5' },
      operation: 'gmail.users.messages.list',
      account: ANA,
      scopes_used: [SCOPES.gmailReadonly],
      status: 200,
    });
    expect(JSON.stringify(requests)).not.toContain(token);
  });

  test('when the clock is advanced past the token lifetime, then the token is expired', async () => {
    expect((await settings()).status).toBe(200);
    await sb.control('POST', '/clock', { advance_s: 3600 });
    expect((await settings()).status).toBe(401);
  });

  test("when the account's tokens are expired through the control API, then its calls get 401", async () => {
    expect((await sb.control('POST', `/accounts/${ANA}/expire-tokens`)).body).toEqual({ expired_access_tokens: 1 });
    expect((await settings()).status).toBe(401);
  });
});

describe('sandbox mode', () => {
  test('when the sandbox is not in sandbox mode, then /_sandbox/ does not exist', async () => {
    const running = await createSandbox({ control: false }).listen(0);
    try {
      const res = await fetch(`${running.url}/_sandbox/accounts`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(404);
    } finally {
      await running.close();
    }
  });
});

describe('determinism', () => {
  test('when two sandboxes share a seed and receive the same calls, then ids and tokens are identical', async () => {
    const run = async () => {
      await sb.control('POST', '/reset', { seed: 99 });
      await sb.createAccount({ email: ANA, messages: [{ from: 'x@y.example', to: [ANA], subject: 'hi', text: 'hello', date: '2026-11-20T10:00:00Z' }] });
      const t = await sb.token(ANA, [SCOPES.calendarEvents]);
      const calendar = sb.google.calendar(sb.google.withAccessToken(t));
      const event = await calendar.events.insert({
        calendarId: 'primary',
        requestBody: { summary: 'x', start: { dateTime: '2026-11-23T10:00:00Z' }, end: { dateTime: '2026-11-23T11:00:00Z' } },
      });
      return { token: t, event: event.data.id, link: event.data.htmlLink, mail: [...sb.world.gmail.mailboxes.values()].flatMap((m) => [...m.messages.keys()]) };
    };
    const first = await run();
    expect(await run()).toEqual(first);
  });
});
