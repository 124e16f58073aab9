import { randomUUID } from 'node:crypto';
import { asAdmin } from '../helpers/admin';
import { connectBrowser, onHub } from '../helpers/connect';
import { KEY_2 } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { connectLinkFor, readConnectLink } from '../helpers/links';
import { TEST_CLIENT, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * Connect links as the adversarial review attacked them: a link that travels through agents, transcripts and
 * chats must connect once, never re-point a working connection to someone else's Google account, and cost the
 * Hub a bounded number of rows however often it is opened.
 */

const RETURN_PREFIX = 'https://app.example.com/hub-done';
let sandbox: TestSandbox;
let hub: TestHub;
let ana: string;
let ben: string;
const sandboxEnv = () => ({
  HUB_GOOGLE_SANDBOX_URL: sandbox.url,
  HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
  HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
  HUB_CONNECT_RETURN_URLS: RETURN_PREFIX,
});

beforeAll(async () => {
  sandbox = await startTestSandbox();
  hub = await buildTestHub({ env: sandboxEnv() });
  const run = randomUUID().slice(0, 8);
  [ana, ben] = [`ana-${run}@links.test`, `ben-${run}@links.test`];
  await sandbox.createAccount({ email: ana, time_zone: 'Europe/Lisbon' });
  await sandbox.createAccount({ email: ben, time_zone: 'America/Chicago' });
});
afterAll(async () => {
  sandbox.expectFaithful();
  await sandbox.close();
  await hub.close();
});

const { throughGoogle, finish } = connectBrowser(() => hub);
const consentAs = (account: string) => sandbox.control('PUT', '/consent', { mode: 'auto', account });
const status = async (customerId: string) =>
  (await client(hub.app).get(`/api/internal/integrations/status/${customerId}/`).set('Authorization', serviceAuth()).expect(200)).body.integrations
    .google_calendar;
const setupUrl = async (customerId: string): Promise<string> => (await status(customerId)).setup_url;
const timezone = (customerId: string) =>
  client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send(anExecuteBody({ tool: 'test_calendar_timezone', customer_id: customerId, inputs: {} }));
const connectedEmail = async (customerId: string) => (await hub.store.findExact(customerId, null, 'google_calendar'))?.accountEmail;
const logged = (msg: string) => hub.logs.entries().filter((e) => e.msg === msg);

/** A customer whose calendar is connected to `account` through a setup_url. */
async function connectedTo(account: string): Promise<string> {
  const customerId = randomUUID();
  await consentAs(account);
  await finish(await throughGoogle(await setupUrl(customerId))).expect(200);
  return customerId;
}

describe('a connect link connects once', () => {
  test('when a link has connected an account, then opening it again says it was used and starts no attempt', async () => {
    const customerId = randomUUID();
    const link = await setupUrl(customerId);
    await consentAs(ana);
    await finish(await throughGoogle(link)).expect(200);
    const again = await client(hub.app).get(onHub(link)).expect(410);
    expect(again.text).toContain('This connect link was already used');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  test('when a second attempt of the same link was pending, then it cannot finish after the first connected', async () => {
    const customerId = randomUUID();
    const link = await setupUrl(customerId);
    await consentAs(ana);
    const first = await throughGoogle(link);
    await consentAs(ben);
    const second = await throughGoogle(link);
    await finish(first).expect(200);
    const late = await finish(second).expect(409);
    expect(late.text).toContain('This connect link was already used');
    expect(await connectedEmail(customerId)).toBe(ana);
  });

  test('when the link carries a return_url, then the late attempt is sent back there with hub_connect=link_used', async () => {
    const link = connectLinkFor({ customerId: randomUUID(), integration: 'google_gmail', returnUrl: RETURN_PREFIX });
    await consentAs(ana);
    const [first, second] = [await throughGoogle(link), await throughGoogle(link)];
    const outcome = async (j: typeof first) => new URL((await finish(j).expect(302)).headers.location as string).searchParams.get('hub_connect');
    expect(await outcome(first)).toBe('connected');
    expect(await outcome(second)).toBe('link_used');
  });

  test('when two attempts of one link finish at the same moment, then exactly one connects', async () => {
    const customerId = randomUUID();
    const link = await setupUrl(customerId);
    await consentAs(ana);
    const journeys = [await throughGoogle(link), await throughGoogle(link)];
    const answers = await Promise.all(journeys.map((j) => finish(j)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await connectedEmail(customerId)).toBe(ana);
  });
});

describe('a link never silently re-points a connection to another Google account', () => {
  test('when a setup_url is completed with another account, then nothing changes, the page says which account to choose, and the refusal is logged', async () => {
    const customerId = await connectedTo(ana);
    // A setup_url issued to an agent (say with an INTEGRATION_PERMISSION_DENIED error) that leaked from a chat.
    const link = connectLinkFor({ customerId, integration: 'google_calendar' }, { origin: 'setup' });
    await consentAs(ben);
    const refused = await finish(await throughGoogle(link)).expect(409);
    expect(refused.text).toContain('Google Calendar is connected to a different Google account');
    expect(refused.text).toContain(`It is connected to a•••@links.test, but you signed in as ${ben}. Nothing was changed.`);
    expect(refused.text).not.toContain(ana); // whoever holds a leaked link does not learn the connected address
    expect(await connectedEmail(customerId)).toBe(ana);
    expect((await timezone(customerId).expect(200)).body.result).toEqual({ time_zone: 'Europe/Lisbon' });
    expect(logged('connect refused: the link would re-point the connection to a different Google account').at(-1)).toMatchObject({
      customer_id: customerId,
      connected_account: ana,
      attempted_account: ben,
    });

    // The refusal did not use up the link: the right person can still reconnect with it.
    await consentAs(ana);
    await finish(await throughGoogle(link)).expect(200);
    expect(logged('integration reconnected').at(-1)).toMatchObject({ customer_id: customerId });
  });

  test('when an admin link without replace carries a return_url, then the refusal sends the person back with hub_connect=account_mismatch', async () => {
    const customerId = await connectedTo(ana);
    await consentAs(ben);
    const link = connectLinkFor({ customerId, integration: 'google_calendar', returnUrl: `${RETURN_PREFIX}?tab=2` });
    const back = await finish(await throughGoogle(link)).expect(302);
    expect(Object.fromEntries(new URL(back.headers.location as string).searchParams)).toEqual({
      tab: '2',
      hub_connect: 'account_mismatch',
      integration: 'google_calendar',
    });
    expect(await connectedEmail(customerId)).toBe(ana);
  });

  test('when an admin makes a link with intent "replace", then another account replaces the connection and the change is logged with both accounts', async () => {
    const customerId = await connectedTo(ana);
    const made = await client(hub.app)
      .post('/api/admin/connect-links')
      .set('Authorization', asAdmin())
      .send({ customer_id: customerId, integration: 'google_calendar', intent: 'replace' })
      .expect(201);
    expect(made.body.intent).toBe('replace');
    expect(logged('connect link created').at(-1)).toMatchObject({ customer_id: customerId, intent: 'replace', principal: 'admin' });
    await consentAs(ben);
    const journey = await throughGoogle(made.body.url);
    // Ana's grant could be reused, but a replace link is for another account: Google is asked for a fresh consent.
    expect(new URL(journey.start.location).searchParams.get('prompt')).toBe('consent');
    const done = await finish(journey).expect(200);
    expect(done.text).toContain(`The Hub can now act for ${ben} instead of ${ana}.`);
    expect(await connectedEmail(customerId)).toBe(ben);
    expect((await timezone(customerId).expect(200)).body.result).toEqual({ time_zone: 'America/Chicago' });
    expect(logged('integration account replaced').at(-1)).toMatchObject({ level: 40, customer_id: customerId, previous_account: ana, account: ben });
  });

  test('when the connection expired, then its setup_url reconnects the same account but refuses another', async () => {
    const customerId = await connectedTo(ana);
    await sandbox.control('POST', `/accounts/${ana}/revoke`);
    const expired = await timezone(customerId).expect(401);
    const link = expired.body.error.details.setup_url as string;

    await consentAs(ben);
    await finish(await throughGoogle(link)).expect(409);
    expect(await status(customerId)).toMatchObject({ connected: false, status: 'expired' });

    await consentAs(ana);
    await finish(await throughGoogle(link)).expect(200);
    expect(await status(customerId)).toMatchObject({ connected: true, status: 'connected', email: ana });
  });

  test('when the Hub hands a setup_url to an agent, then it lives HUB_SETUP_URL_TTL_S (15 minutes), shorter than an admin link (1 hour)', async () => {
    const before = Date.now();
    const link = readConnectLink(await setupUrl(randomUUID()))!;
    expect(link).toMatchObject({ origin: 'setup', replace: false });
    expect(link.expiresAt.getTime() - before).toBeGreaterThan(890_000);
    expect(link.expiresAt.getTime() - before).toBeLessThanOrEqual(901_000);
  });
});

describe('opening links costs a bounded number of attempts', () => {
  test('when one link is opened more often than HUB_CONNECT_ATTEMPTS_PER_LINK (10), even all at once, then the extra opens get 429 with Retry-After and make no rows', async () => {
    const link = await setupUrl(randomUUID());
    const answers = await Promise.all(Array.from({ length: 14 }, () => client(hub.app).get(onHub(link))));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(10).fill(302), 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.text).toContain('This connect link was opened too many times');
    expect(refused.headers['retry-after']).toBe('600');
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    await client(hub.app).get(onHub(link)).expect(429);
    const [row] = await hub.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_states WHERE link_id = $1', [readConnectLink(link)!.linkId]);
    expect(row!.n).toBe(10);
  });

  test('when one client address starts more attempts than HUB_CONNECT_ATTEMPTS_PER_ADDRESS across links, then it gets 429 while other addresses go on', async () => {
    const strict = await buildTestHub({ db: hub.testDb.db, env: { ...sandboxEnv(), HUB_TRUST_PROXY: 'true', HUB_CONNECT_ATTEMPTS_PER_ADDRESS: '3' } });
    const open = (from: string) =>
      client(strict.app)
        .get(onHub(connectLinkFor({ customerId: randomUUID(), integration: 'google_gmail' })))
        .set('X-Forwarded-For', from);
    for (let i = 0; i < 3; i++) await open('203.0.113.7').expect(302);
    const refused = await open('203.0.113.7').expect(429);
    expect(refused.text).toContain('Too many sign-ins were started from your network');
    await open('203.0.113.8').expect(302);
  });
});

describe('an encryption key removed while a person is signing in (rotate-keys)', () => {
  test('when the key that sealed a pending attempt is gone, then the callback ends on a page, and links signed with it say they are no longer valid', async () => {
    const customerId = randomUUID();
    const link = await setupUrl(customerId); // signed and sealed under k1
    await consentAs(ana);
    const journey = await throughGoogle(link);
    // The same database, restarted with only the new key (as if k1 had been removed too early).
    const rotated = await buildTestHub({ db: hub.testDb.db, env: { ...sandboxEnv(), HUB_ENCRYPTION_KEYS: `k2:${KEY_2}` } });
    const browser = connectBrowser(() => rotated);
    const done = await browser.finish(journey).expect(400);
    expect(done.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(done.text).toContain('encryption keys were changed while you were signing in.');
    const reopened = await client(rotated.app).get(onHub(link)).expect(410);
    expect(reopened.text).toContain('This connect link is no longer valid');
    expect(await hub.store.findExact(customerId, null, 'google_calendar')).toBeNull();
  });
});
