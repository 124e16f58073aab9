import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type request from 'supertest';
import { runAdminLoginCli } from '../../src/cli/admin-login';
import { createSessions } from '../../src/console/sessions';
import { createSignInLinks } from '../../src/console/sign-in-links';
import { adminToken, asAdmin, asCustomer } from '../helpers/admin';
import { openTestDb, preferredDriver, type TestDb } from '../helpers/db';
import { KEY_1, PUBLIC_URL, testEnv } from '../helpers/env';
import { aCredential, GMAIL_SCOPES } from '../helpers/factories';
import { client } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

/**
 * The admin console's sign-in and sessions over HTTP (the browser suite drives the pages): one-time links,
 * cookie flags, the CSRF header on the admin API, customer scoping, sign-out, admin-JWT sign-in (HS256 and
 * RS256), and GET /api/admin/customers. The test Hub's public URL is https, so cookies must be Secure.
 */

const links = () => createSignInLinks({ publicUrl: PUBLIC_URL, encryptionKeys: [{ id: 'k1', key: Buffer.from(KEY_1, 'base64') }] });
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const cookieOf = (res: request.Response) => ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0] ?? '';
const csrfOf = (html: string) => /<meta name="hub-csrf" content="([^"]+)">/.exec(html)?.[1] ?? '';

describe('admin console sign-in and sessions', () => {
  let hub: TestHub;
  const customerA = randomUUID();
  const customerB = randomUUID();

  /** Signs in with a fresh link; the session cookie (name=value) and the page's CSRF token. */
  async function signIn(principal: { kind: 'admin' } | { kind: 'customer'; customerId: string }) {
    const res = await client(hub.app)
      .post('/admin/sign-in')
      .type('form')
      .send({ token: tokenOf(links().create(principal, 600).url) })
      .expect(303);
    const cookie = cookieOf(res).split(';')[0]!;
    const page = await client(hub.app)
      .get(res.headers.location as string)
      .set('Cookie', cookie)
      .expect(200);
    return { cookie, csrf: csrfOf(page.text), location: res.headers.location as string };
  }

  beforeAll(async () => {
    hub = await buildTestHub();
    await hub.store.save(aCredential({ customerId: customerA, integration: 'google_gmail', scopes: GMAIL_SCOPES, accountEmail: 'a@example.com' }));
    await hub.store.save(aCredential({ customerId: customerB, integration: 'google_gmail', scopes: GMAIL_SCOPES.slice(0, 1), accountEmail: 'b@example.com' }));
  });
  afterAll(() => hub.close());

  test('when a sign-in link is opened, then the page only offers to redeem it; the POST sets an HttpOnly, Secure, SameSite=Strict cookie', async () => {
    const url = links().create({ kind: 'admin' }, 600).url;
    const page = await client(hub.app)
      .get(new URL(url).pathname + new URL(url).search)
      .expect(200);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'.*script-src 'self'.*frame-ancestors 'none'/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const res = await client(hub.app)
      .post('/admin/sign-in')
      .type('form')
      .send({ token: tokenOf(url) })
      .expect(303);
    expect(res.headers.location).toBe('/admin');
    expect(cookieOf(res)).toMatch(/^hub_admin_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$/);
  });

  test('when a sign-in link is used twice, then the second use is refused (410) and starts no session', async () => {
    const token = tokenOf(links().create({ kind: 'admin' }, 600).url);
    await client(hub.app).post('/admin/sign-in').type('form').send({ token }).expect(303);
    const again = await client(hub.app).post('/admin/sign-in').type('form').send({ token }).expect(410);
    expect(again.text).toContain('used already');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  test('when a sign-in link is expired, forged, or posted from another site, then no session starts', async () => {
    const old = createSignInLinks({
      publicUrl: PUBLIC_URL,
      encryptionKeys: [{ id: 'k1', key: Buffer.from(KEY_1, 'base64') }],
      now: () => Date.now() - 601_000,
    });
    await client(hub.app)
      .post('/admin/sign-in')
      .type('form')
      .send({ token: tokenOf(old.create({ kind: 'admin' }, 600).url) })
      .expect(410);
    const forged = createSignInLinks({ publicUrl: PUBLIC_URL, encryptionKeys: [{ id: 'k1', key: Buffer.alloc(32, 7) }] });
    await client(hub.app)
      .post('/admin/sign-in')
      .type('form')
      .send({ token: tokenOf(forged.create({ kind: 'admin' }, 600).url) })
      .expect(400);
    const good = tokenOf(links().create({ kind: 'admin' }, 600).url);
    await client(hub.app).post('/admin/sign-in').set('Sec-Fetch-Site', 'cross-site').type('form').send({ token: good }).expect(403);
    expect(() => links().create({ kind: 'admin' }, 601)).toThrow(); // never longer than ten minutes
  });

  test('when the console calls the admin API with its cookie, then the CSRF header is required and the session acts as its principal', async () => {
    const { cookie, csrf } = await signIn({ kind: 'admin' });
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const noCsrf = await client(hub.app).get('/api/admin/customers').set('Cookie', cookie).expect(403);
    expect(noCsrf.body.error.code).toBe('FORBIDDEN');
    await client(hub.app)
      .delete(`/api/admin/customers/${customerA}/integrations/google_gmail`)
      .set('Cookie', cookie)
      .set('X-CSRF-Token', 'x'.repeat(43))
      .expect(403);
    const listed = await client(hub.app).get('/api/admin/customers').set('Cookie', cookie).set('X-CSRF-Token', csrf).expect(200);
    expect(listed.body.customers.map((c: { customer_id: string }) => c.customer_id)).toEqual(expect.arrayContaining([customerA, customerB]));
  });

  test('when a customer-scoped session asks for another customer, then the API refuses it (403), whatever the page asks', async () => {
    const { cookie, csrf, location } = await signIn({ kind: 'customer', customerId: customerA });
    expect(location).toBe(`/admin/customers/${customerA}`);
    const auth = (r: request.Test) => r.set('Cookie', cookie).set('X-CSRF-Token', csrf);
    await auth(client(hub.app).get(`/api/admin/customers/${customerA}/integrations`)).expect(200);
    const other = await auth(client(hub.app).get(`/api/admin/customers/${customerB}/integrations`)).expect(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    await auth(client(hub.app).post('/api/admin/connect-links')).send({ customer_id: customerB, integration: 'google_gmail' }).expect(403);
    const listed = await auth(client(hub.app).get('/api/admin/customers')).expect(200);
    expect(listed.body).toEqual({ customers: [expect.objectContaining({ customer_id: customerA })], next_after: null });
  });

  test('when a session signs out, then its cookie opens neither the API nor the pages', async () => {
    const { cookie, csrf } = await signIn({ kind: 'admin' });
    await client(hub.app).post('/admin/sign-out').set('Cookie', cookie).expect(403); // no CSRF header
    const out = await client(hub.app).post('/admin/sign-out').set('Cookie', cookie).set('X-CSRF-Token', csrf).expect(200);
    expect(cookieOf(out)).toMatch(/^hub_admin_session=; Path=\/; Max-Age=0;/);
    await client(hub.app).get('/api/admin/customers').set('Cookie', cookie).set('X-CSRF-Token', csrf).expect(401);
    const page = await client(hub.app).get('/admin').set('Cookie', cookie).expect(303);
    expect(page.headers.location).toBe('/admin/sign-in');
  });

  test('when an admin JWT (HS256) is posted to the JWT sign-in, then it starts a session for whoever it speaks for', async () => {
    const res = await client(hub.app)
      .post('/admin/sign-in/jwt')
      .type('form')
      .send({ jwt: adminToken({ customer_id: customerB }) })
      .expect(303);
    expect(res.headers.location).toBe(`/admin/customers/${customerB}`);
    await client(hub.app)
      .post('/admin/sign-in/jwt')
      .type('form')
      .send({ jwt: adminToken({ role: 'hub_admin', exp: Math.floor(Date.now() / 1000) - 60, iat: Math.floor(Date.now() / 1000) - 120 }) })
      .expect(401);
  });

  test('when the Hub verifies RS256 admin JWTs (an identity provider), then a token signed with its private key signs in', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs = await buildTestHub({
      env: { HUB_ADMIN_JWT_SECRET: undefined, HUB_ADMIN_JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    });
    try {
      const res = await client(rs.app)
        .post('/admin/sign-in/jwt')
        .type('form')
        .send({ jwt: adminToken({ role: 'hub_admin', alg: 'RS256', key: privateKey }) })
        .expect(303);
      expect(res.headers.location).toBe('/admin');
      await client(rs.app)
        .post('/admin/sign-in/jwt')
        .type('form')
        .send({ jwt: adminToken({ role: 'hub_admin' }) })
        .expect(401); // HS256 refused
    } finally {
      await rs.close();
    }
  });

  test('when GET /api/admin/customers is paged, then every customer with connections comes once, with a badge per connection', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const res: request.Response = await client(hub.app)
        .get(`/api/admin/customers?limit=1${after ? `&after=${after}` : ''}`)
        .set('Authorization', asAdmin())
        .expect(200);
      seen.push(...res.body.customers.map((c: { customer_id: string }) => c.customer_id));
      after = res.body.next_after;
    } while (after !== null);
    expect(seen).toEqual([customerA, customerB].sort());
    const b = await client(hub.app).get('/api/admin/customers').set('Authorization', asCustomer(customerB)).expect(200);
    expect(b.body.customers[0].connections).toEqual([
      { integration: 'google_gmail', user_id: null, account_email: 'b@example.com', health: 'insufficient_scopes' },
    ]);
    await client(hub.app).get('/api/admin/customers?limit=101').set('Authorization', asAdmin()).expect(400);
  });

  test("when `npm run admin-login` runs with the Hub's configuration, then it prints a link this Hub redeems", async () => {
    let out = '';
    const status = runAdminLoginCli(['--customer', customerA], testEnv(), { out: (s) => (out += s), err: () => {} });
    expect(status).toBe(0);
    const res = await client(hub.app)
      .post('/admin/sign-in')
      .type('form')
      .send({ token: tokenOf(out.trim()) })
      .expect(303);
    expect(res.headers.location).toBe(`/admin/customers/${customerA}`);
    expect(runAdminLoginCli(['--admin', '--customer', customerA], testEnv(), { out: () => {}, err: () => {} })).toBe(2);
  });
});

describe('admin console sessions: idle timeout and absolute lifetime', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(preferredDriver());
  });
  afterAll(() => testDb.drop());

  test('when a session sits idle past the timeout, or lives past its lifetime however active, then it is gone', async () => {
    let t = Date.parse('2026-11-23T10:00:00Z');
    const sessions = createSessions(testDb.db, { idleS: 600, maxS: 3600 }, () => t);
    const idle = await sessions.start({ kind: 'admin' }, 'link');
    t += 599_000;
    expect(await sessions.resolve(idle.token)).not.toBeNull();
    t += 601_000; // 601 s after the last request
    expect(await sessions.resolve(idle.token)).toBeNull();

    const busy = await sessions.start({ kind: 'customer', customerId: randomUUID() }, 'link');
    for (let i = 0; i < 6; i++) {
      t += 500_000; // a request every 500 s keeps it from idling…
      expect(await sessions.resolve(busy.token)).not.toBeNull();
    }
    t += 600_001; // …but 3,600 s after it started it ends
    expect(await sessions.resolve(busy.token)).toBeNull();
  });
});

describe('admin console without its browser files', () => {
  test('when the Hub was started from sources without a build, then a signed-in page says so with a 503 (the admin API still answers)', async () => {
    const hub = await buildTestHub({ consoleAssets: null });
    try {
      const res = await client(hub.app)
        .post('/admin/sign-in')
        .type('form')
        .send({ token: tokenOf(links().create({ kind: 'admin' }, 600).url) })
        .expect(303);
      const cookie = cookieOf(res).split(';')[0]!;
      const page = await client(hub.app).get('/admin').set('Cookie', cookie).expect(503);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('npm run build');
      await client(hub.app).get('/api/admin/customers').set('Authorization', asAdmin()).expect(200);
    } finally {
      await hub.close();
    }
  });
});
