import { SCOPES, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * Google's front end, as the sandbox reproduces it for every method: bearer token, scopes (from the Discovery
 * document), unknown query parameters and body fields refused with Google's own 400, unknown URLs.
 */

const ANA = 'ana@acme.example';
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
});
afterAll(async () => {
  sb.expectFaithful();
  await sb.close();
});

const api = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${sb.url}${path}`, {
    ...init,
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });

describe('authentication', () => {
  test('when no token is sent, then 401 with reason required and WWW-Authenticate', async () => {
    const res = await api('/calendar/v3/users/me/settings/timezone');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="https:\/\/accounts.google.com\/"/);
    expect(((await res.json()) as any).error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      errors: [{ reason: 'required', location: 'Authorization' }],
    });
  });

  test('when an unknown token is sent, then 401 UNAUTHENTICATED / authError, through googleapis too', async () => {
    const calendar = sb.google.calendar(sb.google.withAccessToken('ya29.not-a-token'));
    const err = await calendar.settings.get({ setting: 'timezone' }).catch((e) => e);
    expect(err.response.status).toBe(401);
    expect(err.response.data.error).toMatchObject({ status: 'UNAUTHENTICATED', errors: [{ reason: 'authError', message: 'Invalid Credentials' }] });
  });

  test('when the token lacks every scope the method accepts, then 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT naming the method', async () => {
    const token = await sb.token(ANA, [SCOPES.gmailSend]);
    const res = await api('/calendar/v3/users/me/settings/timezone', { token });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
    const { error } = (await res.json()) as any;
    expect(error).toMatchObject({ status: 'PERMISSION_DENIED', errors: [{ reason: 'insufficientPermissions' }] });
    expect(error.details[0]).toMatchObject({ reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', metadata: { method: 'calendar.v3.Settings.Get' } });
  });

  test('when the token holds any one accepted scope (even a broader one), then the call goes through', async () => {
    for (const scope of [SCOPES.calendarReadonly, SCOPES.calendar]) {
      const calendar = sb.google.calendar(sb.google.withAccessToken(await sb.token(ANA, [scope])));
      const { data } = await calendar.settings.get({ setting: 'timezone' });
      expect(data.value).toBe('Europe/Madrid');
    }
  });

  test('when the token is passed as access_token in the query, then it is accepted like the header', async () => {
    const token = await sb.token(ANA, [SCOPES.gmailReadonly]);
    const res = await api(`/gmail/v1/users/me/profile?access_token=${token}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).emailAddress).toBe(ANA);
  });
});

describe('requests are checked against the Discovery document', () => {
  let token: string;
  beforeAll(async () => {
    token = await sb.token(ANA, [SCOPES.calendarEvents, SCOPES.gmailModify]);
  });

  test('when a query parameter is unknown to the method, then Google\'s 400 "Cannot bind query parameter"', async () => {
    const res = await api('/calendar/v3/calendars/primary/events?teleport=true', { token });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as any;
    expect(error.message).toBe(
      'Invalid JSON payload received. Unknown name "teleport": Cannot bind query parameter. Field \'teleport\' could not be found in request message.',
    );
    expect(error.errors[0].reason).toBe('invalid');
  });

  test('when a body field is unknown, then Google\'s 400 "Unknown name … Cannot find field" with its path', async () => {
    const body = JSON.stringify({ summary: 'x', start: { dateTime: '2026-11-23T10:00:00Z', zone: 'UTC' }, end: { dateTime: '2026-11-23T11:00:00Z' } });
    const res = await api('/calendar/v3/calendars/primary/events', { method: 'POST', token, body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toBe('Invalid JSON payload received. Unknown name "zone" at \'start\': Cannot find field.');
  });

  test('when a body field has the wrong type, then 400 Invalid value naming the proto field', async () => {
    const res = await api('/gmail/v1/users/me/messages/abc/modify', { method: 'POST', token, body: JSON.stringify({ addLabelIds: 'STARRED' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toBe('Invalid value at \'add_label_ids\' (TYPE_STRING), "STARRED"');
  });

  test('when an enum query value is invalid, then 400', async () => {
    const res = await api('/gmail/v1/users/me/messages/abc?format=everything', { token });
    expect(res.status).toBe(400);
  });

  test('when the body is not JSON, then 400 Invalid JSON payload', async () => {
    const res = await api('/calendar/v3/calendars/primary/events', { method: 'POST', token, body: '{"summary":' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toMatch(/^Invalid JSON payload received/);
  });

  test("when the URL is no Google API path, then Google's HTML 404", async () => {
    const res = await api('/calendar/v3/teleport', { token });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  test("when a Discovery method is not emulated, then 501 says so in Google's error shape", async () => {
    const res = await api('/gmail/v1/users/me/settings/vacation', { token });
    expect(res.status).toBe(501);
    expect(((await res.json()) as any).error.message).toContain('gmail.users.settings.getVacation');
  });
});
