import { CodeChallengeMethod, type OAuth2Client } from 'google-auth-library';
import { SCOPES, TEST_CLIENT, useTestSandbox } from '../helpers/sandbox';

/** The sandbox's OAuth 2.0 endpoints, driven through google-auth-library exactly as the Hub drives Google's. */

const ANA = 'ana@acme.example';
const BEN = 'ben@acme.example';
const sb = useTestSandbox();

beforeEach(async () => {
  await sb.createAccount({ email: ANA, name: 'Ana García', time_zone: 'Europe/Madrid' });
  await sb.createAccount({ email: BEN, time_zone: 'America/New_York' });
});

const client = () => sb.google.oauth2({ redirectUri: TEST_CLIENT.redirectUri });

/** The refresh_token grant, raw (google-auth-library keeps its refresh call protected). */
async function refresh(refreshToken: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sb.url}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: TEST_CLIENT.clientId,
      client_secret: TEST_CLIENT.clientSecret,
    }),
  });
  return { status: res.status, body: await res.json() };
}
const INVALID_GRANT = { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };

async function authorize(oauth: OAuth2Client, extra: Record<string, unknown> = {}) {
  const pkce = await oauth.generateCodeVerifierAsync();
  const url = oauth.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent',
    scope: ['openid', 'email', SCOPES.calendarEvents, SCOPES.calendarReadonly],
    state: 'state-123',
    code_challenge_method: CodeChallengeMethod.S256,
    code_challenge: pkce.codeChallenge!,
    ...extra,
  });
  return { url, verifier: pkce.codeVerifier };
}

/** Plays the person on the consent page: picks the account, leaves ticked only `scopes`, clicks a button. */
async function consent(url: string, decision: 'allow' | 'deny', account = ANA, scopes?: string[]) {
  const page = await fetch(url, { redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
  const offered = [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]!);
  const form = new URLSearchParams({ request, decision, account });
  for (const s of scopes ?? offered) form.append('scope', s);
  const res = await fetch(`${sb.url}/o/oauth2/v2/auth/decision`, { method: 'POST', body: form, redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('authorization code flow with PKCE', () => {
  test('when the person allows, then the code exchanges once for tokens carrying the scopes and an id_token with the email', async () => {
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const back = await consent(url, 'allow');
    expect(back.origin + back.pathname).toBe(TEST_CLIENT.redirectUri);
    expect(back.searchParams.get('state')).toBe('state-123');
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^4\/0A/);

    const { tokens } = await oauth.getToken({ code, codeVerifier: verifier });
    expect(tokens.access_token).toMatch(/^ya29\./);
    expect(tokens.refresh_token).toMatch(/^1\/\/0/);
    expect(tokens.scope!.split(' ').sort()).toEqual(
      ['openid', 'https://www.googleapis.com/auth/userinfo.email', SCOPES.calendarEvents, SCOPES.calendarReadonly].sort(),
    );
    const ticket = await oauth.verifyIdToken({ idToken: tokens.id_token!, audience: TEST_CLIENT.clientId });
    expect(ticket.getPayload()).toMatchObject({ email: ANA, email_verified: true, iss: 'https://accounts.google.com' });

    const info = await oauth.getTokenInfo(tokens.access_token!);
    expect(info).toMatchObject({ email: ANA, aud: TEST_CLIENT.clientId, access_type: 'offline' });
    expect(info.scopes).toContain(SCOPES.calendarEvents);

    await expect(oauth.getToken({ code, codeVerifier: verifier })).rejects.toMatchObject({
      response: { status: 400, data: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } },
    });
  });

  test('when a code is replayed, then the tokens it produced are revoked too', async () => {
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const code = (await consent(url, 'allow')).searchParams.get('code')!;
    const { tokens } = await oauth.getToken({ code, codeVerifier: verifier });
    await expect(oauth.getToken({ code, codeVerifier: verifier })).rejects.toMatchObject({ response: { status: 400 } });
    expect(await refresh(tokens.refresh_token!)).toEqual(INVALID_GRANT);
  });

  test('when the verifier is wrong or missing, then the exchange is refused and the code stays unused', async () => {
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const code = (await consent(url, 'allow')).searchParams.get('code')!;
    await expect(oauth.getToken({ code, codeVerifier: 'x'.repeat(43) })).rejects.toMatchObject({
      response: { status: 400, data: { error: 'invalid_grant', error_description: 'Invalid code verifier.' } },
    });
    await expect(oauth.getToken({ code })).rejects.toMatchObject({ response: { data: { error_description: 'Missing code verifier.' } } });
    await expect(oauth.getToken({ code, codeVerifier: verifier })).resolves.toBeDefined();
  });

  test('when the redirect_uri differs at exchange, then redirect_uri_mismatch', async () => {
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const code = (await consent(url, 'allow')).searchParams.get('code')!;
    await expect(oauth.getToken({ code, codeVerifier: verifier, redirect_uri: 'https://hub.test.example/other' })).rejects.toMatchObject({
      response: { status: 400, data: { error: 'redirect_uri_mismatch' } },
    });
  });

  test('when the person unticks a scope, then the grant is partial and the API refuses what it lacks', async () => {
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const back = await consent(url, 'allow', ANA, [SCOPES.calendarReadonly]);
    expect(back.searchParams.get('scope')).not.toContain(SCOPES.calendarEvents);
    const { tokens } = await oauth.getToken({ code: back.searchParams.get('code')!, codeVerifier: verifier });
    expect(tokens.scope).not.toContain(SCOPES.calendarEvents);
    const calendar = sb.google.calendar(sb.google.withAccessToken(tokens.access_token!));
    await expect(calendar.events.insert({ calendarId: 'primary', requestBody: {} })).rejects.toMatchObject({
      response: { status: 403, data: { error: { status: 'PERMISSION_DENIED', errors: [{ reason: 'insufficientPermissions' }] } } },
    });
  });

  test('when the person denies, then the app gets access_denied with its state and no code', async () => {
    const { url } = await authorize(client());
    const back = await consent(url, 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.has('code')).toBe(false);
    expect(sb.world.oauth.grants.size).toBe(0);
  });

  test('when consent is given again without prompt=consent, then no new refresh token is returned', async () => {
    const oauth = client();
    const first = await authorize(oauth);
    const c1 = (await consent(first.url, 'allow')).searchParams.get('code')!;
    expect((await oauth.getToken({ code: c1, codeVerifier: first.verifier })).tokens.refresh_token).toBeDefined();
    const again = await authorize(oauth, { prompt: undefined });
    const c2 = (await consent(again.url, 'allow')).searchParams.get('code')!;
    expect((await oauth.getToken({ code: c2, codeVerifier: again.verifier })).tokens.refresh_token).toBeUndefined();
  });
});

describe('authorization request errors are shown to the person, never redirected', () => {
  test.each([
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/cb' }, 'redirect_uri_mismatch'],
    ['an unknown client', { client_id: 'nobody.apps.googleusercontent.com' }, 'invalid_client'],
    ['an unknown scope', { scope: 'https://www.googleapis.com/auth/drive.teleport' }, 'invalid_scope'],
  ])('when the request has %s, then a 400 page names %s', async (_what, override, error) => {
    const params = new URLSearchParams({
      client_id: TEST_CLIENT.clientId,
      redirect_uri: TEST_CLIENT.redirectUri,
      response_type: 'code',
      scope: SCOPES.calendarEvents,
      ...override,
    });
    const res = await fetch(`${sb.url}/o/oauth2/v2/auth?${params}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain(error);
  });
});

describe('auto-approve mode (tests)', () => {
  test('when consent is automatic with a subset, then the redirect comes at once with only that subset', async () => {
    await sb.control('PUT', '/consent', { mode: 'auto', account: BEN, grant: [SCOPES.calendarReadonly] });
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    const { tokens } = await oauth.getToken({ code: back.searchParams.get('code')!, codeVerifier: verifier });
    expect(tokens.scope).toContain(SCOPES.calendarReadonly);
    expect(tokens.scope).not.toContain(SCOPES.calendarEvents);
    const payload = (await oauth.verifyIdToken({ idToken: tokens.id_token!, audience: TEST_CLIENT.clientId })).getPayload();
    expect(payload?.email).toBe(BEN);
  });
});

describe('refresh, expiry and revocation', () => {
  async function connected() {
    await sb.control('PUT', '/consent', { mode: 'auto', account: ANA });
    const oauth = client();
    const { url, verifier } = await authorize(oauth);
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const { tokens } = await oauth.getToken({ code: back.searchParams.get('code')!, codeVerifier: verifier });
    return { oauth, tokens };
  }

  test('when an access token expires, then the API answers 401 authError and a refresh gives a working one', async () => {
    const { tokens } = await connected();
    await sb.control('POST', '/clock', { advance_s: 3601 });
    const expired = sb.google.calendar(sb.google.withAccessToken(tokens.access_token!));
    const failure = await expired.calendarList.list().catch((e) => e);
    expect(failure.response.status).toBe(401);
    expect(failure.response.data.error).toMatchObject({ status: 'UNAUTHENTICATED', errors: [{ reason: 'authError' }] });
    expect(failure.response.headers.get('www-authenticate')).toContain('invalid_token');

    const refreshed = await refresh(tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(refreshed.body.access_token).not.toBe(tokens.access_token);
    expect(refreshed.body.refresh_token).toBeUndefined(); // Google keeps the refresh token unless it rotates
    const calendar = sb.google.calendar(sb.google.withAccessToken(refreshed.body.access_token));
    expect((await calendar.settings.get({ setting: 'timezone' })).data.value).toBe('Europe/Madrid');
  });

  test('when rotation is on, then a refresh returns a new refresh token and retires the old one', async () => {
    await sb.control('PUT', '/settings', { rotate_refresh_tokens: true });
    const { tokens } = await connected();
    const refreshed = await refresh(tokens.refresh_token!);
    expect(refreshed.body.refresh_token).toMatch(/^1\/\/0/);
    expect(await refresh(tokens.refresh_token!)).toEqual(INVALID_GRANT);
    expect((await refresh(refreshed.body.refresh_token)).status).toBe(200);
  });

  test('when the app revokes its refresh token, then every token of the grant stops working', async () => {
    const { oauth, tokens } = await connected();
    await oauth.revokeToken(tokens.refresh_token!);
    expect(await refresh(tokens.refresh_token!)).toEqual(INVALID_GRANT);
    await expect(oauth.getTokenInfo(tokens.access_token!)).rejects.toMatchObject({ response: { status: 400 } });
    await expect(oauth.revokeToken(tokens.refresh_token!)).rejects.toMatchObject({ response: { status: 400, data: { error: 'invalid_token' } } });
  });

  test('when the control API revokes the account, then refresh fails with invalid_grant', async () => {
    const { tokens } = await connected();
    expect((await sb.control('POST', `/accounts/${ANA}/revoke`)).body).toEqual({ revoked_grants: 1 });
    expect(await refresh(tokens.refresh_token!)).toEqual(INVALID_GRANT);
  });

  test('when the client secret is wrong, then the token endpoint answers 401 invalid_client', async () => {
    const res = await fetch(`${sb.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: '1//0x', client_id: TEST_CLIENT.clientId, client_secret: 'wrong' }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()) as any).toEqual({ error: 'invalid_client', error_description: 'Unauthorized' });
  });

  test('when a grant type is unsupported, then unsupported_grant_type', async () => {
    const res = await fetch(`${sb.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', client_id: TEST_CLIENT.clientId, client_secret: TEST_CLIENT.clientSecret }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('unsupported_grant_type');
  });
});
