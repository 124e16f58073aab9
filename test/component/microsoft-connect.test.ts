import { MS_DEMO_TENANT, MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import { OUTLOOK_CALENDAR, OUTLOOK_MAIL } from '../../src/providers/microsoft/catalog';
import { captureLogs } from '../helpers/logs';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { REDIRECT_URI, browse, connect, hubOAuth, pkce, sandboxConfig, signIn } from '../helpers/microsoft-oauth';

/**
 * Connecting a Microsoft account through the Hub's connecting port, against the Microsoft sandbox: the authorize
 * URL, the code exchange with PKCE and the verified identity, what a refused code means, and an organisation that
 * requires its administrator's approval first.
 */

let world: MicrosoftWorld;
const logs = captureLogs('debug');
const secrets: string[] = [MS_SANDBOX_DEFAULT_APP.clientSecret];
beforeAll(async () => {
  world = await startMicrosoftWorld();
});
afterAll(() => world.close());
beforeEach(async () => {
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana });
});
afterAll(() => {
  // Nothing the flows handled — tokens, codes, verifiers, the client secret — reached a log line.
  const text = logs.text();
  expect(logs.lines.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(text).not.toContain(secret);
});

const portFor = (env: Record<string, string> = {}) => hubOAuth(sandboxConfig(world, env), logs).oauth;

test('when the Hub builds the authorize URL, then every parameter is the one the v2.0 endpoint documents', () => {
  const oauth = portFor();
  const url = new URL(
    oauth.authorizeUrl({ scopes: OUTLOOK_MAIL.scopes, state: 'st-1', codeChallenge: 'c'.repeat(43), freshConsent: false, loginHint: 'ana@northwind.example' }),
  );
  expect(`${url.origin}${url.pathname}`).toBe(`${world.running.url}/organizations/oauth2/v2.0/authorize`);
  expect(Object.fromEntries(url.searchParams)).toEqual({
    client_id: MS_SANDBOX_DEFAULT_APP.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    response_mode: 'query',
    scope: 'Mail.ReadWrite Mail.Send User.Read openid profile email offline_access',
    state: 'st-1',
    code_challenge: 'c'.repeat(43),
    code_challenge_method: 'S256',
    prompt: 'select_account',
    login_hint: 'ana@northwind.example',
  });
  const fresh = new URL(oauth.authorizeUrl({ scopes: OUTLOOK_CALENDAR.scopes, state: 's', codeChallenge: 'x', freshConsent: true }));
  expect(fresh.searchParams.get('prompt')).toBe('consent');
  expect(fresh.searchParams.has('login_hint')).toBe(false);
  expect(
    new URL(portFor({ HUB_MICROSOFT_TENANT: MS_DEMO_TENANT.id }).authorizeUrl({ scopes: [], state: 's', codeChallenge: 'x', freshConsent: true })).pathname,
  ).toBe(`/${MS_DEMO_TENANT.id}/oauth2/v2.0/authorize`);
});

test('when a person signs in as a browser would and the Hub redeems the code, then it holds tokens, the granted scopes and the verified address', async () => {
  const oauth = portFor();
  const grant = await connect(oauth, { scopes: OUTLOOK_CALENDAR.scopes });
  secrets.push(grant.accessToken, grant.refreshToken!);
  expect(grant).toEqual({
    accessToken: expect.any(String),
    refreshToken: expect.stringMatching(/^1\.A/),
    expiresAt: expect.any(Date),
    scopes: expect.arrayContaining(['Calendars.ReadWrite', 'MailboxSettings.Read', 'User.Read']),
    email: DEMO.ana,
    refreshTokenExpiresAt: null,
    accountId: expect.stringMatching(new RegExp(`^${MS_DEMO_TENANT.id}/[0-9a-f-]{36}$`)),
  });
  // Access tokens live 60–90 minutes (configurable-token-lifetimes).
  const minutes = (grant.expiresAt!.getTime() - Date.now()) / 60_000;
  expect(minutes).toBeGreaterThan(59);
  expect(minutes).toBeLessThanOrEqual(90.1);
  expect(grant.scopes.some((s) => ['openid', 'profile', 'email', 'offline_access'].includes(s))).toBe(false);
  // The token works against Graph for the account it names.
  const me = await fetch(`${world.graphUrl}/me`, { headers: { authorization: `Bearer ${grant.accessToken}` } });
  expect(((await me.json()) as { userPrincipalName: string }).userPrincipalName).toBe(DEMO.ana);
});

test('when the person grants only part of the scopes, then the grant lists only those', async () => {
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ben, grant: ['Mail.ReadWrite', 'User.Read'] });
  const grant = await connect(portFor(), { scopes: OUTLOOK_MAIL.scopes });
  secrets.push(grant.accessToken, grant.refreshToken!);
  expect(grant.email).toBe(DEMO.ben);
  expect(grant.scopes).toContain('Mail.ReadWrite');
  expect(grant.scopes).not.toContain('Mail.Send');
});

test('when the code is redeemed with another verifier, twice, or after ten minutes, then the exchange is rejected', async () => {
  const oauth = portFor();
  const wrong = await signIn(oauth);
  secrets.push(wrong.code!, wrong.verifier);
  expect(await oauth.exchange(wrong.code!, pkce().verifier)).toEqual({ ok: false, failure: 'rejected' }); // AADSTS501481

  const once = await signIn(oauth);
  secrets.push(once.code!, once.verifier);
  const first = await oauth.exchange(once.code!, once.verifier);
  expect(first.ok).toBe(true);
  if (first.ok) secrets.push(first.tokens.accessToken, first.tokens.refreshToken!);
  expect(await oauth.exchange(once.code!, once.verifier)).toEqual({ ok: false, failure: 'rejected' }); // AADSTS54005

  // Ten minutes on a sandbox of its own: its clock then runs ahead of this one's id_tokens.
  const other = await startMicrosoftWorld();
  try {
    const lateOauth = hubOAuth(sandboxConfig(other), logs).oauth;
    await other.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana });
    const late = await signIn(lateOauth);
    secrets.push(late.code!, late.verifier);
    await other.control('POST', '/clock/advance', { seconds: 601 }); // "expire after about 10 minutes"
    expect(await lateOauth.exchange(late.code!, late.verifier)).toEqual({ ok: false, failure: 'rejected' }); // AADSTS70008
  } finally {
    await other.close();
  }
  const said = logs.entries().filter((e) => e.msg === 'Microsoft refused the code exchange');
  expect(said.map((e) => e.microsoft)).toEqual(
    expect.arrayContaining(['AADSTS501481 invalid_grant', 'AADSTS54005 invalid_grant', 'AADSTS70008 invalid_grant (bad_token)']),
  );
});

test("when the Hub's secret is wrong or its client unknown, then the exchange is misconfigured; without a client it is not configured at all", async () => {
  const good = await signIn(portFor());
  secrets.push(good.code!, 'not-the-secret');
  expect(await portFor({ HUB_MICROSOFT_CLIENT_SECRET: 'not-the-secret' }).exchange(good.code!, good.verifier)).toEqual({ ok: false, failure: 'misconfigured' });
  expect(await portFor({ HUB_MICROSOFT_CLIENT_ID: '11111111-2222-4333-8444-555555555555' }).exchange(good.code!, good.verifier)).toEqual({
    ok: false,
    failure: 'misconfigured',
  });
  const unconfigured = hubOAuth(sandboxConfig(world, { HUB_MICROSOFT_CLIENT_ID: '', HUB_MICROSOFT_CLIENT_SECRET: '' }), logs).oauth;
  expect(unconfigured.configured).toBe(false);
  expect(portFor().configured).toBe(true);
  expect(await unconfigured.exchange('x', 'y')).toEqual({ ok: false, failure: 'misconfigured' });
});

test("when the person's organisation requires an administrator's consent, then the callback says so with the admin-consent URL, and once the administrator approves there the person connects", async () => {
  const oauth = portFor();
  await world.control('PUT', `/tenants/${MS_DEMO_TENANT.id}/consent`, { user_consent: 'admin' });
  await world.control('POST', '/accounts', { upn: 'it@northwind.example', display_name: 'Northwind IT', admin: true });
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.chen });
  // Chen never consented before, so the tenant's rule applies (AADSTS90094 on the redirect).
  const refused = await signIn(oauth, { scopes: OUTLOOK_MAIL.scopes });
  expect(refused.code).toBeNull();
  const said = oauth.callbackError(Object.fromEntries(refused.query), { state: 'admin-1' });
  expect(said).toEqual({ kind: 'admin_consent_required', next: 'admin_consent', adminConsentUrl: expect.any(String), logged: 'AADSTS90094 access_denied' });
  const consentUrl = new URL(said!.adminConsentUrl!);
  expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe(`${world.running.url}/organizations/v2.0/adminconsent`);
  expect(Object.fromEntries(consentUrl.searchParams)).toEqual({
    client_id: MS_SANDBOX_DEFAULT_APP.clientId,
    scope:
      [...new Set([...OUTLOOK_CALENDAR.scopes, ...OUTLOOK_MAIL.scopes])].map((s) => `https://graph.microsoft.com/${s}`).join(' ') +
      ' openid profile email offline_access',
    redirect_uri: REDIRECT_URI,
    state: 'admin-1',
  });

  // The administrator follows it; Microsoft comes back to the Hub's callback.
  await world.control('PUT', '/consent', { mode: 'auto', account: 'it@northwind.example' });
  const back = await browse(consentUrl.toString());
  expect(Object.fromEntries(back)).toMatchObject({ admin_consent: 'True', tenant: MS_DEMO_TENANT.id, state: 'admin-1' });
  expect(oauth.callbackError(Object.fromEntries(back))).toEqual({
    kind: 'admin_consented',
    next: 'restart_connect',
    tenantId: MS_DEMO_TENANT.id,
    logged: 'admin_consent=True',
  });

  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.chen });
  const grant = await connect(oauth, { scopes: OUTLOOK_MAIL.scopes });
  secrets.push(grant.accessToken, grant.refreshToken!);
  expect(grant.email).toBe(DEMO.chen);
  expect(grant.scopes).toEqual(expect.arrayContaining(['Mail.ReadWrite', 'Mail.Send', 'User.Read']));
  await world.control('PUT', `/tenants/${MS_DEMO_TENANT.id}/consent`, { user_consent: 'users' });
});

test('when the person declines, or the redirect carries a code, then the callback says declined, or nothing', async () => {
  const oauth = portFor();
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana, deny: true });
  const declined = await signIn(oauth);
  expect(oauth.callbackError(Object.fromEntries(declined.query))).toEqual({ kind: 'denied', next: 'start_over', logged: 'AADSTS65004 access_denied' });
  expect(oauth.callbackError({ code: 'abc', state: 's' })).toBeNull();
});

test('when the Hub is asked to revoke a grant, then it answers unsupported and sends nothing', async () => {
  const before = (await world.control('GET', '/requests')).body.requests.length;
  expect(await portFor().revoke('any-token', AbortSignal.timeout(1000))).toBe('unsupported');
  expect((await world.control('GET', '/requests')).body.requests.length).toBe(before);
});
