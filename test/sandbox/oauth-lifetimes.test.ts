import { CodeChallengeMethod } from 'google-auth-library';
import { SCOPES, TEST_CLIENT, useTestSandbox } from '../helpers/sandbox';

/**
 * How the sandbox's refresh tokens die, as Google's do (sources in packages/google-sandbox/src/oauth/lifetimes.ts): Testing
 * publishing status, six months unused, the per-account limit, time-based access, Workspace re-authentication
 * and an admin's policy — each switched on through the control API.
 */

const ANA = 'ana@acme.example';
const BEN = 'ben@acme.example';
const DAY_S = 86_400;
const sb = useTestSandbox();

beforeEach(async () => {
  await sb.createAccount({ email: ANA });
  await sb.createAccount({ email: BEN });
});

/** An offline grant (access + refresh token) for the test client, as after consent. */
async function grant(email = ANA, scopes: string[] = [SCOPES.calendarReadonly]): Promise<string> {
  const res = await sb.control('POST', '/tokens', { email, scopes, client_id: TEST_CLIENT.clientId, offline: true });
  expect(res.status).toBe(201);
  return res.body.refresh_token as string;
}

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

const advance = (seconds: number) => sb.control('POST', '/clock', { advance_s: seconds });
const works = async (refreshToken: string) => expect((await refresh(refreshToken)).status).toBe(200);
const INVALID_GRANT = { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };

/** The authorization-code flow with auto-consent as `email`: the token endpoint's answer to the exchange. */
async function consentAndExchange(email = ANA, prompt: 'consent' | null = 'consent'): Promise<{ page: Response; exchange?: { status: number; body: any } }> {
  await sb.control('PUT', '/consent', { mode: 'auto', account: email });
  const oauth = sb.google.oauth2({ redirectUri: TEST_CLIENT.redirectUri });
  const pkce = await oauth.generateCodeVerifierAsync();
  const url = oauth.generateAuthUrl({
    access_type: 'offline',
    ...(prompt ? { prompt } : {}),
    scope: ['openid', 'email', SCOPES.calendarReadonly],
    code_challenge_method: CodeChallengeMethod.S256,
    code_challenge: pkce.codeChallenge!,
  });
  const page = await fetch(url, { redirect: 'manual' });
  if (page.status !== 302) return { page };
  const code = new URL(page.headers.get('location')!).searchParams.get('code')!;
  const res = await fetch(`${sb.url}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.codeVerifier,
      redirect_uri: TEST_CLIENT.redirectUri,
      client_id: TEST_CLIENT.clientId,
      client_secret: TEST_CLIENT.clientSecret,
    }),
  });
  return { page, exchange: { status: res.status, body: await res.json() } };
}

describe('Testing publishing status', () => {
  test('when the app is in Testing, then a refresh token for API scopes dies 7 days after it was issued, and stays dead', async () => {
    expect((await sb.control('PUT', '/oauth', { publishing_status: 'testing' })).body).toEqual({ publishing_status: 'testing', refresh_token_limit: 100 });
    const token = await grant();
    await advance(7 * DAY_S - 60);
    await works(token);
    await advance(60);
    expect(await refresh(token)).toEqual(INVALID_GRANT);
    expect(await refresh(token)).toEqual(INVALID_GRANT);
  });

  test('when only sign-in scopes were granted, or the app is in production, then 7 days mean nothing', async () => {
    const production = await grant();
    await sb.control('PUT', '/oauth', { publishing_status: 'testing' });
    const signInOnly = await grant(ANA, ['openid', 'email']);
    await advance(8 * DAY_S);
    await works(production);
    await works(signInOnly);
  });
});

test('when a refresh token goes unused for six months, then it is dead; one used meanwhile lives on', async () => {
  const idle = await grant();
  const used = await grant(BEN);
  await advance(120 * DAY_S);
  await works(used);
  await advance(60 * DAY_S); // idle: 180 days unused; used: 60
  expect(await refresh(idle)).toEqual(INVALID_GRANT);
  await works(used);
});

describe('the per-account, per-client refresh token limit', () => {
  test('when Google issues the 101st refresh token for one account and client, then the oldest stops working without a word', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 101; i++) tokens.push(await grant());
    const bens = await grant(BEN);
    expect(await refresh(tokens[0]!)).toEqual(INVALID_GRANT);
    await works(tokens[1]!);
    await works(tokens[100]!);
    await works(bens);
  });

  test('when the limit is set lower and each consent mints a token (prompt=consent), then the limit retires the oldest', async () => {
    await sb.control('PUT', '/oauth', { refresh_token_limit: 2 });
    const first = (await consentAndExchange()).exchange!.body.refresh_token as string;
    const second = (await consentAndExchange()).exchange!.body.refresh_token as string;
    await works(first);
    const third = (await consentAndExchange()).exchange!.body.refresh_token as string;
    expect(await refresh(first)).toEqual(INVALID_GRANT);
    await works(second);
    await works(third);
    // Without prompt=consent the returning account gets no new refresh token, so nothing is retired.
    expect((await consentAndExchange(ANA, null)).exchange!.body.refresh_token).toBeUndefined();
    await works(second);
  });
});

test('when the person grants time-based access, then the exchange says refresh_token_expires_in and the token dies then', async () => {
  expect((await sb.control('PUT', `/accounts/${ANA}/oauth`, { time_limited_access_s: 3600 })).body).toEqual({
    time_limited_access_s: 3600,
    reauth_after_s: null,
    admin_blocked: false,
  });
  const { exchange } = await consentAndExchange();
  expect(exchange).toMatchObject({ status: 200, body: { refresh_token: expect.any(String) } });
  // Counted from the consent, in sandbox time that also runs with the wall clock: a loaded machine may show 3599.
  const expiresIn = exchange!.body.refresh_token_expires_in as number;
  expect(expiresIn).toBeGreaterThanOrEqual(3590);
  expect(expiresIn).toBeLessThanOrEqual(3600);
  await advance(expiresIn - 5);
  await works(exchange!.body.refresh_token);
  await advance(10);
  expect(await refresh(exchange!.body.refresh_token)).toEqual(INVALID_GRANT);
});

test('when the Workspace requires re-authentication, then refresh answers invalid_grant / invalid_rapt until a new consent', async () => {
  await sb.control('PUT', `/accounts/${ANA}/oauth`, { reauth_after_s: DAY_S });
  const token = await grant();
  await works(token);
  await advance(DAY_S);
  expect(await refresh(token)).toEqual({
    status: 400,
    body: {
      error: 'invalid_grant',
      error_description: 'reauth related error (invalid_rapt)',
      error_uri: 'https://support.google.com/a/answer/9368756',
      error_subtype: 'invalid_rapt',
    },
  });
  const fresh = (await consentAndExchange()).exchange!.body.refresh_token as string;
  await works(fresh);
});

test('when the Workspace admin restricts the app, then refresh answers admin_policy_enforced and consent stops at Google’s error page', async () => {
  const token = await grant();
  await sb.control('PUT', `/accounts/${ANA}/oauth`, { admin_blocked: true });
  const refused = await refresh(token);
  expect(refused).toMatchObject({ status: 400, body: { error: 'admin_policy_enforced' } });
  const { page } = await consentAndExchange();
  expect(page.status).toBe(400);
  expect(await page.text()).toContain('Error 400: admin_policy_enforced');
  await works(await grant(BEN)); // another account (another organisation) is not affected
  expect((await sb.control('PUT', `/accounts/${ANA}/oauth`, { admin_blocked: false, time_limited_access_s: null })).body).toEqual({
    time_limited_access_s: null,
    reauth_after_s: null,
    admin_blocked: false,
  });
});

test('when the control API gets a bad body or an unknown account, then 400 or 404 with the reason', async () => {
  expect((await sb.control('PUT', '/oauth', { publishing_status: 'beta' })).status).toBe(400);
  expect((await sb.control('PUT', '/oauth', { refresh_token_limit: 0 })).status).toBe(400);
  expect((await sb.control('PUT', `/accounts/${ANA}/oauth`, { admin: true })).status).toBe(400);
  expect((await sb.control('GET', '/accounts/nobody@acme.example/oauth')).status).toBe(404);
  expect((await sb.control('GET', '/oauth')).body).toEqual({ publishing_status: 'production', refresh_token_limit: 100 });
});
