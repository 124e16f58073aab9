import { randomUUID } from 'node:crypto';
import { connectBrowser, cookieOf, onHub } from '../helpers/connect';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { connectLinkFor } from '../helpers/links';
import { SCOPES, TEST_CLIENT, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * Connecting a Google account end to end, through real HTTP redirects between the Hub and the Google sandbox:
 * setup_url (a signed connect link) → Hub → Google's consent → callback → sealed tokens stored → tools work.
 */

const ALICE = 'alice@connect.test';
let sandbox: TestSandbox;
let hub: TestHub;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  hub = await buildTestHub({
    env: {
      HUB_GOOGLE_SANDBOX_URL: sandbox.url,
      HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
      HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
      HUB_CONNECT_RETURN_URLS: 'https://app.example.com/hub-done',
    },
  });
  await sandbox.createAccount({ email: ALICE, name: 'Alice', time_zone: 'Europe/Paris' });
});
afterAll(async () => {
  sandbox.expectFaithful();
  await sandbox.close();
  await hub.close();
});
beforeEach(() => sandbox.control('PUT', '/consent', { mode: 'auto', account: ALICE }));

const status = (customerId: string, userId?: string) =>
  client(hub.app)
    .get(`/api/internal/integrations/status/${customerId}/${userId ? `?user_id=${userId}` : ''}`)
    .set('Authorization', serviceAuth());
const timezone = (customerId: string, userId: string | null = null) =>
  client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send(anExecuteBody({ tool: 'test_calendar_timezone', customer_id: customerId, user_id: userId, inputs: {} }));

const { throughGoogle, finish } = connectBrowser(() => hub);

/** A connect link as an admin would make one (works whatever the current status is). */
const linkFor = (customerId: string, integration: 'google_calendar' | 'google_gmail', userId: string | null = null, returnUrl: string | null = null) =>
  connectLinkFor({ customerId, integration, userId, returnUrl });

async function setupUrlFor(customerId: string, integration = 'google_calendar', userId?: string): Promise<string> {
  const res = await status(customerId, userId).expect(200);
  return res.body.integrations[integration].setup_url as string;
}

describe('connecting Google through a setup_url', () => {
  test('when the person allows everything, then the tokens are stored, status shows connected and the tool works', async () => {
    const customerId = randomUUID();
    const before = await timezone(customerId).expect(400);
    expect(before.body.error.code).toBe('INTEGRATION_NOT_CONNECTED');

    const journey = await throughGoogle(before.body.error.details.setup_url);
    const consent = new URL(journey.start.location);
    expect(consent.origin + consent.pathname).toBe(`${sandbox.url}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(consent.searchParams)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      code_challenge_method: 'S256',
      response_type: 'code',
      client_id: TEST_CLIENT.clientId,
      redirect_uri: TEST_CLIENT.redirectUri,
      scope: `${SCOPES.calendarReadonly} ${SCOPES.calendarEvents} openid email`,
    });
    expect(consent.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(journey.start.cookie).toMatch(/^hub_connect_[0-9a-f]{16}=/);

    const done = await finish(journey).expect(200);
    expect(done.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(done.headers['referrer-policy']).toBe('no-referrer');
    expect(done.headers['content-security-policy']).toContain("default-src 'none'");
    expect(done.text).toContain('Google Calendar is connected');
    expect(done.text).toContain(ALICE);

    const after = await status(customerId).expect(200);
    expect(after.body.integrations.google_calendar).toMatchObject({ connected: true, status: 'connected', email: ALICE, source: 'customer' });
    const tz = await timezone(customerId).expect(200);
    expect(tz.body.result).toEqual({ time_zone: 'Europe/Paris' });

    const [row] = await hub.store.listForCustomer(customerId);
    const tokens = hub.store.openTokens(row!);
    expect(tokens.refreshToken).toBeTruthy();
    for (const secret of [tokens.accessToken!, tokens.refreshToken!]) {
      expect(hub.logs.text()).not.toContain(secret);
      expect(done.text).not.toContain(secret);
    }
  });

  test('when connected for one end user, then only that user is connected, and re-connecting replaces the access token and keeps the working grant', async () => {
    const customerId = randomUUID();
    await finish(await throughGoogle(await setupUrlFor(customerId, 'google_calendar', 'u-42'))).expect(200);
    expect((await status(customerId, 'u-42')).body.integrations.google_calendar).toMatchObject({ connected: true, source: 'user' });
    expect((await status(customerId)).body.integrations.google_calendar).toMatchObject({ connected: false, status: 'not_connected' });
    await timezone(customerId, 'u-42').expect(200);

    const [first] = await hub.store.listForCustomer(customerId);
    const again = await throughGoogle(linkFor(customerId, 'google_calendar', 'u-42'));
    // The same account, still connected: no fresh consent, so Google mints no new refresh token (grant-reuse.ts).
    expect(new URL(again.start.location).searchParams.get('prompt')).toBeNull();
    expect(new URL(again.start.location).searchParams.get('login_hint')).toBe(ALICE);
    await finish(again).expect(200);
    const rows = await hub.store.listForCustomer(customerId);
    expect(rows).toHaveLength(1);
    expect(hub.store.openTokens(rows[0]!).refreshToken).toBe(hub.store.openTokens(first!).refreshToken);
    expect(hub.store.openTokens(rows[0]!).accessToken).not.toBe(hub.store.openTokens(first!).accessToken);
    await timezone(customerId, 'u-42').expect(200);
  });

  test('when the person grants only some permissions, then status is insufficient_scopes and the page lists what still works', async () => {
    // A fresh account: with include_granted_scopes, Google adds what an account granted earlier to the token.
    const customerId = randomUUID();
    const bob = `bob-${customerId.slice(0, 8)}@connect.test`;
    await sandbox.createAccount({ email: bob, time_zone: 'UTC' });
    await sandbox.control('PUT', '/consent', { mode: 'auto', account: bob, grant: [SCOPES.calendarReadonly] });
    const done = await finish(await throughGoogle(await setupUrlFor(customerId))).expect(200);
    expect(done.text).toContain('fewer permissions than requested');
    expect(done.text).toContain('calendar.events');
    expect(done.text).toContain('test_calendar_timezone');

    const s = (await status(customerId).expect(200)).body.integrations.google_calendar;
    expect(s).toMatchObject({ connected: true, status: 'insufficient_scopes' });
    expect(s.scopes).toEqual(expect.arrayContaining(['calendar.readonly']));
    expect(s.scopes).not.toContain('calendar.events');
    expect(s.tools_available).toContain('test_calendar_timezone');
    await timezone(customerId).expect(200);
  });

  test('when the person denies consent, then nothing is stored and the page says so', async () => {
    const customerId = randomUUID();
    await sandbox.control('PUT', '/consent', { mode: 'auto', deny: true });
    const journey = await throughGoogle(await setupUrlFor(customerId));
    expect(new URL(journey.callbackUrl).searchParams.get('error')).toBe('access_denied');
    const done = await finish(journey).expect(200);
    expect(done.text).toContain('was not connected');
    expect(await hub.store.listForCustomer(customerId)).toEqual([]);
  });

  test("when the person uses Google's consent page and clicks Allow, then the account they chose is connected", async () => {
    await sandbox.control('PUT', '/consent', { mode: 'page' });
    const customerId = randomUUID();
    const start = await client(hub.app)
      .get(onHub(await setupUrlFor(customerId)))
      .expect(302);
    const html = await (await fetch(start.headers.location as string)).text();
    const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
    const form = new URLSearchParams({ request, decision: 'allow', account: ALICE });
    for (const s of [SCOPES.calendarReadonly, SCOPES.calendarEvents]) form.append('scope', s);
    const decided = await fetch(`${sandbox.url}/o/oauth2/v2/auth/decision`, { method: 'POST', body: form, redirect: 'manual' });
    expect(decided.status).toBe(302);
    await client(hub.app)
      .get(onHub(decided.headers.get('location')!))
      .set('Cookie', cookieOf(start.headers['set-cookie']))
      .expect(200);
    expect((await status(customerId)).body.integrations.google_calendar).toMatchObject({ status: 'connected', email: ALICE });
  });

  test('when the grant is revoked at Google, then the next call is INTEGRATION_EXPIRED, status shows expired, and reconnecting through its setup_url restores it', async () => {
    const customerId = randomUUID();
    const carol = `carol-${customerId.slice(0, 8)}@connect.test`;
    await sandbox.createAccount({ email: carol, time_zone: 'Asia/Tokyo' });
    await sandbox.control('PUT', '/consent', { mode: 'auto', account: carol });
    await finish(await throughGoogle(await setupUrlFor(customerId))).expect(200);
    await timezone(customerId).expect(200);

    await sandbox.control('POST', `/accounts/${carol}/revoke`);
    const expired = await timezone(customerId).expect(401);
    expect(expired.body.error).toMatchObject({ code: 'INTEGRATION_EXPIRED', retryable: false });
    const s = (await status(customerId).expect(200)).body.integrations.google_calendar;
    expect(s).toMatchObject({ connected: false, status: 'expired' });

    await finish(await throughGoogle(expired.body.error.details.setup_url)).expect(200);
    expect((await status(customerId).expect(200)).body.integrations.google_calendar).toMatchObject({ connected: true, status: 'connected' });
    expect((await timezone(customerId).expect(200)).body.result).toEqual({ time_zone: 'Asia/Tokyo' });
  });

  test('when the link names an allow-listed return_url, then the person is sent back there with the result', async () => {
    const link = linkFor(randomUUID(), 'google_gmail', null, 'https://app.example.com/hub-done?tab=1');
    const done = await finish(await throughGoogle(link)).expect(302);
    const back = new URL(done.headers.location as string);
    expect(back.origin + back.pathname).toBe('https://app.example.com/hub-done');
    expect(Object.fromEntries(back.searchParams)).toEqual({ tab: '1', hub_connect: 'connected', integration: 'google_gmail' });
  });
});

describe('refusing what does not belong to the flow', () => {
  test('when the callback state is replayed, then the second use is refused and nothing changes', async () => {
    const customerId = randomUUID();
    const journey = await throughGoogle(await setupUrlFor(customerId));
    await finish(journey).expect(200);
    const again = await finish(journey).expect(400);
    expect(again.text).toContain('unknown or was already completed');
  });

  test('when the state is forged or missing, then the callback refuses it without touching Google', async () => {
    const forged = await client(hub.app).get('/integrations/google/callback?code=4/abc&state=forged-state').expect(400);
    expect(forged.text).toContain('unknown or was already completed');
    expect(forged.text).not.toContain('4/abc');
    await client(hub.app).get('/integrations/google/callback?code=4/abc').expect(400);
    await client(hub.app).get('/integrations/google/callback?state=a&state=b').expect(400);
  });

  test('when the callback arrives from another browser (no attempt cookie), then it is refused and nothing is stored', async () => {
    const customerId = randomUUID();
    const journey = await throughGoogle(await setupUrlFor(customerId));
    const other = await finish(journey, 'hub_connect_0000000000000000=someone-elses-browser-nonce').expect(400);
    expect(other.text).toContain('started in another browser');
    expect(await hub.store.listForCustomer(customerId)).toEqual([]);
    await finish(journey).expect(400); // and the attempt is spent
  });

  test('when the connect link is tampered with or expired, then no attempt starts', async () => {
    const url = new URL(await setupUrlFor(randomUUID()));
    const token = url.searchParams.get('token')!;
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: randomUUID() })).toString('base64url')}.${s}`;
    const bad = await client(hub.app).get(`/integrations/google/connect?token=${tampered}`).expect(400);
    expect(bad.text).toContain('not valid');
    expect(bad.headers['set-cookie']).toBeUndefined();
    await client(hub.app).get('/integrations/google/connect').expect(400);

    const expired = connectLinkFor({ customerId: randomUUID(), integration: 'google_calendar' }, { origin: 'setup', now: () => Date.now() - 3_600_000 });
    const gone = await client(hub.app).get(onHub(expired)).expect(410);
    expect(gone.text).toContain('expired');
  });

  test('when the code exchange is refused by Google, then the page says so and nothing is stored', async () => {
    const customerId = randomUUID();
    const journey = await throughGoogle(await setupUrlFor(customerId));
    const url = new URL(journey.callbackUrl);
    url.searchParams.set('code', 'not-a-real-code');
    const res = await client(hub.app)
      .get(url.pathname + url.search)
      .set('Cookie', journey.start.cookie)
      .expect(400);
    expect(res.text).toContain('Google did not accept this sign-in');
    expect(await hub.store.listForCustomer(customerId)).toEqual([]);
  });

  test('when Google fails the code exchange (5xx), then the page says try again, the code was sent once, and nothing is stored', async () => {
    const customerId = randomUUID();
    const journey = await throughGoogle(await setupUrlFor(customerId));
    const fault = await sandbox.control('POST', '/faults', { method: 'POST', path: '/token', status: 503, times: 5 });
    try {
      const res = await finish(journey).expect(502);
      expect(res.text).toContain('Google could not be reached');
      // One attempt only: a code is single-use, and a replayed code makes Google revoke what it issued.
      const faults = (await sandbox.control('GET', '/faults')).body.faults as { id: string; hits: number }[];
      expect(faults.find((f) => f.id === fault.body.id)?.hits).toBe(1);
      expect(res.text).not.toContain(new URL(journey.callbackUrl).searchParams.get('code')!);
    } finally {
      await sandbox.control('DELETE', `/faults/${fault.body.id}`);
    }
    expect(await hub.store.listForCustomer(customerId)).toEqual([]);
  });
});
