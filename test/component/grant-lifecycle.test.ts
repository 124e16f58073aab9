import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IntegrationId } from '../../src/core/integrations';
import { adminToken } from '../helpers/admin';
import { backToHub, connectThroughGoogle, openConnectLink } from '../helpers/connect-journey';
import { connectToSandbox, runTool, sandboxHubEnv } from '../helpers/connected';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { aSetupUrl, connectLinkFor } from '../helpers/links';
import { TEST_CLIENT, useTestSandbox } from '../helpers/sandbox';

/**
 * How connections end, through the Hub against a sandbox that ends refresh tokens as Google does (Testing
 * mode, time-based access, Workspace re-authentication, an admin's policy, the per-account token limit): what
 * the agent is told, what the status endpoint and the admin list show before and after, and how reconnecting
 * avoids minting a refresh token each time.
 */

const ANA = 'ana@acme.example';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const sb = useTestSandbox();
let hub: TestHub;

beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());
beforeEach(async () => {
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
  await sb.control('PUT', '/consent', { mode: 'auto', account: ANA });
});

/** A connect link as an admin makes one: valid whatever the connection's state. */
const linkFor = (customerId: string, integration: IntegrationId = 'google_calendar') => connectLinkFor({ customerId, integration });
const calendarStatus = async (customerId: string, on: TestHub = hub) =>
  (await client(on.app).get(`/api/internal/integrations/status/${customerId}/`).set('Authorization', serviceAuth()).expect(200)).body.integrations
    .google_calendar;
const adminView = async (customerId: string, on: TestHub = hub) => {
  const res = await client(on.app)
    .get(`/api/admin/customers/${customerId}/integrations`)
    .set('Authorization', `Bearer ${adminToken({ role: 'hub_admin' })}`)
    .expect(200);
  return res.body.integrations[0];
};
const timezone = (customerId: string, on: TestHub = hub) => runTool(on, { customerId, userId: null }, 'test_calendar_timezone', {});
/** Makes Google refuse the access tokens it issued, so the next call must refresh. */
const expireAccessTokens = () => sb.control('POST', `/accounts/${ANA}/expire-tokens`);
const liveRefreshTokens = () => [...sb.world.oauth.refreshTokens.values()].filter((r) => sb.world.oauth.grants.get(r.grantId)?.email === ANA).length;
const near = (iso: string, expected: number, slackMs = 60_000) => Math.abs(Date.parse(iso) - expected) < slackMs;

test('when connected, then expires_at is still the access token’s and grant.expires_at the grant’s (180 days after last use)', async () => {
  const customerId = randomUUID();
  await connectThroughGoogle(hub, linkFor(customerId));
  const status = await calendarStatus(customerId);
  expect(near(status.expires_at, Date.now() + HOUR_MS)).toBe(true);
  expect(status.grant).toMatchObject({ health: 'ok', reason: null });
  expect(near(status.grant.expires_at, Date.now() + 180 * DAY_MS)).toBe(true);
  expect(status.setup_url).toBeUndefined();
});

test('when the person granted time-based access, then the grant shows expiring with Google’s end, then expired; the call says why', async () => {
  await sb.control('PUT', `/accounts/${ANA}/oauth`, { time_limited_access_s: 2 });
  const customerId = randomUUID();
  await connectThroughGoogle(hub, linkFor(customerId));
  const [row] = await hub.store.listForCustomer(customerId);
  expect(near(row!.refreshTokenExpiresAt!.toISOString(), Date.now() + 2000, 5000)).toBe(true);
  const before = await calendarStatus(customerId);
  expect(before).toMatchObject({
    connected: true,
    status: 'connected',
    grant: { health: 'expiring', reason: 'time_limited_access', expires_at: row!.refreshTokenExpiresAt!.toISOString() },
    setup_url: aSetupUrl(customerId, 'google_calendar'),
  });
  expect((await adminView(customerId)).grant).toEqual(before.grant);

  // Google reports whole seconds left (rounded down), so its real end can be up to a second after the Hub's
  // estimate: wait for the later of the two before expecting the refresh to be refused.
  const googleEnd = Math.max(
    ...[...sb.world.oauth.refreshTokens.values()].filter((r) => sb.world.oauth.grants.get(r.grantId)?.email === ANA).map((r) => r.expiresAt ?? 0),
  );
  await sleep(Math.max(0, row!.refreshTokenExpiresAt!.getTime() - Date.now(), googleEnd - sb.world.clock.now()) + 50);
  expect((await calendarStatus(customerId)).grant).toMatchObject({ health: 'expired', reason: 'time_limited_access' });
  await expireAccessTokens();
  const res = await timezone(customerId).expect(401);
  expect(res.body.error).toMatchObject({
    code: 'INTEGRATION_EXPIRED',
    details: { reason: 'time_limited_access', setup_url: aSetupUrl(customerId, 'google_calendar') },
  });
  expect(await calendarStatus(customerId)).toMatchObject({ connected: false, status: 'expired', grant: { health: 'expired', reason: 'time_limited_access' } });
});

describe('an app in Testing publishing status', () => {
  let testing: TestHub;
  beforeAll(async () => {
    testing = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_GOOGLE_PUBLISHING_STATUS: 'testing' }) });
  });
  afterAll(() => testing.close());

  test('when 7 days pass since consent, then the grant is expiring in its last 72 h, and Google’s refusal is reported as testing_mode', async () => {
    await sb.control('PUT', '/oauth', { publishing_status: 'testing' });
    const customerId = randomUUID();
    const first = await connectThroughGoogle(testing, linkFor(customerId));
    expect(first.consentUrl.searchParams.get('prompt')).toBe('consent');
    const fresh = await calendarStatus(customerId, testing);
    expect(fresh.grant.health).toBe('ok');
    expect(near(fresh.grant.expires_at, Date.now() + 7 * DAY_MS)).toBe(true);
    // Reconnecting in Testing mode always asks a fresh consent: only a new grant gets another 7 days.
    expect((await connectThroughGoogle(testing, linkFor(customerId))).consentUrl.searchParams.get('prompt')).toBe('consent');

    await testing.testDb.db.query(`UPDATE integration_credentials SET granted_at = now() - interval '5 days' WHERE customer_id = $1`, [customerId]);
    expect(await calendarStatus(customerId, testing)).toMatchObject({
      connected: true,
      grant: { health: 'expiring', reason: 'testing_mode' },
      setup_url: aSetupUrl(customerId, 'google_calendar'),
    });

    await testing.testDb.db.query(`UPDATE integration_credentials SET granted_at = now() - interval '7 days' WHERE customer_id = $1`, [customerId]);
    await sb.control('POST', '/clock', { advance_s: 7 * 86_400 });
    const res = await timezone(customerId, testing).expect(401);
    expect(res.body.error).toMatchObject({ code: 'INTEGRATION_EXPIRED', details: { reason: 'testing_mode' } });
    expect(res.body.error.message).toContain('"Testing" publishing status');
    expect((await calendarStatus(customerId, testing)).grant).toMatchObject({ health: 'expired', reason: 'testing_mode' });
  });
});

test('when the Workspace requires re-authentication, then INTEGRATION_EXPIRED says so, and reconnecting asks a fresh consent that works', async () => {
  // A session length of 1 s, on the real clock (moving the sandbox clock would also make its id_tokens too new).
  await sb.control('PUT', `/accounts/${ANA}/oauth`, { reauth_after_s: 1 });
  const { customerId } = await connectToSandbox(hub, sb, { email: ANA, integration: 'google_calendar' });
  await sleep(1000);
  await expireAccessTokens();
  const res = await timezone(customerId).expect(401);
  expect(res.body.error).toMatchObject({
    code: 'INTEGRATION_EXPIRED',
    details: { reason: 'reauth_required', integration: 'google_calendar', setup_url: aSetupUrl(customerId, 'google_calendar') },
  });
  const again = await timezone(customerId).expect(401); // from the stored row, without asking Google
  expect(again.body.error.details.reason).toBe('reauth_required');
  expect(again.body.metadata.api_calls).toBe(0);
  expect((await adminView(customerId)).grant).toMatchObject({ health: 'expired', reason: 'reauth_required' });

  await sb.control('PUT', `/accounts/${ANA}/oauth`, { reauth_after_s: 3600 }); // the session the person signs in to now lasts
  const journey = await connectThroughGoogle(hub, (await calendarStatus(customerId)).setup_url);
  expect(journey.consentUrl.searchParams.get('prompt')).toBe('consent');
  await timezone(customerId).expect(200);
});

test('when the customer’s Workspace admin blocks the app, then the connection is marked blocked by their admin — not the Hub’s client — and consent stops at Google', async () => {
  const { customerId } = await connectToSandbox(hub, sb, { email: ANA, integration: 'google_calendar' });
  await sb.control('PUT', `/accounts/${ANA}/oauth`, { admin_blocked: true });
  await expireAccessTokens();
  const res = await timezone(customerId).expect(401);
  expect(res.body.error).toMatchObject({
    code: 'INTEGRATION_EXPIRED',
    retryable: false,
    details: { reason: 'admin_policy_enforced', setup_url: aSetupUrl(customerId, 'google_calendar') },
  });
  expect(res.body.error.message).toContain('Workspace administrator');
  expect(hub.logs.entries().some((e) => String(e.msg).includes('OAuth client'))).toBe(false);
  expect(await adminView(customerId)).toMatchObject({
    status: 'expired',
    grant: { health: 'expired', reason: 'admin_policy_enforced' },
    last_error: expect.stringMatching(/^admin_policy_enforced/),
  });

  const journey = await openConnectLink(hub, (await calendarStatus(customerId)).setup_url);
  expect(journey.atGoogle.status).toBe(400);
  expect(await journey.atGoogle.text()).toContain('admin_policy_enforced');
});

describe('reconnecting and Google’s limit of refresh tokens per account and client', () => {
  test('when the same account reconnects, then no refresh token is minted; when other connections mint past the limit, then the oldest connection ends', async () => {
    await sb.control('PUT', '/oauth', { refresh_token_limit: 2 });
    const x = randomUUID();
    const first = await connectThroughGoogle(hub, linkFor(x));
    expect(first.consentUrl.searchParams.get('prompt')).toBe('consent');
    expect(liveRefreshTokens()).toBe(1);
    for (let i = 0; i < 3; i++) {
      const again = await connectThroughGoogle(hub, linkFor(x));
      expect(Object.fromEntries(again.consentUrl.searchParams)).toMatchObject({ login_hint: ANA, access_type: 'offline' });
      expect(again.consentUrl.searchParams.has('prompt')).toBe(false);
    }
    expect(liveRefreshTokens()).toBe(1); // three reconnects, no token toward the limit
    await timezone(x).expect(200);

    // Two other customers connect the same account, each minting a token: the third retires the first, silently.
    const [y, z] = [randomUUID(), randomUUID()];
    await connectThroughGoogle(hub, linkFor(y));
    await connectThroughGoogle(hub, linkFor(z));
    expect(liveRefreshTokens()).toBe(2);
    await expireAccessTokens();
    expect((await timezone(x).expect(401)).body.error.details.reason).toBe('revoked');
    await timezone(y).expect(200);
    expect((await calendarStatus(x)).grant).toMatchObject({ health: 'expired', reason: 'revoked' });
  });

  test('when the stored grant died silently and the same account reconnects, then the Hub finds out, and the next attempt asks a fresh consent', async () => {
    await sb.control('PUT', '/oauth', { refresh_token_limit: 1 });
    const x = randomUUID();
    await connectThroughGoogle(hub, linkFor(x));
    await sb.control('POST', '/tokens', {
      email: ANA,
      scopes: ['https://www.googleapis.com/auth/calendar.readonly'],
      client_id: TEST_CLIENT.clientId,
      offline: true,
    }); // retires x's token
    expect((await calendarStatus(x)).connected).toBe(true); // nobody has told the Hub yet

    const reuse = await openConnectLink(hub, linkFor(x));
    expect(reuse.consentUrl.searchParams.has('prompt')).toBe(false);
    const page = await backToHub(hub, reuse).expect(502);
    expect(page.text).toContain('Google did not grant lasting access');
    expect((await calendarStatus(x)).grant).toMatchObject({ health: 'expired', reason: 'revoked' });

    const fresh = await connectThroughGoogle(hub, linkFor(x));
    expect(fresh.consentUrl.searchParams.get('prompt')).toBe('consent');
    await timezone(x).expect(200);
  });
});
