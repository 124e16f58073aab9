import { ConfidentialClientApplication, CryptoProvider } from '@azure/msal-node';
import { CLIENT_ID, CLIENT_SECRET, type Harness, REDIRECT_URI, graphClient, loopbackNetworkClient, seedPeople, startHarness, toLoopback } from './support';

/**
 * The identity platform as an app meets it: msal-node (its authority the sandbox's, its transport the
 * documented networkClient hook — support.ts says why) for the code exchange and the refresh, and the plain
 * OAuth exchange for each way a grant dies, with the error bodies Microsoft sends.
 */

let h: Harness;
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();
let tenantId: string;
beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  tenantId = (await h.control('GET', '/tenants')).body.tenants[0].id;
});
afterAll(() => h.close());
beforeEach(async () => {
  await h.control('PUT', '/consent', { mode: 'auto', account: 'ana@contoso.example' });
});

const msal = (authorityTenant: string) =>
  new ConfidentialClientApplication({
    auth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, authority: `${h.httpsBase}/${authorityTenant}`, knownAuthorities: [new URL(h.httpsBase).host] },
    system: { networkClient: loopbackNetworkClient(h) },
  });

/** The browser's part: follow the authorize URL (consent answered by the control API), read the redirect. */
async function browse(authorizeUrl: string) {
  const res = await fetch(toLoopback(h, authorizeUrl), { redirect: 'manual', headers: { 'X-Forwarded-Proto': 'https' } });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams;
}

async function plainCode(tenant: string, scope: string, pkce?: { challenge: string; method: string }) {
  const q = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope,
    state: 's1',
    ...(pkce ? { code_challenge: pkce.challenge, code_challenge_method: pkce.method } : {}),
  });
  return browse(`${h.httpsBase}/${tenant}/oauth2/v2.0/authorize?${q}`);
}

async function token(tenant: string, form: Record<string, string>) {
  const res = await fetch(`${h.running.url}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'client-request-id': '2f6a0c4e-1b3d-4e5f-8a9b-0c1d2e3f4a5b' },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, ...form }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function offlineGrant(scope = 'Calendars.ReadWrite Mail.Read offline_access openid') {
  const code = (await plainCode('organizations', scope)).get('code')!;
  const t = await token('organizations', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, scope });
  expect(t.status).toBe(200);
  return t.body;
}

function expectAadError(body: any, error: string, code: number) {
  expect(body).toEqual({
    error,
    error_description: expect.stringMatching(
      new RegExp(`^AADSTS${code}: .+ Trace ID: [0-9a-f-]{36} Correlation ID: [0-9a-f-]{36} Timestamp: \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z$`),
    ),
    error_codes: [code],
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/),
    trace_id: expect.any(String),
    correlation_id: '2f6a0c4e-1b3d-4e5f-8a9b-0c1d2e3f4a5b',
    error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    ...(body.suberror ? { suberror: body.suberror } : {}),
  });
}

test('when msal-node signs a work account in with PKCE and refreshes, then it gets Graph tokens, the refresh token rotates, and Graph accepts them', async () => {
  for (const authority of ['common', 'organizations', tenantId]) {
    const app = msal(authority);
    const { verifier, challenge } = await new CryptoProvider().generatePkceCodes();
    const scopes = ['User.Read', 'Calendars.ReadWrite', 'Mail.Read', 'offline_access'];
    const url = await app.getAuthCodeUrl({ scopes, redirectUri: REDIRECT_URI, state: 'xyz', codeChallenge: challenge, codeChallengeMethod: 'S256' });
    const back = await browse(url);
    expect(back.get('state')).toBe('xyz');
    const result = await app.acquireTokenByCode({ code: back.get('code')!, scopes, redirectUri: REDIRECT_URI, codeVerifier: verifier });
    expect(result.account?.username).toBe('ana@contoso.example');
    expect(result.account?.tenantId).toBe(tenantId);
    expect(result.scopes).toEqual(expect.arrayContaining(['Calendars.ReadWrite', 'Mail.Read']));
    // Access tokens live 60–90 minutes (configurable-token-lifetimes).
    const lifetimeMin = (result.expiresOn!.getTime() - Date.now()) / 60_000;
    expect(lifetimeMin).toBeGreaterThan(59);
    expect(lifetimeMin).toBeLessThanOrEqual(90.1);
    const refreshTokens = () =>
      Object.values(JSON.parse(app.getTokenCache().serialize()).RefreshToken as Record<string, { secret: string }>).map((r) => r.secret);
    const before = refreshTokens();
    expect(before).toHaveLength(1);
    const refreshed = await app.acquireTokenSilent({ account: result.account!, scopes: ['Calendars.ReadWrite'], forceRefresh: true });
    expect(refreshed.accessToken).not.toBe(result.accessToken);
    expect(refreshTokens()).not.toEqual(before); // rotated on use
    const me = await graphClient(h, refreshed.accessToken).api('/me').get();
    expect(me.userPrincipalName).toBe('ana@contoso.example');
  }
});

test('when a public client (no secret) signs in through msal-node, then PKCE alone carries the exchange', async () => {
  const { PublicClientApplication } = await import('@azure/msal-node');
  const publicId = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
  await h.control('POST', '/apps', { client_id: publicId, redirect_uris: ['http://localhost:5005/'], name: 'CLI tool', permissions: ['User.Read'] });
  const app = new PublicClientApplication({
    auth: { clientId: publicId, authority: `${h.httpsBase}/organizations`, knownAuthorities: [new URL(h.httpsBase).host] },
    system: { networkClient: loopbackNetworkClient(h) },
  });
  const { verifier, challenge } = await new CryptoProvider().generatePkceCodes();
  const back = await browse(
    await app.getAuthCodeUrl({ scopes: ['User.Read'], redirectUri: 'http://localhost:5005/', codeChallenge: challenge, codeChallengeMethod: 'S256' }),
  );
  await expect(
    app.acquireTokenByCode({ code: back.get('code')!, scopes: ['User.Read'], redirectUri: 'http://localhost:5005/', codeVerifier: 'x'.repeat(43) }),
  ).rejects.toMatchObject({ errorCode: 'invalid_grant' });
  const again = await browse(
    await app.getAuthCodeUrl({ scopes: ['User.Read'], redirectUri: 'http://localhost:5005/', codeChallenge: challenge, codeChallengeMethod: 'S256' }),
  );
  const result = await app.acquireTokenByCode({
    code: again.get('code')!,
    scopes: ['User.Read'],
    redirectUri: 'http://localhost:5005/',
    codeVerifier: verifier,
  });
  expect((await graphClient(h, result.accessToken).api('/me').get()).userPrincipalName).toBe('ana@contoso.example');
});

test('when a client reads the discovery documents, then the OpenID configuration and instance metadata point at the sandbox', async () => {
  const oidc = await getJson(`${h.running.url}/common/v2.0/.well-known/openid-configuration`);
  expect(oidc.issuer).toBe(`${h.running.url}/{tenantid}/v2.0`);
  expect(oidc.token_endpoint).toBe(`${h.running.url}/common/oauth2/v2.0/token`);
  const tenant = await getJson(`${h.running.url}/${tenantId}/v2.0/.well-known/openid-configuration`);
  expect(tenant.issuer).toBe(`${h.running.url}/${tenantId}/v2.0`);
  const keys = await getJson(tenant.jwks_uri);
  expect(keys.keys[0]).toMatchObject({ kty: 'RSA', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
  const instance = await getJson(`${h.running.url}/common/discovery/instance?api-version=1.1&authorization_endpoint=x`);
  expect(instance.tenant_discovery_endpoint).toBe(`${h.running.url}/common/v2.0/.well-known/openid-configuration`);
  const unknown = await fetch(`${h.running.url}/nosuch.example/v2.0/.well-known/openid-configuration`);
  expect(unknown.status).toBe(400);
  expect(((await unknown.json()) as any).error_codes).toEqual([90002]);
});

test('when a code is replayed, expired, or redeemed with the wrong PKCE verifier, then the token endpoint answers AADSTS54005, 70008 and 501481', async () => {
  const { createHash } = await import('node:crypto');
  const verifier = 'v'.repeat(50);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  let code = (await plainCode('organizations', 'Mail.Read', { challenge, method: 'S256' })).get('code')!;
  const wrong = await token('organizations', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: 'w'.repeat(50) });
  expect(wrong.status).toBe(400);
  expectAadError(wrong.body, 'invalid_grant', 501481);
  expect((await token('organizations', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier })).status).toBe(200);
  const again = await token('organizations', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  expectAadError(again.body, 'invalid_grant', 54005);
  code = (await plainCode('organizations', 'Mail.Read')).get('code')!;
  await h.control('POST', '/clock/advance', { seconds: 601 }); // "expire after about 10 minutes"
  expectAadError((await token('organizations', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI })).body, 'invalid_grant', 70008);
  const badSecret = await fetch(`${h.running.url}/organizations/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'nope', grant_type: 'authorization_code', code: 'x' }),
  });
  expect(badSecret.status).toBe(401);
  expect(((await badSecret.json()) as any).error_codes).toEqual([7000215]);
});

test('when a refresh token sits unused for 90 days, or the password changes, sessions are revoked, the account is disabled or consent withdrawn, then the refresh fails with the matching AADSTS code', async () => {
  const refresh = (rt: string, scope = 'Mail.Read offline_access') => token('organizations', { grant_type: 'refresh_token', refresh_token: rt, scope });
  // Inactivity: 90 days (refresh-tokens#token-lifetime) → AADSTS700082.
  let grant = await offlineGrant();
  const rotated = (await refresh(grant.refresh_token)).body;
  expect(rotated.refresh_token).toBeDefined();
  expect(rotated.refresh_token).not.toBe(grant.refresh_token);
  // Using a refresh token does not revoke it ("you're expected to discard the old refresh token").
  expect((await refresh(grant.refresh_token)).status).toBe(200);
  await h.control('POST', '/clock/advance', { seconds: 90 * 86_400 + 60 });
  const inactive = await refresh(rotated.refresh_token);
  expectAadError(inactive.body, 'invalid_grant', 700082);
  expect(inactive.body.error_description).toContain('was inactive for 90.00:00:00');

  grant = await offlineGrant();
  await h.control('POST', '/accounts/ana@contoso.example/password-change');
  const pw = await refresh(grant.refresh_token);
  expectAadError(pw.body, 'invalid_grant', 50173);
  expect(pw.body.error_description).toContain('changed or reset their password');

  await h.control('POST', '/clock/advance', { seconds: 1 });
  grant = await offlineGrant();
  await h.control('POST', '/accounts/ana@contoso.example/revoke-sessions');
  expectAadError((await refresh(grant.refresh_token)).body, 'invalid_grant', 50173);

  await h.control('POST', '/clock/advance', { seconds: 1 });
  grant = await offlineGrant();
  await h.control('PUT', '/accounts/ana@contoso.example/disabled', { disabled: true });
  expectAadError((await refresh(grant.refresh_token)).body, 'invalid_grant', 50057);
  await h.control('PUT', '/accounts/ana@contoso.example/disabled', { disabled: false });

  grant = await offlineGrant();
  // Asking silently for a scope never consented: consent_required.
  const more = await refresh(grant.refresh_token, 'Mail.Send offline_access');
  expectAadError(more.body, 'invalid_grant', 65001);
  expect(more.body.suberror).toBe('consent_required');
  await h.control('POST', '/accounts/ana@contoso.example/withdraw-consent', { client_id: CLIENT_ID });
  expectAadError((await refresh(grant.refresh_token)).body, 'invalid_grant', 65001);
});

test('when the user grants only part of the scopes, then the token carries only those, and Graph refuses what was not granted', async () => {
  await h.control('PUT', '/consent', { mode: 'auto', account: 'ben@contoso.example', grant: ['Calendars.ReadWrite'] });
  const code = (await plainCode('organizations', 'Calendars.ReadWrite Mail.Read')).get('code')!;
  const t = await token('organizations', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
  expect(t.body.scope.split(' ')).toEqual(['Calendars.ReadWrite']);
  expect(t.body.refresh_token).toBeUndefined(); // no offline_access asked
  const graph = graphClient(h, t.body.access_token);
  expect((await graph.api('/me/events').get()).value).toEqual([]);
  await expect(graph.api('/me/messages').get()).rejects.toMatchObject({ statusCode: 403, code: 'ErrorAccessDenied' });
});

test('when the tenant requires admin consent, then sign-in returns AADSTS90094 until an admin consents, and a declined prompt returns AADSTS65004', async () => {
  await h.control('PUT', `/tenants/${tenantId}/consent`, { user_consent: 'admin' });
  await h.control('PUT', '/consent', { mode: 'auto', account: 'chen@contoso.example' });
  const denied = await plainCode(tenantId, 'Mail.Read');
  expect(denied.get('error')).toBe('access_denied');
  expect(denied.get('error_description')).toMatch(/^AADSTS90094: The grant requires admin permission\./);
  expect(denied.get('state')).toBe('s1');
  await h.control('PUT', `/tenants/${tenantId}/consent`, { admin_consent: { client_id: CLIENT_ID, scopes: ['Mail.Read'] } });
  expect((await plainCode(tenantId, 'Mail.Read')).get('code')).toBeTruthy();
  // User.Read.All always needs an administrator.
  await h.control('PUT', `/tenants/${tenantId}/consent`, { user_consent: 'users' });
  expect((await plainCode(tenantId, 'User.Read.All')).get('error_description')).toMatch(/^AADSTS90094/);
  await h.control('PUT', '/consent', { mode: 'auto', account: 'chen@contoso.example', deny: true });
  expect((await plainCode(tenantId, 'Mail.Read')).get('error_description')).toMatch(/^AADSTS65004/);
});

test('when the authorize request names an unknown client, redirect URI or scope, then the page or the redirect says so with its AADSTS code', async () => {
  const page = await fetch(
    `${h.running.url}/organizations/oauth2/v2.0/authorize?client_id=${CLIENT_ID}&response_type=code&redirect_uri=${encodeURIComponent('http://evil.example/cb')}&scope=Mail.Read`,
    { redirect: 'manual' },
  );
  expect(page.status).toBe(400);
  expect(await page.text()).toContain('AADSTS50011');
  const bad = await plainCode('organizations', 'Mail.Fly');
  expect(bad.get('error')).toBe('invalid_scope');
  expect(bad.get('error_description')).toMatch(/^AADSTS650053/);
  const consumers = await fetch(
    `${h.running.url}/consumers/oauth2/v2.0/authorize?client_id=${CLIENT_ID}&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&scope=Mail.Read`,
    { redirect: 'manual' },
  );
  expect(await consumers.text()).toContain('work or school accounts only');
});

test('when the request log is read, then it holds no token, code or secret', async () => {
  const grant = await offlineGrant();
  await fetch(`${h.running.url}/v1.0/me`, { headers: { authorization: `Bearer ${grant.access_token}` } });
  const log = JSON.stringify((await h.control('GET', '/requests')).body);
  expect(log).toContain('oauth2/v2.0/token');
  for (const secret of [grant.access_token, grant.refresh_token, CLIENT_SECRET, 'Bearer']) expect(log).not.toContain(secret);
});

test('when an access token expires with the clock, then Graph answers 401 InvalidAuthenticationToken in its error shape', async () => {
  const grant = await offlineGrant();
  await h.control('POST', '/clock/advance', { seconds: 91 * 60 });
  const res = await fetch(`${h.running.url}/v1.0/me`, { headers: { authorization: `Bearer ${grant.access_token}`, 'client-request-id': 'abc-123' } });
  expect(res.status).toBe(401);
  const body = await res.json();
  expect(body).toEqual({
    error: {
      code: 'InvalidAuthenticationToken',
      message: 'Lifetime validation failed, the token is expired.',
      innerError: {
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
        'request-id': res.headers.get('request-id'),
        'client-request-id': 'abc-123',
      },
    },
  });
  expect((await fetch(`${h.running.url}/v1.0/me`)).status).toBe(401);
});

test('when consent is given on the page, then the chosen account and the ticked scopes are granted; Cancel is AADSTS65004', async () => {
  await h.control('POST', '/accounts', { upn: 'dora@fabrikam.example', display_name: 'Dora Silva' }); // a tenant with no earlier consents
  await h.control('PUT', '/consent', { mode: 'page' });
  const url = `${h.running.url}/organizations/oauth2/v2.0/authorize?${new URLSearchParams({ client_id: CLIENT_ID, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'Mail.Read Calendars.Read', state: 'p1' })}`;
  const page = await (await fetch(url)).text();
  const ctx = /name=ctx value="([^"]+)"/.exec(page)![1]!;
  const dora = /<option value="([^"]+)"[^>]*>Dora Silva/.exec(page)![1]!;
  const post = (form: Record<string, string>) =>
    fetch(`${h.running.url}/organizations/oauth2/v2.0/authorize/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  const accepted = await post({ ctx, account: dora, scope: 'Calendars.Read', action: 'accept' });
  const back = new URL(accepted.headers.get('location')!).searchParams;
  expect(back.get('state')).toBe('p1');
  const t = await token('organizations', { grant_type: 'authorization_code', code: back.get('code')!, redirect_uri: REDIRECT_URI });
  expect(t.body.scope).toBe('Calendars.Read');
  const again = await (await fetch(url)).text();
  const cancelled = await post({ ctx: /name=ctx value="([^"]+)"/.exec(again)![1]!, account: dora, action: 'cancel' });
  expect(new URL(cancelled.headers.get('location')!).searchParams.get('error_description')).toMatch(/^AADSTS65004/);
});
