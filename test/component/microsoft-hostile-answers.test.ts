import { generateKeyPairSync } from 'node:crypto';
import type { MicrosoftConfig } from '../../src/config/microsoft';
import { CLOCK_SKEW_S } from '../../src/providers/microsoft/id-token';
import { createMicrosoftOAuth } from '../../src/providers/microsoft/oauth';
import { MAX_TOKEN_ANSWER_BYTES } from '../../src/providers/microsoft/token-endpoint';
import { captureLogs } from '../helpers/logs';
import { CLIENT_ID, type ScriptedIdentity, TENANT_ID, startScriptedIdentity } from '../helpers/scripted-identity';

/**
 * What Microsoft (or whatever answers in its place) could send that the sandbox, faithful to Microsoft, does not:
 * id_tokens that must not be believed, a `/me` of someone else, answers of the wrong shape or size, outages and
 * silence. Each ends as a clear outcome, and no token reaches the log.
 */

let idp: ScriptedIdentity;
const logs = captureLogs('debug');
const SECRET = 'scripted~client~secret~value';
beforeAll(async () => {
  idp = await startScriptedIdentity();
});
afterAll(() => idp.close());
afterEach(() => {
  idp.tokenAnswers.length = 0;
  idp.meAnswers.length = 0;
});

const config = (overrides: Partial<MicrosoftConfig> = {}): MicrosoftConfig => ({
  clientId: CLIENT_ID,
  clientSecret: SECRET,
  tenant: 'organizations',
  authorityUrl: idp.url,
  graphUrl: `${idp.url}/v1.0`,
  redirectUri: 'https://hub.example.com/integrations/microsoft/callback',
  timeoutMs: 2_000,
  sandbox: false,
  mailboxLimits: { requestsPerWindow: 10_000, windowS: 600, maxInFlight: 4, uploadBytesPerWindow: 150 * 1024 * 1024, uploadWindowS: 300 },
  ...overrides,
});
const port = (overrides: Partial<MicrosoftConfig> = {}) => createMicrosoftOAuth(config(overrides), { logger: logs.logger });
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body: JSON.stringify(body), headers });

test('when the token answer is good, then the request was client_secret_post with the code, verifier and redirect URI, and the grant comes back', async () => {
  const outcome = await port().exchange('the-code', 'the-verifier');
  expect(outcome).toMatchObject({ ok: true, tokens: { email: 'ana@contoso.example', refreshTokenExpiresAt: null } });
  expect(Object.fromEntries(idp.tokenRequests.at(-1)!)).toEqual({
    client_id: CLIENT_ID,
    client_secret: SECRET,
    grant_type: 'authorization_code',
    code: 'the-code',
    redirect_uri: 'https://hub.example.com/integrations/microsoft/callback',
    code_verifier: 'the-verifier',
  });
});

test.each([
  ['another audience', () => idp.signIdToken({}, { audience: '11111111-2222-4333-8444-555555555555' })],
  ['another issuer', () => idp.signIdToken({ iss: 'https://login.evil.example/3c1f2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b/v2.0' })],
  ['an issuer of another tenant than its tid', () => idp.signIdToken({ iss: `${idp.url}/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee/v2.0` })],
  ['a key id the key set lacks', () => idp.signIdToken({}, { kid: 'unknown-kid' })],
  ['a known key id but another key', () => idp.signIdToken({}, { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey })],
  ['an expiry long past', () => idp.signIdToken({ exp: Math.floor(Date.now() / 1000) - CLOCK_SKEW_S - 60, iat: Math.floor(Date.now() / 1000) - 7200 })],
  ['a start in the future', () => idp.signIdToken({ nbf: Math.floor(Date.now() / 1000) + CLOCK_SKEW_S + 60 })],
  ['no oid', () => idp.signIdToken({ oid: undefined })],
  [
    'alg none',
    () =>
      `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ aud: CLIENT_ID, tid: TENANT_ID })).toString('base64url')}.`,
  ],
])('when the id_token has %s, then the exchange is unverifiable', async (_what, idToken) => {
  idp.tokenAnswers.push(idp.tokenJson({ id_token: idToken() }));
  expect(await port().exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unverifiable' });
});

test('when Graph says /me is another user than the id_token, or refuses /me, then the exchange is unverifiable; /me down is unavailable', async () => {
  idp.meAnswers.push(json(200, { id: '00000000-1111-4222-8333-444444444444', mail: 'mallory@contoso.example', userPrincipalName: 'mallory@contoso.example' }));
  expect(await port().exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unverifiable' });
  idp.meAnswers.push(json(403, { error: { code: 'ErrorAccessDenied', message: 'Access is denied.' } }));
  expect(await port().exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unverifiable' });
  idp.meAnswers.push(json(503, { error: { code: 'serviceNotAvailable', message: 'down' } }));
  expect(await port().exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unavailable' });
  const said = logs.entries().filter((e) => e.msg === 'Graph did not confirm who connected');
  expect(said.map((e) => e.reason)).toEqual([
    'GET /me is another user than the id_token',
    'GET /me answered 403 ErrorAccessDenied',
    'GET /me answered 503 serviceNotAvailable',
  ]);
});

test('when a token names a key id the cache lacks, then the key set is fetched again — once per cool-down, however many such tokens come', async () => {
  const before = idp.keysFetched;
  for (let i = 0; i < 5; i++) {
    idp.tokenAnswers.push(idp.tokenJson({ id_token: idp.signIdToken({}, { kid: `forged-${i}` }) }));
    expect(await port().exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unverifiable' });
  }
  // Each port has its own cache (a fresh one fetches once); a single port fetches once for all forged kids.
  const single = port();
  const at = idp.keysFetched;
  for (let i = 0; i < 5; i++) {
    idp.tokenAnswers.push(idp.tokenJson({ id_token: idp.signIdToken({}, { kid: `forged-again-${i}` }) }));
    expect(await single.exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unverifiable' });
  }
  expect(idp.keysFetched - at).toBe(1);
  expect(idp.keysFetched - before).toBe(6);
});

test.each([
  ['wrong types', () => json(200, { token_type: 'Bearer', access_token: 42, expires_in: '3600', scope: ['Mail.Read'] })],
  ['no access token', () => json(200, { token_type: 'Bearer', expires_in: 3600, scope: 'Mail.Read', id_token: idp.signIdToken() })],
  [
    'a token with spaces and newlines',
    () => json(200, { token_type: 'Bearer', access_token: 'abc def\r\nX-Injected: 1', expires_in: 3600, id_token: idp.signIdToken() }),
  ],
  ['a MAC token', () => json(200, { token_type: 'mac', access_token: 'abc', expires_in: 3600, id_token: idp.signIdToken() })],
  ['no id_token', () => json(200, { token_type: 'Bearer', access_token: 'abc', expires_in: 3600 })],
  ['HTML', () => ({ status: 200, body: '<html>sign in</html>', headers: { 'content-type': 'text/html' } })],
  ['a body of megabytes', () => ({ status: 200, body: Buffer.alloc(MAX_TOKEN_ANSWER_BYTES * 8, 0x20) })],
])('when the token answer has %s, then the exchange is unverifiable', async (_what, answer) => {
  idp.tokenAnswers.push(answer());
  expect(await port().exchange('code', 'verifier')).toEqual({ ok: false, failure: 'unverifiable' });
});

test('when the token endpoint is down, throttles, is unreachable or silent, then the exchange is unavailable', async () => {
  idp.tokenAnswers.push(json(503, { error: 'temporarily_unavailable' }, { 'retry-after': '7' }));
  expect(await port().exchange('c', 'v')).toEqual({ ok: false, failure: 'unavailable' });
  idp.tokenAnswers.push(json(429, {}));
  expect(await port().exchange('c', 'v')).toEqual({ ok: false, failure: 'unavailable' });
  idp.tokenAnswers.push('destroy');
  expect(await port().exchange('c', 'v')).toEqual({ ok: false, failure: 'unavailable' });
  idp.tokenAnswers.push('hang');
  expect(await port({ timeoutMs: 200 }).exchange('c', 'v')).toEqual({ ok: false, failure: 'unavailable' });
  expect(await port({ authorityUrl: 'http://127.0.0.1:9' }).exchange('c', 'v')).toEqual({ ok: false, failure: 'unavailable' });
});

describe('refresh', () => {
  const signal = () => AbortSignal.timeout(5_000);

  it('when Microsoft answers 503 or 429 with Retry-After, then the refresh failed retryably with that wait', async () => {
    idp.tokenAnswers.push(json(503, {}, { 'retry-after': '7' }));
    expect(await port().refresh('1.Arefresh', signal())).toEqual({
      kind: 'failed',
      misconfigured: false,
      error: expect.objectContaining({
        code: 'EXTERNAL_API_ERROR',
        retryable: true,
        retryAfterS: 7,
        details: { reason: 'refresh_failed', upstream_status: 503 },
      }),
    });
    idp.tokenAnswers.push(json(429, {}, { 'retry-after': '30' }));
    expect(await port().refresh('1.Arefresh', signal())).toMatchObject({ kind: 'failed', misconfigured: false, error: { retryAfterS: 30 } });
    idp.tokenAnswers.push(json(400, { error: 'invalid_grant', error_description: 'AADSTS90055: TenantThrottlingError', error_codes: [90055] }));
    expect(await port().refresh('1.Arefresh', signal())).toMatchObject({ kind: 'failed', misconfigured: false, error: { retryable: true } });
  });

  it('when the connection drops, the endpoint is silent past the timeout, or the caller gives up, then the refresh failed retryably', async () => {
    idp.tokenAnswers.push('destroy');
    expect(await port().refresh('1.Arefresh', signal())).toMatchObject({ kind: 'failed', misconfigured: false, error: { details: { reason: 'network' } } });
    idp.tokenAnswers.push('hang');
    expect(await port({ timeoutMs: 200 }).refresh('1.Arefresh', signal())).toMatchObject({ kind: 'failed', error: { details: { reason: 'timeout' } } });
    idp.tokenAnswers.push('hang');
    const caller = new AbortController();
    const pending = port({ timeoutMs: 60_000 }).refresh('1.Arefresh', caller.signal);
    caller.abort();
    expect(await pending).toMatchObject({ kind: 'failed', error: { retryable: true, details: { reason: 'timeout' } } });
  });

  it('when the answer is hostile (wrong types, megabytes, HTML), then the refresh failed retryably without a token', async () => {
    for (const answer of [
      json(200, { token_type: 'Bearer', access_token: ['x'], expires_in: -1 }),
      { status: 200, body: Buffer.alloc(MAX_TOKEN_ANSWER_BYTES + 1, 0x7b) },
      { status: 200, body: '<html></html>' },
    ]) {
      idp.tokenAnswers.push(answer);
      expect(await port().refresh('1.Arefresh', signal())).toMatchObject({ kind: 'failed', misconfigured: false, error: { retryable: true } });
    }
  });

  it('when Microsoft sends the same refresh token back, then no rotated token is reported; a new one is', async () => {
    idp.tokenAnswers.push(idp.tokenJson({ refresh_token: '1.Asame' }));
    expect(await port().refresh('1.Asame', signal())).not.toHaveProperty('refreshToken');
    idp.tokenAnswers.push(idp.tokenJson({ refresh_token: '1.Anew' }));
    expect(await port().refresh('1.Aold', signal())).toMatchObject({
      kind: 'refreshed',
      refreshToken: '1.Anew',
      scopes: ['Calendars.ReadWrite', 'MailboxSettings.Read', 'User.Read'],
    });
    expect(Object.fromEntries(idp.tokenRequests.at(-1)!)).toEqual({
      client_id: CLIENT_ID,
      client_secret: SECRET,
      grant_type: 'refresh_token',
      refresh_token: '1.Aold',
    });
  });

  it('when the Hub has no client configured, then the refresh fails as misconfigured without asking Microsoft', async () => {
    const asked = idp.tokenRequests.length;
    expect(await port({ clientId: undefined, clientSecret: undefined }).refresh('1.Ax', signal())).toMatchObject({ kind: 'failed', misconfigured: true });
    expect(idp.tokenRequests.length).toBe(asked);
  });
});

test('when every case above has run, then no token, code, verifier or secret is in any log line', () => {
  const text = logs.text();
  expect(logs.lines.length).toBeGreaterThan(10);
  for (const secret of [SECRET, 'the-code', 'the-verifier', '1.Arefresh', '1.Anew', '1.Aold', 'at-', 'eyJ']) expect(text).not.toContain(secret);
});
