import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { mintAdminToken, runAdminTokenCli } from '../../src/cli/admin-token';
import { googleScope } from '../../src/integrations/catalog';
import { ADMIN_JWT_SECRET, SECRET_A, testEnv } from '../helpers/env';
import { adminToken, asAdmin, asCustomer, bearer } from '../helpers/admin';
import { unreachableDb } from '../helpers/db';
import { aCredential, GMAIL_SCOPES } from '../helpers/factories';
import { client } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';
import { aSetupUrl, readConnectLink } from '../helpers/links';

const RETURN_PREFIX = 'https://app.example.com/settings';
const envelope = (code: string, message: string | object, retryable = false) => ({
  success: false,
  tool: null,
  error: { code, message, retryable },
  metadata: { execution_time_ms: expect.any(Number), api_calls: 0, request_id: expect.any(String) },
});

describe('admin API', () => {
  let hub: TestHub;
  const api = () => client(hub.app);
  const createLink = (body: object, authorization = asAdmin()) => api().post('/api/admin/connect-links').set('Authorization', authorization).send(body);
  const list = (customerId: string, authorization = asAdmin()) =>
    api().get(`/api/admin/customers/${customerId}/integrations`).set('Authorization', authorization);

  beforeAll(async () => {
    hub = await buildTestHub({ env: { HUB_CONNECT_RETURN_URLS: RETURN_PREFIX } });
  });
  afterAll(() => hub.close());

  describe('authentication', () => {
    const someCustomer = randomUUID();
    const ROUTES: [string, string][] = [
      ['post', '/api/admin/connect-links'],
      ['get', `/api/admin/customers/${someCustomer}/integrations`],
      ['delete', `/api/admin/customers/${someCustomer}/integrations/google_calendar`],
      ['get', '/api/admin/no-such-route'],
    ];
    const call = (method: string, path: string, authorization?: string) => {
      const test =
        method === 'post'
          ? api().post(path).send({ customer_id: someCustomer, integration: 'google_calendar' })
          : method === 'delete'
            ? api().delete(path)
            : api().get(path);
      return authorization === undefined ? test : test.set('Authorization', authorization);
    };
    const INVALID = 'The admin token is invalid';
    const MALFORMED = 'Malformed Authorization header; expected the Bearer scheme: "Bearer <admin token>"';
    const LIFETIME = 'The admin token must carry iat (not in the future) and exp at most 2592000 seconds after it (HUB_ADMIN_JWT_MAX_TTL_S)';
    const nowS = Math.floor(Date.now() / 1000);

    describe.each(ROUTES)('%s %s', (method, path) => {
      it('when there is no Authorization header, then 401 with the bare Bearer challenge', async () => {
        const res = await call(method, path).expect(401);
        expect(res.body).toEqual(envelope('UNAUTHORIZED', 'Missing Authorization header; send "Authorization: Bearer <admin token>"'));
        expect(res.headers['www-authenticate']).toBe('Bearer realm="hub-admin"');
      });

      it.each([
        ['a service secret', `ServiceSecret ${SECRET_A}`, MALFORMED],
        ['the scheme alone', 'Bearer', MALFORMED],
        ['two values', `Bearer ${adminToken({ role: 'hub_admin' })} x`, MALFORMED],
        ['not a JWT', 'Bearer not-a-jwt', INVALID],
        ['signed with another secret', asAdmin({ key: 'another-secret-0123456789abcdef0123456789' }), INVALID],
        ['unsigned (alg none)', asAdmin({ alg: 'none' }), INVALID],
        ['for another audience', asAdmin({ aud: 'some-other-api' }), INVALID],
        ['from another issuer', asAdmin({ iss: 'someone-else' }), INVALID],
        ['without exp', asAdmin({ exp: null }), LIFETIME],
        ['without iat', asAdmin({ iat: null }), LIFETIME],
        ['valid until the year 9999', asAdmin({ exp: 253_402_300_799 }), LIFETIME],
        ['valid 31 days (over HUB_ADMIN_JWT_MAX_TTL_S)', asAdmin({ exp: nowS + 31 * 86_400 }), LIFETIME],
        ['issued in the future, so that exp - iat looks short', asAdmin({ iat: 253_402_300_000, exp: 253_402_300_799 }), LIFETIME],
        ['expired', asAdmin({ exp: Math.floor(Date.now() / 1000) - 3600 }), 'The admin token has expired'],
        ['not yet valid', asAdmin({ claims: { nbf: Math.floor(Date.now() / 1000) + 3600 } }), INVALID],
        ['RS256 on an HS256 Hub', asAdmin({ alg: 'RS256', key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }), INVALID],
      ])('when the token is %s, then 401 invalid_token', async (_case, authorization, message) => {
        const res = await call(method, path, authorization).expect(401);
        expect(res.body).toEqual(envelope('UNAUTHORIZED', message));
        expect(res.headers['www-authenticate']).toBe('Bearer realm="hub-admin", error="invalid_token"');
      });
    });

    it.each(ROUTES.slice(0, 3))('when a token has neither role hub_admin nor customer_id, then %s %s answers 403 FORBIDDEN', async (method, path) => {
      for (const claims of [{}, { role: 'viewer' }, { customer_id: 'not-a-uuid' }]) {
        const res = await call(method, path, bearer(adminToken({ claims }))).expect(403);
        expect(res.body).toEqual(envelope('FORBIDDEN', 'This admin token grants no access: it has neither role "hub_admin" nor a customer_id'));
      }
    });

    it.each(ROUTES.slice(0, 3))('when a customer token acts on another customer, then %s %s answers 403 FORBIDDEN', async (method, path) => {
      const res = await call(method, path, asCustomer(randomUUID())).expect(403);
      expect(res.body).toEqual(envelope('FORBIDDEN', 'This admin token may only act on its own customer'));
    });

    it('when a token declares exactly the maximum lifetime, or was issued a few seconds ahead of our clock, then it is accepted', async () => {
      await list(randomUUID(), asAdmin({ exp: nowS + 30 * 86_400 })).expect(200);
      await list(randomUUID(), asAdmin({ iat: nowS + 10, exp: nowS + 310 })).expect(200);
    });

    it('when HUB_ADMIN_JWT_MAX_TTL_S is lowered, then longer-lived tokens are refused and shorter ones still work', async () => {
      const strict = await buildTestHub({ env: { HUB_ADMIN_JWT_MAX_TTL_S: '600' } });
      try {
        const res = await client(strict.app)
          .get(`/api/admin/customers/${randomUUID()}/integrations`)
          .set('Authorization', asAdmin({ exp: nowS + 3600 }))
          .expect(401);
        expect(res.body.error.message).toBe(
          'The admin token must carry iat (not in the future) and exp at most 600 seconds after it (HUB_ADMIN_JWT_MAX_TTL_S)',
        );
        await client(strict.app)
          .get(`/api/admin/customers/${randomUUID()}/integrations`)
          .set('Authorization', asAdmin({ exp: nowS + 600 }))
          .expect(200);
      } finally {
        await strict.close();
      }
    });

    it('when a token expired a few seconds ago, then the clock tolerance still accepts it', async () => {
      await list(randomUUID(), asAdmin({ exp: Math.floor(Date.now() / 1000) - 5 })).expect(200);
    });

    it('when an authenticated caller asks for an unknown admin path, then 404 RESOURCE_NOT_FOUND', async () => {
      const res = await api().get('/api/admin/no-such-route').set('Authorization', asAdmin()).expect(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    });

    it('when the admin API has no key configured, then every admin path answers 401 naming the variables to set', async () => {
      const off = await buildTestHub({ env: { HUB_ADMIN_JWT_SECRET: undefined } });
      try {
        for (const [method, path] of ROUTES) {
          const test = method === 'delete' ? client(off.app).delete(path) : method === 'post' ? client(off.app).post(path).send({}) : client(off.app).get(path);
          const res = await test.set('Authorization', asAdmin()).expect(401);
          expect(res.body.error.message).toBe(
            'The admin API is not enabled on this Hub; set HUB_ADMIN_JWT_SECRET (HS256) or HUB_ADMIN_JWT_PUBLIC_KEY (RS256) to enable it',
          );
          expect(res.headers['www-authenticate']).toBe('Bearer realm="hub-admin"');
        }
      } finally {
        await off.close();
      }
    });
  });

  describe('POST /api/admin/connect-links', () => {
    it('when an admin asks for a link, then 201 with a signed link for exactly that customer, user and integration', async () => {
      const customerId = randomUUID();
      const before = Date.now();
      const res = await createLink({ customer_id: customerId.toUpperCase(), user_id: 'user-42', integration: 'google_gmail' }).expect(201);
      expect(res.body).toEqual({ url: expect.any(String), expires_at: expect.any(String), intent: 'connect' });
      expect(readConnectLink(res.body.url)).toMatchObject({
        customerId,
        userId: 'user-42',
        integration: 'google_gmail',
        returnUrl: null,
        origin: 'admin',
        replace: false,
      });
      const ttlMs = Date.parse(res.body.expires_at) - before;
      expect(ttlMs).toBeGreaterThan(3590_000);
      expect(ttlMs).toBeLessThanOrEqual(3601_000);
    });

    it('when the return_url is under a HUB_CONNECT_RETURN_URLS prefix, then the link carries it', async () => {
      const customerId = randomUUID();
      const returnUrl = `${RETURN_PREFIX}/integrations?done=1`;
      const res = await createLink({ customer_id: customerId, user_id: null, integration: 'google_calendar', return_url: returnUrl }).expect(201);
      expect(readConnectLink(res.body.url)).toMatchObject({ customerId, userId: null, integration: 'google_calendar', returnUrl });
    });

    it('when the intent is "replace", then the link says so; any other intent is a VALIDATION_ERROR', async () => {
      const customerId = randomUUID();
      const res = await createLink({ customer_id: customerId, integration: 'google_calendar', intent: 'replace' }).expect(201);
      expect(res.body.intent).toBe('replace');
      expect(readConnectLink(res.body.url)).toMatchObject({ customerId, origin: 'admin', replace: true });
      const bad = await createLink({ customer_id: customerId, integration: 'google_calendar', intent: 'overwrite' }).expect(400);
      expect(bad.body.error.details.issues).toEqual([{ path: 'intent', message: 'must be connect or replace' }]);
    });

    it('when a customer token asks for its own customer, then 201', async () => {
      const customerId = randomUUID();
      const res = await createLink({ customer_id: customerId, integration: 'google_calendar' }, asCustomer(customerId.toUpperCase())).expect(201);
      expect(readConnectLink(res.body.url)).toMatchObject({ customerId, userId: null, integration: 'google_calendar', origin: 'admin' });
    });

    it.each([
      ['another origin', 'https://evil.example/settings'],
      ['a look-alike host', 'https://app.example.com.evil.test/settings'],
      ['a sibling path', 'https://app.example.com/settings-evil'],
      ['a path escaping the prefix', 'https://app.example.com/settings/../admin'],
      ['credentials in the URL', 'https://user:pw@app.example.com/settings'],
      ['not a URL', 'javascript:alert(1)'],
    ])('when the return_url is %s, then 400 VALIDATION_ERROR naming HUB_CONNECT_RETURN_URLS', async (_case, returnUrl) => {
      const res = await createLink({ customer_id: randomUUID(), integration: 'google_calendar', return_url: returnUrl }).expect(400);
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'return_url is not allowed',
        details: { issues: [{ path: 'return_url', message: 'must start with one of the URL prefixes on HUB_CONNECT_RETURN_URLS' }] },
        retryable: false,
      });
    });

    it('when the body is invalid, then 400 VALIDATION_ERROR with every issue', async () => {
      const res = await createLink({ customer_id: 'nope', user_id: '', integration: 'google_drive', extra: 1 }).expect(400);
      expect(res.body.error.details.issues).toEqual(
        expect.arrayContaining([
          { path: 'customer_id', message: 'must be a UUID' },
          { path: 'integration', message: 'must be one of google_calendar, google_gmail, outlook_calendar, outlook_mail' },
          { path: 'extra', message: 'unknown field' },
          expect.objectContaining({ path: 'user_id' }),
        ]),
      );
    });

    it('when the body is not JSON, then 400 VALIDATION_ERROR (after authentication)', async () => {
      await api().post('/api/admin/connect-links').set('Authorization', asAdmin()).set('Content-Type', 'text/plain').send('hi').expect(400);
      await api().post('/api/admin/connect-links').set('Content-Type', 'text/plain').send('hi').expect(401);
    });
  });

  describe('GET /api/admin/customers/{customer_id}/integrations', () => {
    it('when a customer has customer-wide and per-user connections, then every one is listed with its status and no token', async () => {
      const customerId = randomUUID();
      const wide = aCredential({ customerId, tokenExpiresAt: new Date('2030-02-15T00:00:00Z'), lastRefreshedAt: new Date('2030-02-14T23:00:00Z') });
      const partial = aCredential({ customerId, userId: 'user-7', scopes: [googleScope('calendar.readonly')] });
      const mail = aCredential({ customerId, integration: 'google_gmail', scopes: GMAIL_SCOPES, accountEmail: 'mail@example.com' });
      const saved = await hub.store.save(wide);
      await hub.store.save(partial);
      const gmail = await hub.store.save(mail);
      await hub.store.markExpired(gmail.id, 'invalid_grant');

      const res = await list(customerId.toUpperCase()).expect(200);
      expect(res.body.customer_id).toBe(customerId);
      expect(res.body.integrations).toEqual([
        {
          integration: 'google_calendar',
          user_id: null,
          source: 'customer',
          status: 'connected',
          connected: true,
          account_email: 'owner@example.com',
          scopes: ['calendar.readonly', 'calendar.events'],
          missing_scopes: [],
          expires_at: '2030-02-15T00:00:00.000Z',
          last_refreshed_at: '2030-02-14T23:00:00.000Z',
          grant: { expires_at: '2030-08-13T23:00:00.000Z', health: 'ok', reason: null },
          last_error: null,
          last_error_at: null,
          created_at: saved.createdAt.toISOString(),
          updated_at: saved.updatedAt.toISOString(),
          tools_available: [
            'calendar_create_event',
            'calendar_delete_event',
            'calendar_find_optimal_times',
            'calendar_get_availability',
            'calendar_list_calendars',
            'calendar_update_event',
            'hub_current_time',
            'test_calendar_probe',
            'test_calendar_timezone',
            'test_leaky',
          ],
          working_hours: { start: '09:00', end: '17:00', days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] },
          working_hours_source: 'default',
        },
        expect.objectContaining({
          integration: 'google_calendar',
          user_id: 'user-7',
          source: 'user',
          status: 'insufficient_scopes',
          connected: true,
          scopes: ['calendar.readonly'],
          missing_scopes: ['calendar.events'],
          tools_available: [
            'calendar_find_optimal_times',
            'calendar_get_availability',
            'calendar_list_calendars',
            'hub_current_time',
            'test_calendar_timezone',
            'test_leaky',
          ],
          setup_url: aSetupUrl(customerId, 'google_calendar', 'user-7'),
        }),
        expect.objectContaining({
          integration: 'google_gmail',
          user_id: null,
          status: 'expired',
          connected: false,
          account_email: 'mail@example.com',
          last_error: 'invalid_grant',
          last_error_at: expect.any(String),
          grant: { expires_at: expect.any(String), health: 'expired', reason: 'revoked' },
          tools_available: [],
          setup_url: aSetupUrl(customerId, 'google_gmail'),
        }),
      ]);
      for (const secret of [wide, partial, mail].flatMap((c) => [c.accessToken, c.refreshToken!])) expect(res.text).not.toContain(secret);
      expect(res.text).not.toMatch(/token"|key_id|sealed/);
    });

    it('when a customer has no connections, then an empty list', async () => {
      const customerId = randomUUID();
      await hub.store.save(aCredential()); // someone else's
      expect((await list(customerId).expect(200)).body).toEqual({ customer_id: customerId, integrations: [] });
    });

    it('when a customer token lists its own customer, then 200', async () => {
      const input = aCredential();
      await hub.store.save(input);
      const res = await list(input.customerId, asCustomer(input.customerId)).expect(200);
      expect(res.body.integrations).toHaveLength(1);
    });

    it('when the customer id is not a UUID or the query has unknown parameters, then 400 VALIDATION_ERROR', async () => {
      const bad = await list('not-a-uuid').expect(400);
      expect(bad.body.error.details.issues).toEqual([{ path: 'customer_id', message: 'must be a UUID' }]);
      const query = await api().get(`/api/admin/customers/${randomUUID()}/integrations?user_id=x`).set('Authorization', asAdmin()).expect(400);
      expect(query.body.error.details.issues).toEqual([{ path: 'query.user_id', message: 'unknown field' }]);
    });

    it('when the credential store is unreachable, then 503 SERVICE_UNAVAILABLE (retryable)', async () => {
      const down = await buildTestHub({ db: unreachableDb() });
      try {
        const res = await client(down.app).get(`/api/admin/customers/${randomUUID()}/integrations`).set('Authorization', asAdmin()).expect(503);
        expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true, retry_after_s: 2 });
      } finally {
        await down.close();
      }
    });
  });

  describe('npm run admin-token', () => {
    const run = (argv: string[], env: Record<string, string | undefined> = testEnv()) => {
      let out = '';
      let err = '';
      const status = runAdminTokenCli(argv, env, { out: (s) => (out += s), err: (s) => (err += s) });
      return { status, out, err };
    };

    it('when minting an admin token, then it prints only the token and the admin API accepts it for any customer', async () => {
      const { status, out, err } = run(['--admin']);
      expect({ status, err }).toEqual({ status: 0, err: '' });
      expect(out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
      await list(randomUUID(), bearer(out.trim())).expect(200);
      expect(jwt.decode(out.trim())).toMatchObject({ role: 'hub_admin', iss: 'hub-admin', aud: 'hub-admin-api' });
    });

    it('when minting a customer token, then it acts on that customer only and lives --ttl seconds', async () => {
      const customerId = randomUUID();
      const { status, out } = run(['--customer', customerId.toUpperCase(), '--ttl', '120']);
      expect(status).toBe(0);
      const token = out.trim();
      await list(customerId, bearer(token)).expect(200);
      await list(randomUUID(), bearer(token)).expect(403);
      const claims = jwt.decode(token) as Record<string, number | string>;
      expect(claims.customer_id).toBe(customerId);
      expect(Number(claims.exp) - Number(claims.iat)).toBe(120);
    });

    it('when HUB_ADMIN_JWT_MAX_TTL_S is lowered or raised, then --ttl is bounded by it, so no minted token is one the Hub refuses', () => {
      expect(run(['--admin', '--ttl', '7200'], { ...testEnv(), HUB_ADMIN_JWT_MAX_TTL_S: '3600' })).toMatchObject({
        status: 2,
        out: '',
        err: expect.stringContaining('between 1 and 3600 (HUB_ADMIN_JWT_MAX_TTL_S)'),
      });
      const long = run(['--admin', '--ttl', String(60 * 86_400)], { ...testEnv(), HUB_ADMIN_JWT_MAX_TTL_S: String(90 * 86_400) });
      expect(long.status).toBe(0);
      const claims = jwt.decode(long.out.trim()) as Record<string, number>;
      expect(claims.exp! - claims.iat!).toBe(60 * 86_400);
    });

    it('when mintAdminToken is used directly, then its token is accepted', async () => {
      const token = mintAdminToken({
        key: { algorithm: 'HS256', secret: ADMIN_JWT_SECRET },
        issuer: 'hub-admin',
        audience: 'hub-admin-api',
        subject: { kind: 'admin' },
        ttlS: 60,
      });
      await list(randomUUID(), bearer(token)).expect(200);
    });

    it.each([
      ['neither --admin nor --customer', [], 'give exactly one of --customer <uuid> or --admin'],
      ['both', ['--admin', '--customer', randomUUID()], 'give exactly one of --customer <uuid> or --admin'],
      ['a customer that is not a UUID', ['--customer', 'acme'], '--customer must be a UUID'],
      ['a zero ttl', ['--admin', '--ttl', '0'], '--ttl must be whole seconds between 1 and'],
      [
        'a ttl over 30 days (the default HUB_ADMIN_JWT_MAX_TTL_S)',
        ['--admin', '--ttl', '2592001'],
        '--ttl must be whole seconds between 1 and 2592000 (HUB_ADMIN_JWT_MAX_TTL_S)',
      ],
      ['a fractional ttl', ['--admin', '--ttl', '1.5'], '--ttl must be whole seconds'],
      ['an unknown option', ['--admin', '--forever'], "Unknown option '--forever'"],
      ['a private key on an HS256 Hub', ['--admin', '--private-key-file', '/nonexistent'], '--private-key-file is for RS256'],
    ])('when given %s, then it exits 2 with usage and prints no token', (_case, argv, message) => {
      const { status, out, err } = run(argv);
      expect(status).toBe(2);
      expect(out).toBe('');
      expect(err).toContain(message);
      expect(err).toContain('usage: npm run admin-token');
    });

    describe('without HUB_ADMIN_JWT_SECRET', () => {
      let dataDir: string;
      beforeEach(() => {
        dataDir = mkdtempSync(join(tmpdir(), 'hub-admin-token-'));
      });
      afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

      it('when npm run demo saved a secret in the data directory, then that secret signs the token', async () => {
        writeFileSync(join(dataDir, 'demo-secrets.json'), JSON.stringify({ HUB_SERVICE_SECRETS: 'x', HUB_ADMIN_JWT_SECRET: ADMIN_JWT_SECRET }));
        const { status, out } = run(['--admin'], { HUB_DATA_DIR: dataDir });
        expect(status).toBe(0);
        await list(randomUUID(), bearer(out.trim())).expect(200);
      });

      it('when there is no saved demo secret either, then it explains what to set', () => {
        const { status, out, err } = run(['--admin'], { HUB_DATA_DIR: dataDir });
        expect({ status, out }).toEqual({ status: 2, out: '' });
        expect(err).toContain('no admin key: set HUB_ADMIN_JWT_SECRET (HS256) or HUB_ADMIN_JWT_PUBLIC_KEY with --private-key-file (RS256)');
        expect(err).toContain('npm run demo');
      });

      it('when the configured secret is too short, then the configuration error is reported (not the secret)', () => {
        const { status, err } = run(['--admin'], { HUB_ADMIN_JWT_SECRET: 'short-secret' });
        expect(status).toBe(1);
        expect(err).toContain('HUB_ADMIN_JWT_SECRET: must be at least 32 characters');
        expect(err).not.toContain('short-secret');
      });
    });
  });
});

describe('admin API with RS256 (HUB_ADMIN_JWT_PUBLIC_KEY)', () => {
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  let hub: TestHub;
  let keyDir: string;
  const list = (authorization: string, customerId = randomUUID()) =>
    client(hub.app).get(`/api/admin/customers/${customerId}/integrations`).set('Authorization', authorization);

  beforeAll(async () => {
    hub = await buildTestHub({ env: { HUB_ADMIN_JWT_SECRET: undefined, HUB_ADMIN_JWT_PUBLIC_KEY: pair.publicKey } });
    keyDir = mkdtempSync(join(tmpdir(), 'hub-admin-key-'));
  });
  afterAll(async () => {
    rmSync(keyDir, { recursive: true, force: true });
    await hub.close();
  });

  it('when a token is signed with the private key, then it is accepted', async () => {
    await list(asAdmin({ alg: 'RS256', key: pair.privateKey })).expect(200);
  });

  it.each([
    ['HS256 keyed with the public key (algorithm confusion)', () => asAdmin({ alg: 'HS256', key: pair.publicKey })],
    ['HS256 keyed with the test secret', () => asAdmin()],
    ['RS256 signed with another key pair', () => asAdmin({ alg: 'RS256', key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey })],
    ['unsigned (alg none)', () => asAdmin({ alg: 'none' })],
  ])('when a token is %s, then 401 invalid_token', async (_case, authorization) => {
    const res = await list(authorization()).expect(401);
    expect(res.body.error).toEqual({ code: 'UNAUTHORIZED', message: 'The admin token is invalid', retryable: false });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="hub-admin", error="invalid_token"');
  });

  it('when return URLs are not configured, then any return_url is refused', async () => {
    const res = await client(hub.app)
      .post('/api/admin/connect-links')
      .set('Authorization', asAdmin({ alg: 'RS256', key: pair.privateKey }))
      .send({ customer_id: randomUUID(), integration: 'google_calendar', return_url: 'https://app.example.com/settings' })
      .expect(400);
    expect(res.body.error.details.issues[0].path).toBe('return_url');
  });

  it('when the CLI is given the matching private key file, then its token is accepted; without one it explains', async () => {
    const file = join(keyDir, 'admin.pem');
    writeFileSync(file, pair.privateKey, { mode: 0o600 });
    const env = testEnv({ HUB_ADMIN_JWT_SECRET: undefined, HUB_ADMIN_JWT_PUBLIC_KEY: pair.publicKey });
    let out = '';
    let err = '';
    const io = { out: (s: string) => (out += s), err: (s: string) => (err += s) };
    const customerId = randomUUID();
    expect(runAdminTokenCli(['--customer', customerId, '--private-key-file', file], env, io)).toBe(0);
    await list(bearer(out.trim()), customerId).expect(200);
    expect(jwt.decode(out.trim(), { complete: true })?.header.alg).toBe('RS256');

    out = '';
    expect(runAdminTokenCli(['--admin'], env, io)).toBe(2);
    expect(err).toContain('give the matching private key with --private-key-file <path>');
    expect(out).toBe('');

    const other = join(keyDir, 'other.pem');
    writeFileSync(
      other,
      generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey,
    );
    expect(runAdminTokenCli(['--admin', '--private-key-file', other], env, io)).toBe(2);
    expect(err).toContain('does not match HUB_ADMIN_JWT_PUBLIC_KEY');
    expect(out).toBe('');
  });
});
