import { INTEGRATIONS } from '../../src/integrations/catalog';
import { randomUUID } from 'node:crypto';
import { MS_DEMO_TENANT, MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import type { IntegrationId } from '../../src/core/integrations';
import { asAdmin } from '../helpers/admin';
import { onHub } from '../helpers/connect-journey';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { REDIRECT_URI, connectFlowEnv } from '../helpers/microsoft-oauth';

/**
 * Connecting Outlook as a person would, over HTTP against the test Hub and the Microsoft sandbox: an admin's connect
 * link → the Hub's redirect to Microsoft's sign-in (the sandbox consents as the chosen account) → Microsoft's
 * redirect back to the Hub's callback → the status endpoint; then a forced refresh that rotates the refresh token, a
 * disconnect that says honestly that Microsoft revoked nothing; an organisation that requires an administrator's
 * approval; and a refresh Microsoft refuses (AADSTS50173, password changed).
 */

let world: MicrosoftWorld;
let hub: TestHub;
beforeAll(async () => {
  world = await startMicrosoftWorld();
  hub = await buildTestHub({
    env: connectFlowEnv(world, { HUB_MICROSOFT_TIMEOUT_MS: '5000' }),
  });
});
afterAll(async () => {
  await hub?.close();
  await world?.close();
});
beforeEach(async () => {
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana });
});

const api = () => client(hub.app);

async function connectLink(customerId: string, integration: IntegrationId): Promise<string> {
  const res = await api().post('/api/admin/connect-links').set('Authorization', asAdmin()).send({ customer_id: customerId, integration }).expect(201);
  return res.body.url as string;
}

/** The browser: opens the link at the Hub, follows the Hub to Microsoft, and Microsoft back to the Hub's callback. */
async function signInThroughMicrosoft(link: string) {
  const start = await api().get(onHub(link)).expect(302);
  const cookie = ([] as string[]).concat(start.headers['set-cookie'] ?? [])[0]!;
  const authorize = new URL(start.headers.location as string);
  const atMicrosoft = await fetch(authorize, { redirect: 'manual' });
  expect(atMicrosoft.status).toBe(302);
  const back = new URL(atMicrosoft.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  const done = await api()
    .get(back.pathname + back.search)
    .set('Cookie', cookie.split(';')[0]!);
  return { cookie, authorize, back, done };
}

const status = async (customerId: string) =>
  (await api().get(`/api/internal/integrations/status/${customerId}/`).set('Authorization', serviceAuth()).expect(200)).body.integrations;

const defaults = async (customerId: string) =>
  await hub.testDb.db.query<{ capability: string; provider: string }>(
    'SELECT capability, provider FROM capability_defaults WHERE customer_id = $1 ORDER BY capability',
    [customerId],
  );

const refreshNow = async (customerId: string, integration: IntegrationId) => {
  const spec = INTEGRATIONS[integration];
  const connected = await hub.connections.connect(
    { name: 'test_refresh', capability: spec.capability, permissions: [] },
    { customerId, userId: null },
    spec.provider,
  );
  if (!connected.ok) return connected;
  return connected.value.refresh(AbortSignal.timeout(10_000), undefined);
};

test('when a person connects Outlook Calendar through an admin link, then the status shows it connected; a forced refresh rotates the token; a disconnect deletes it and says Microsoft revoked nothing', async () => {
  const customerId = randomUUID();
  const link = await connectLink(customerId, 'outlook_calendar');
  expect(new URL(link).pathname).toBe('/integrations/microsoft/connect');

  const { cookie, authorize, done } = await signInThroughMicrosoft(link);
  expect(cookie).toContain('Path=/integrations/microsoft');
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${world.running.url}/organizations/oauth2/v2.0/authorize`);
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
    client_id: MS_SANDBOX_DEFAULT_APP.clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge_method: 'S256',
    prompt: 'consent',
    scope: 'Calendars.ReadWrite MailboxSettings.Read User.Read openid profile email offline_access',
  });
  expect(done.status).toBe(200);
  expect(done.text).toContain('Outlook Calendar is connected');
  expect(done.text).toContain(DEMO.ana);

  const [row] = await hub.store.listForCustomer(customerId);
  expect(row).toMatchObject({ integration: 'outlook_calendar', accountEmail: DEMO.ana, status: 'connected' });
  expect(row!.accountId).toMatch(new RegExp(`^${MS_DEMO_TENANT.id}/[0-9a-f-]{36}$`));
  expect(await defaults(customerId)).toEqual([{ capability: 'calendar', provider: 'microsoft' }]);

  const seen = (await status(customerId)).outlook_calendar;
  expect(seen).toMatchObject({ connected: true, status: 'connected', email: DEMO.ana, grant: { health: 'ok', reason: null } });
  expect(seen.scopes).toEqual(expect.arrayContaining(['Calendars.ReadWrite', 'MailboxSettings.Read', 'User.Read']));
  // Microsoft's 90 days without a refresh, from now.
  expect(Date.parse(seen.grant.expires_at) - Date.now()).toBeGreaterThan(89 * 86_400_000);

  const before = hub.store.openTokens(row!);
  const refreshed = await refreshNow(customerId, 'outlook_calendar');
  expect(refreshed.ok).toBe(true);
  const after = (await hub.store.getById(row!.id))!;
  const rotated = hub.store.openTokens(after);
  expect(rotated.refreshToken).not.toBeNull();
  expect(rotated.refreshToken).not.toBe(before.refreshToken);
  expect(rotated.accessToken).not.toBe(before.accessToken);
  expect(after.tokenVersion).toBe(row!.tokenVersion + 1);

  const gone = await api().delete(`/api/admin/customers/${customerId}/integrations/outlook_calendar`).set('Authorization', asAdmin()).expect(200);
  expect(gone.body).toEqual({
    customer_id: customerId,
    user_id: null,
    integration: 'outlook_calendar',
    disconnected: true,
    revoked_at_vendor: false,
    revoked_at_google: false,
    revoke_skipped: 'unsupported',
  });
  expect(await hub.store.listForCustomer(customerId)).toEqual([]);
  expect(await defaults(customerId)).toEqual([]);
  expect((await status(customerId)).outlook_calendar).toMatchObject({ connected: false, status: 'not_connected' });
  expect(hub.logs.text()).not.toContain(rotated.refreshToken!);
});

test('when the same person reconnects under a new address, then it is the same connection; another person is refused', async () => {
  const customerId = randomUUID();
  expect((await signInThroughMicrosoft(await connectLink(customerId, 'outlook_mail'))).done.status).toBe(200);
  const [first] = await hub.store.listForCustomer(customerId);
  // An administrator renames the account: the address changes, the object id does not.
  await hub.testDb.db.query('UPDATE integration_credentials SET account_email = $2 WHERE id = $1', [first!.id, 'ana.old@northwind.example']);
  const again = await signInThroughMicrosoft(await connectLink(customerId, 'outlook_mail'));
  expect(again.done.status).toBe(200);
  expect((await hub.store.getById(first!.id))!.accountEmail).toBe(DEMO.ana);

  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ben });
  const other = await signInThroughMicrosoft(await connectLink(customerId, 'outlook_mail'));
  expect(other.done.status).toBe(409);
  expect(other.done.text).toContain('connected to a different Microsoft account');
  expect((await hub.store.getById(first!.id))!.accountEmail).toBe(DEMO.ana);
});

test("when the person's organisation requires an administrator's approval, then the callback's page leads to the admin-consent link, and after the approval the person connects", async () => {
  const customerId = randomUUID();
  await world.control('PUT', `/tenants/${MS_DEMO_TENANT.id}/consent`, { user_consent: 'admin' });
  try {
    await world.control('POST', '/accounts', { upn: 'it.admin@northwind.example', display_name: 'Northwind IT', admin: true });
    await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.chen });
    const refused = await signInThroughMicrosoft(await connectLink(customerId, 'outlook_mail'));
    expect(refused.back.searchParams.get('error_description')).toContain('AADSTS90094');
    expect(refused.done.status).toBe(403);
    expect(refused.done.text).toContain('An administrator must approve the Hub first');
    const consentHref = /(http:\/\/127\.0\.0\.1:\d+\/organizations\/v2\.0\/adminconsent\?[^<"\s]+)/.exec(refused.done.text)?.[1];
    expect(consentHref).toBeDefined();
    const consentUrl = new URL(consentHref!.replaceAll('&amp;', '&'));
    expect(consentUrl.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(await hub.store.listForCustomer(customerId)).toEqual([]);

    // The administrator approves; Microsoft returns to the Hub's callback, which says the person can go on.
    await world.control('PUT', '/consent', { mode: 'auto', account: 'it.admin@northwind.example' });
    const approved = await fetch(consentUrl, { redirect: 'manual' });
    const back = new URL(approved.headers.get('location')!);
    expect(back.searchParams.get('admin_consent')).toBe('True');
    const page = await api()
      .get(back.pathname + back.search)
      .expect(200);
    expect(page.text).toContain('Your organisation has approved the Hub');

    await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.chen });
    const connected = await signInThroughMicrosoft(await connectLink(customerId, 'outlook_mail'));
    expect(connected.done.status).toBe(200);
    expect((await status(customerId)).outlook_mail).toMatchObject({ connected: true, email: DEMO.chen });
  } finally {
    await world.control('PUT', `/tenants/${MS_DEMO_TENANT.id}/consent`, { user_consent: 'users' });
  }
});

test('when Microsoft refuses the refresh because the password changed (AADSTS50173), then the call gets INTEGRATION_EXPIRED with that reason and the status shows the grant expired', async () => {
  const customerId = randomUUID();
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ben });
  expect((await signInThroughMicrosoft(await connectLink(customerId, 'outlook_calendar'))).done.status).toBe(200);
  await world.control('POST', `/accounts/${DEMO.ben}/password-change`);
  await world.control('POST', '/clock/advance', { seconds: 1 });

  const refused = await refreshNow(customerId, 'outlook_calendar');
  expect(refused.ok).toBe(false);
  if (refused.ok) return;
  expect(refused.error).toMatchObject({ code: 'INTEGRATION_EXPIRED', details: { reason: 'password_changed', integration: 'outlook_calendar' } });
  expect(refused.error.message).toContain('Outlook Calendar access has ended');
  expect((await status(customerId)).outlook_calendar).toMatchObject({ status: 'expired', grant: { health: 'expired', reason: 'password_changed' } });
  // The audit trail (and the webhooks that follow it) carry the Outlook integration and Microsoft's reason.
  const events = await hub.testDb.db.query<{ event: string; integration: string; details: Record<string, unknown> }>(
    'SELECT event, integration, details FROM audit_connection_events WHERE customer_id = $1 ORDER BY id',
    [customerId],
  );
  expect(events.map((e) => [e.event, e.integration])).toEqual([
    ['connected', 'outlook_calendar'],
    ['expired', 'outlook_calendar'],
  ]);
  expect(events[1]!.details).toMatchObject({ reason: 'password_changed', cause: 'password_changed' });
});

test('when the Hub has no Microsoft app registration, then an Outlook link opens a page saying what to set, and nothing is begun', async () => {
  const bare = await buildTestHub();
  try {
    const customerId = randomUUID();
    const res = await client(bare.app)
      .post('/api/admin/connect-links')
      .set('Authorization', asAdmin())
      .send({ customer_id: customerId, integration: 'outlook_mail' })
      .expect(201);
    const page = await client(bare.app)
      .get(onHub(res.body.url as string))
      .expect(503);
    expect(page.text).toContain('Microsoft is not configured on this Hub');
    expect(page.text).toContain('HUB_MICROSOFT_CLIENT_ID');
    expect(await bare.testDb.db.query('SELECT 1 FROM oauth_states WHERE customer_id = $1', [customerId])).toEqual([]);
  } finally {
    await bare.close();
  }
});
