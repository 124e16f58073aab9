import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/store/db';
import { createKeyRotation } from '../../src/store/key-rotation';
import { createTokenCipher } from '../../src/store/token-cipher';
import { aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { aSetupUrl } from '../helpers/links';
import { SCOPES, TEST_CLIENT, type TestSandbox, startTestSandbox } from '../helpers/sandbox';
import { openTestDb, preferredDriver } from '../helpers/db';
import { KEY_1, KEY_2 } from '../helpers/env';

/**
 * Keeping connections alive, end to end: the Hub pointed at the Google sandbox refreshes access tokens before
 * they expire (once, however many calls want it), persists what Google returns, retries once after a 401, and
 * tells a revoked grant (reconnect) from Google being down (retry) and from its own misconfiguration.
 */

const ANA = 'ana@acme.example';
let sb: TestSandbox;
let hub: TestHub;
/** Every token this file saw, and every answer the Hub gave: none of the former may appear in the latter or the logs. */
const tokens = new Set<string>();
const answers: string[] = [];

const hubEnv = (sandboxUrl: string, extra: Record<string, string> = {}) => ({
  HUB_GOOGLE_SANDBOX_URL: sandboxUrl,
  HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
  HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
  HUB_GOOGLE_TIMEOUT_MS: '3000', // room for a busy machine; the timeout case holds Google for 10 s
  HUB_GOOGLE_RETRY_BASE_MS: '10',
  HUB_GOOGLE_RETRY_MAX_MS: '50',
  HUB_TOOL_DEADLINE_MS: '8000',
  ...extra,
});

beforeAll(async () => {
  sb = await startTestSandbox();
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
  hub = await buildTestHub({ env: hubEnv(sb.url) });
});
afterAll(async () => {
  sb.expectFaithful();
  await hub.close();
  await sb.close();
});
afterEach(async () => {
  await sb.control('DELETE', '/faults');
  await sb.control('PUT', '/settings', { rotate_refresh_tokens: false });
});

/** A real offline grant at the sandbox (access + refresh token) for the Hub's OAuth client. */
async function offlineGrant(scopes: readonly string[] = [SCOPES.calendarReadonly]) {
  const res = await sb.control('POST', '/tokens', { email: ANA, scopes, client_id: TEST_CLIENT.clientId, offline: true });
  expect(res.status).toBe(201);
  tokens.add(res.body.access_token).add(res.body.refresh_token);
  return { accessToken: res.body.access_token as string, refreshToken: res.body.refresh_token as string };
}

/** A customer connected with a real grant whose access token the Hub believes expires in `expiresInS`. */
async function connected(expiresInS: number, on: TestHub = hub, scopes: readonly string[] = [SCOPES.calendarReadonly]) {
  const grant = await offlineGrant(scopes);
  const saved = await on.store.save(
    aCredential({ accountEmail: ANA, ...grant, scopes, tokenExpiresAt: new Date(Date.now() + expiresInS * 1000), lastRefreshedAt: null }),
  );
  return { ...grant, saved, customerId: saved.customerId };
}

/** Runs test_calendar_timezone for the customer; with `status`, fails (showing the answer) on any other. */
const timezone = async (customerId: string, status?: number, on: TestHub = hub) => {
  const res = await client(on.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({ tool: 'test_calendar_timezone', agent_id: randomUUID(), customer_id: customerId, inputs: {} });
  answers.push(res.text);
  if (status !== undefined && res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res;
};

/** POST /token requests the sandbox answers from now on. */
async function tokenRequests() {
  const since = (await sb.control('GET', '/requests')).body.next as number;
  return async () =>
    ((await sb.control('GET', `/requests?since=${since}`)).body.requests as { method: string; path: string }[]).filter(
      (r) => r.method === 'POST' && r.path === '/token',
    ).length;
}

const stored = async (id: string, on: TestHub = hub) => {
  const row = (await on.store.getById(id))!;
  const open = on.store.openTokens(row);
  if (open.accessToken) tokens.add(open.accessToken);
  if (open.refreshToken) tokens.add(open.refreshToken);
  return { row, ...open };
};

describe('before a call', () => {
  test('when the access token expires within 5 minutes, then it is refreshed and persisted first, and the call succeeds', async () => {
    const c = await connected(120);
    const refreshes = await tokenRequests();
    const res = await timezone(c.customerId, 200);
    expect(res.body.result).toEqual({ time_zone: 'Europe/Madrid' });
    expect(await refreshes()).toBe(1);
    expect(res.body.metadata.api_calls).toBe(2); // the refresh is a request to Google too
    const after = await stored(c.saved.id);
    expect(after.accessToken).not.toBe(c.accessToken);
    expect(after.refreshToken).toBe(c.refreshToken);
    expect(after.row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    expect(after.row.lastRefreshedAt!.getTime()).toBeGreaterThan(Date.now() - 10_000);
    expect(after.row.status).toBe('connected');
    const status = await client(hub.app).get(`/api/internal/integrations/status/${c.customerId}/`).set('Authorization', serviceAuth()).expect(200);
    expect(status.body.integrations.google_calendar).toMatchObject({ connected: true, last_refreshed_at: after.row.lastRefreshedAt!.toISOString() });
    expect(hub.logs.entries().find((e) => e.msg === 'access token refreshed' && e.credential_id === c.saved.id)).toMatchObject({ rotated: false });
  });

  test('when the access token is far from expiry, then nothing is refreshed', async () => {
    const c = await connected(3600);
    const refreshes = await tokenRequests();
    await timezone(c.customerId, 200);
    await timezone(c.customerId, 200);
    expect(await refreshes()).toBe(0);
    expect((await stored(c.saved.id)).row.lastRefreshedAt).toBeNull();
  });

  test('when Google rotates the refresh token, then the new one is persisted and the old one is no longer needed', async () => {
    await sb.control('PUT', '/settings', { rotate_refresh_tokens: true });
    const c = await connected(60);
    await timezone(c.customerId, 200);
    const rotated = await stored(c.saved.id);
    expect(rotated.refreshToken).not.toBe(c.refreshToken);
    expect(hub.logs.entries().find((e) => e.msg === 'access token refreshed' && e.credential_id === c.saved.id)).toMatchObject({ rotated: true });
    // The sandbox retired the old refresh token: a second refresh can only succeed with the rotated one.
    await sb.control('POST', `/accounts/${ANA}/expire-tokens`);
    const refreshes = await tokenRequests();
    await timezone(c.customerId, 200);
    expect(await refreshes()).toBe(1);
    expect((await stored(c.saved.id)).row.status).toBe('connected');
  });

  test('when 20 calls for one near-expiry credential arrive at once, then Google sees exactly one refresh', async () => {
    const c = await connected(30);
    await sb.control('POST', '/faults', { operation: 'oauth.token', latency_ms: 150, times: 5 }); // they all overlap it
    const refreshes = await tokenRequests();
    const results = await Promise.all(Array.from({ length: 20 }, () => timezone(c.customerId)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await refreshes()).toBe(1);
  });
});

describe('when the refresh fails', () => {
  test('when the grant was revoked, then INTEGRATION_EXPIRED with a setup_url, the row is expired with its error, and the next call fails fast', async () => {
    const c = await connected(60);
    await sb.control('POST', `/accounts/${ANA}/revoke`);
    const res = await timezone(c.customerId, 401);
    expect(res.body.error).toEqual({
      code: 'INTEGRATION_EXPIRED',
      message: 'Google Calendar access has expired or was revoked; it must be connected again',
      details: { reason: 'revoked', integration: 'google_calendar', setup_url: aSetupUrl(c.customerId, 'google_calendar') },
      retryable: false,
    });
    const after = await stored(c.saved.id);
    expect(after.row).toMatchObject({ status: 'expired', lastError: 'invalid_grant: Token has been expired or revoked.' });
    const status = await client(hub.app).get(`/api/internal/integrations/status/${c.customerId}/`).set('Authorization', serviceAuth()).expect(200);
    expect(status.body.integrations.google_calendar).toMatchObject({
      connected: false,
      status: 'expired',
      setup_url: aSetupUrl(c.customerId, 'google_calendar'),
    });
    const refreshes = await tokenRequests();
    await timezone(c.customerId, 401);
    expect(await refreshes()).toBe(0);
  });

  test('when the token endpoint answers 503 but the current token has minutes left, then the call succeeds with it and the row is untouched', async () => {
    const c = await connected(200);
    await sb.control('POST', '/faults', { operation: 'oauth.token', preset: 'unavailable' });
    const res = await timezone(c.customerId, 200);
    expect(res.body.result).toEqual({ time_zone: 'Europe/Madrid' });
    expect((await stored(c.saved.id)).row).toMatchObject({
      status: 'connected',
      lastError: null,
      lastRefreshedAt: null,
      tokenExpiresAt: c.saved.tokenExpiresAt,
    });
    expect(hub.logs.text()).toContain('using the current token until it expires');
  });

  test('when the token endpoint answers 503 and the token is about to expire, then EXTERNAL_API_ERROR (retryable) and the row stays connected and untouched', async () => {
    const c = await connected(20);
    await sb.control('POST', '/faults', { operation: 'oauth.token', preset: 'unavailable' });
    const res = await timezone(c.customerId, 502);
    expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'refresh_failed', upstream_status: 503 } });
    const after = await stored(c.saved.id);
    expect(after.row).toMatchObject({ status: 'connected', lastError: null, lastRefreshedAt: null, tokenExpiresAt: c.saved.tokenExpiresAt });
    expect([after.accessToken, after.refreshToken]).toEqual([c.accessToken, c.refreshToken]);
    await sb.control('DELETE', '/faults');
    await timezone(c.customerId, 200); // and the next call refreshes
  });

  test('when the token endpoint does not answer in time, then EXTERNAL_API_ERROR (retryable) within the timeout, row untouched', async () => {
    const c = await connected(20);
    const refreshes = await tokenRequests();
    await sb.control('POST', '/faults', { operation: 'oauth.token', latency_ms: 10_000, times: 1 });
    // 502, not the 200 Google gives after 10 s: the refresh was abandoned at HUB_GOOGLE_TIMEOUT_MS (3 s).
    const res = await timezone(c.customerId, 502);
    expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true });
    expect((await stored(c.saved.id)).row).toMatchObject({ status: 'connected', lastError: null, lastRefreshedAt: null });
    expect(await refreshes()).toBe(1); // one attempt, abandoned: no retry of the refresh within the call
  });

  test('when Google refuses the Hub’s own OAuth client (invalid_client), then EXTERNAL_API_ERROR not retryable, logged as an error, row untouched', async () => {
    const misconfigured = await buildTestHub({ env: hubEnv(sb.url, { HUB_GOOGLE_CLIENT_SECRET: 'GOCSPX-not-the-secret' }) });
    try {
      const c = await connected(20, misconfigured);
      const res = await timezone(c.customerId, 502, misconfigured);
      expect(res.body.error).toMatchObject({
        code: 'EXTERNAL_API_ERROR',
        retryable: false,
        details: { reason: 'refresh_rejected', upstream_status: 401, google_reason: 'invalid_client' },
      });
      expect((await stored(c.saved.id, misconfigured)).row).toMatchObject({ status: 'connected', lastError: null });
      expect(misconfigured.logs.entries().some((e) => e.level === 50 && String(e.msg).includes('OAuth client'))).toBe(true);
      expect(misconfigured.logs.text()).not.toContain('GOCSPX-not-the-secret');
    } finally {
      await misconfigured.close();
    }
  });
});

describe('when Google rejects a token the Hub believed valid', () => {
  test('when Google answers 401 to an unexpired token, then one forced refresh and one retry succeed', async () => {
    const c = await connected(3600);
    await sb.control('POST', `/accounts/${ANA}/expire-tokens`);
    const refreshes = await tokenRequests();
    const res = await timezone(c.customerId, 200);
    expect(res.body.result).toEqual({ time_zone: 'Europe/Madrid' });
    expect(res.body.metadata.api_calls).toBe(3); // the refused call, the refresh, the retry
    expect(await refreshes()).toBe(1);
    expect((await stored(c.saved.id)).accessToken).not.toBe(c.accessToken);
  });

  test('when the forced refresh is refused (invalid_grant), then INTEGRATION_EXPIRED with a setup_url', async () => {
    const c = await connected(3600);
    await sb.control('POST', `/accounts/${ANA}/revoke`);
    const res = await timezone(c.customerId, 401);
    expect(res.body.error).toMatchObject({
      code: 'INTEGRATION_EXPIRED',
      details: { integration: 'google_calendar', setup_url: aSetupUrl(c.customerId, 'google_calendar') },
    });
    expect(res.body.metadata.api_calls).toBe(2); // the refused call and the refused refresh
    expect((await stored(c.saved.id)).row.status).toBe('expired');
  });

  test('when Google answers 403 insufficient scope, then INTEGRATION_PERMISSION_DENIED with required and granted scopes and a setup_url', async () => {
    const customerId = randomUUID();
    const accessToken = await sb.token(ANA, [SCOPES.gmailReadonly]); // the row claims calendar; the token holds none of it
    tokens.add(accessToken);
    await hub.store.save(aCredential({ customerId, accountEmail: ANA, accessToken, scopes: [SCOPES.calendarReadonly] }));
    const res = await timezone(customerId, 403);
    expect(res.body.error).toEqual({
      code: 'INTEGRATION_PERMISSION_DENIED',
      message: expect.any(String),
      details: {
        reason: 'insufficient_scopes',
        integration: 'google_calendar',
        required_scopes: ['calendar.readonly'],
        granted_scopes: ['calendar.readonly'],
        setup_url: aSetupUrl(customerId, 'google_calendar'),
      },
      retryable: false,
    });
  });
});

describe('a key rotation racing a rejected token', () => {
  let rotating: TestHub;
  /** Armed with a credential id: the next re-read of that row by id first re-seals every row under a new key. */
  let resealBefore: string | undefined;

  beforeAll(async () => {
    const t = await openTestDb(preferredDriver());
    const rotation = createKeyRotation(
      t.db,
      createTokenCipher([
        { id: 'k2', key: Buffer.from(KEY_2, 'base64') },
        { id: 'k1', key: Buffer.from(KEY_1, 'base64') },
      ]),
    );
    const db: Db = {
      kind: t.db.kind,
      query: async (sql, params) => {
        if (resealBefore !== undefined && /FROM integration_credentials WHERE id = \$1/.test(sql) && params?.[0] === resealBefore) {
          resealBefore = undefined;
          await rotation.reencryptAll(); // `npm run rotate-keys` landing between the 401 and the refresher's re-read
        }
        return t.db.query(sql, params);
      },
      exec: (sql) => t.db.exec(sql),
      transaction: (fn) => t.db.transaction(fn),
      ping: (ms) => t.db.ping(ms),
      close: () => t.drop(),
    };
    // k1 seals; k2 is known, so rows re-sealed under it still open (a rotation rolled out halfway).
    rotating = await buildTestHub({ db, env: hubEnv(sb.url, { HUB_ENCRYPTION_KEYS: `k1:${KEY_1},k2:${KEY_2}` }) });
  });
  afterAll(() => rotating.close());

  test('when the row is re-sealed while Google rejects its token, then the forced refresh still happens and the call succeeds', async () => {
    const c = await connected(3600, rotating);
    await sb.control('POST', `/accounts/${ANA}/expire-tokens`);
    const refreshes = await tokenRequests();
    resealBefore = c.saved.id;
    const res = await timezone(c.customerId, 200, rotating);
    expect(res.body.result).toEqual({ time_zone: 'Europe/Madrid' });
    expect(await refreshes()).toBe(1);
    const after = await stored(c.saved.id, rotating);
    expect(after.row).toMatchObject({ status: 'connected', sealed: { keyId: 'k1' } });
    expect(after.accessToken).not.toBe(c.accessToken);
    expect(after.refreshToken).toBe(c.refreshToken);
  });
});

describe('the credential cache', () => {
  let cached: TestHub;
  let reads = 0;

  beforeAll(async () => {
    const t = await openTestDb(preferredDriver());
    // Counts credential lookups as the database sees them.
    const counting: Db = {
      kind: t.db.kind,
      query: (sql, params) => {
        if (/^\s*SELECT[\s\S]*FROM integration_credentials/.test(sql)) reads++;
        return t.db.query(sql, params);
      },
      exec: (sql) => t.db.exec(sql),
      transaction: (fn) => t.db.transaction(fn),
      ping: (ms) => t.db.ping(ms),
      close: () => t.drop(),
    };
    cached = await buildTestHub({ db: counting, env: hubEnv(sb.url, { HUB_CREDENTIAL_CACHE_TTL_MS: '60000' }) });
  });
  afterAll(() => cached.close());

  test('when two calls come within the TTL, then one database read and one decryption serve both; invalidate makes the next call read again', async () => {
    const c = await connected(3600, cached);
    const decrypts = jest.spyOn(cached.store, 'openAccessToken');
    reads = 0;
    await timezone(c.customerId, 200, cached);
    await timezone(c.customerId, 200, cached);
    expect(reads).toBe(1);
    expect(decrypts).toHaveBeenCalledTimes(1);

    cached.connections.invalidate({ customerId: c.customerId, userId: null, integration: 'google_calendar' });
    await timezone(c.customerId, 200, cached);
    expect(reads).toBe(2);
    expect(decrypts).toHaveBeenCalledTimes(2);
    decrypts.mockRestore();
  });

  test('when a user-level connection changes, then the cached customer-wide fallbacks of that customer are dropped too', async () => {
    const c = await connected(3600, cached);
    const probe = (userId: string | null) =>
      client(cached.app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .send({ tool: 'test_calendar_timezone', agent_id: randomUUID(), customer_id: c.customerId, user_id: userId, inputs: {} })
        .expect(200);
    await probe(null);
    await probe('alice');
    reads = 0;
    await probe(null);
    await probe('alice');
    expect(reads).toBe(0);
    cached.connections.invalidate({ customerId: c.customerId, userId: 'alice', integration: 'google_calendar' });
    await probe(null);
    await probe('alice');
    expect(reads).toBe(2);
  });

  test('when a cached token is refreshed, then the cache holds the new record and the next call needs no read', async () => {
    const c = await connected(60, cached);
    await timezone(c.customerId, 200, cached); // read + refresh (re-read under the lock)
    reads = 0;
    const refreshes = await tokenRequests();
    await timezone(c.customerId, 200, cached);
    expect(reads).toBe(0);
    expect(await refreshes()).toBe(0);
  });
});

test('when all of the above ran, then no access or refresh token appeared in any answer or log line', () => {
  expect(tokens.size).toBeGreaterThan(20);
  const logs = hub.logs.text();
  for (const token of tokens) {
    expect(logs).not.toContain(token);
    for (const answer of answers) expect(answer).not.toContain(token);
  }
  expect(logs).not.toMatch(/ya29\.|1\/\/0/);
});
