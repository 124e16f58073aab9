import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { aCredential, GMAIL_SCOPES } from '../helpers/factories';
import { client } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

/**
 * Customers' display names over HTTP: PUT /api/admin/customers/{customer_id} sets one (validated, scoped to a
 * customer token's own customer, logged with the actor), GET /api/admin/customers shows and searches them, and
 * GET /api/admin/customers/{customer_id} answers any customer with its name and webhook endpoint, or nulls.
 */

describe('admin API: customer display names', () => {
  let hub: TestHub;
  // Ids chosen so that an id-prefix search has something to tell apart.
  const acme = 'a1c0ffee-0000-4000-8000-000000000001';
  const globex = 'b2c0ffee-0000-4000-8000-000000000002';
  const unnamed = 'c3c0ffee-0000-4000-8000-000000000003';
  const admin = asAdmin({ claims: { sub: 'ops@example.com' } });
  const put = (customerId: string, body: unknown, auth = admin) =>
    client(hub.app)
      .put(`/api/admin/customers/${customerId}`)
      .set('Authorization', auth)
      .send(body as object);
  const list = (query = '') => client(hub.app).get(`/api/admin/customers${query}`).set('Authorization', admin).expect(200);

  beforeAll(async () => {
    hub = await buildTestHub({ env: { HUB_WEBHOOK_ALLOW_PRIVATE: 'true' } }); // a local receiver address, never called here
    await hub.store.save(aCredential({ customerId: acme, integration: 'google_gmail', scopes: GMAIL_SCOPES, accountEmail: 'a@example.com' }));
    await hub.store.save(aCredential({ customerId: unnamed, integration: 'google_gmail', scopes: GMAIL_SCOPES, accountEmail: 'c@example.com' }));
  }, 60_000);
  afterAll(() => hub.close());

  test('when an admin names a customer, then the name is stored, listed and shown with who set it', async () => {
    const res = await put(acme, { display_name: '  Acme Travel  ' }).expect(200);
    expect(res.body).toEqual({
      customer_id: acme,
      display_name: 'Acme Travel',
      display_name_updated_at: expect.any(String),
      display_name_updated_by: 'ops@example.com',
    });
    const listed = await list();
    expect(listed.body.customers.map((c: { customer_id: string; display_name: string | null }) => [c.customer_id, c.display_name])).toEqual([
      [acme, 'Acme Travel'],
      [unnamed, null],
    ]);
    const one = await client(hub.app).get(`/api/admin/customers/${acme.toUpperCase()}`).set('Authorization', admin).expect(200);
    expect(one.body).toMatchObject({ customer_id: acme, display_name: 'Acme Travel', webhook_endpoint: null });
    expect(hub.logs.entries().some((l) => l.msg === 'customer display name changed' && l.actor === 'ops@example.com')).toBe(true);
    expect(hub.logs.text()).not.toContain('Acme Travel');
  });

  test('when a customer without connections is named, then it is listed too; renaming replaces, null removes the name', async () => {
    await put(globex, { display_name: 'Globex 100%_Corp' }).expect(200);
    expect((await list()).body.customers.map((c: { customer_id: string }) => c.customer_id)).toEqual([acme, globex, unnamed]);
    const listed = (await list()).body.customers[1];
    expect(listed).toEqual({ customer_id: globex, display_name: 'Globex 100%_Corp', connections: [], last_activity_at: expect.any(String) });
    await put(globex, { display_name: 'Globex' }).expect(200);
    expect((await list()).body.customers[1].display_name).toBe('Globex');
    expect((await put(globex, { display_name: null }).expect(200)).body.display_name).toBeNull();
    expect((await list()).body.customers.map((c: { customer_id: string }) => c.customer_id)).toEqual([acme, unnamed]);
    await put(globex, { display_name: 'Globex 100%_Corp' }).expect(200);
  });

  test('when the list is searched, then names match anywhere in any case, ids by their start, and LIKE wildcards literally', async () => {
    const ids = async (q: string) => (await list(`?q=${encodeURIComponent(q)}`)).body.customers.map((c: { customer_id: string }) => c.customer_id);
    expect(await ids('travel')).toEqual([acme]);
    expect(await ids('ACME')).toEqual([acme]);
    expect(await ids('c3c0')).toEqual([unnamed]);
    expect(await ids('b2c0ffee-0000-4')).toEqual([globex]);
    expect(await ids('c0ffee')).toEqual([]); // not a prefix of any id, in no name
    expect(await ids('%')).toEqual([globex]); // only the name that holds a literal %
    expect(await ids('_')).toEqual([globex]);
    expect(await ids('nobody')).toEqual([]);
    // Paged search: one at a time, in id order.
    const first = await list('?q=c&limit=1');
    expect(first.body.customers.map((c: { customer_id: string }) => c.customer_id)).toEqual([acme]);
    const second = await list(`?q=c&limit=1&after=${first.body.next_after}`);
    expect(second.body.customers.map((c: { customer_id: string }) => c.customer_id)).toEqual([globex]);
    await client(hub.app)
      .get(`/api/admin/customers?q=${'x'.repeat(101)}`)
      .set('Authorization', admin)
      .expect(400);
    await client(hub.app).get('/api/admin/customers?q=%20%20').set('Authorization', admin).expect(400);
  });

  test('when a name is empty, too long, has control characters or bidi overrides, or the body has other fields, then 400 names the field', async () => {
    for (const bad of [
      { display_name: '   ' },
      { display_name: 'x'.repeat(101) },
      { display_name: 'a\u0000b' },
      { display_name: 'a\nb' },
      { display_name: 'evil\u202Egnp.exe' },
      { display_name: 5 },
      {},
    ]) {
      const res = await put(acme, bad).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.issues[0].path).toBe('display_name');
    }
    const extra = await put(acme, { display_name: 'Acme', tier: 'gold' }).expect(400);
    expect(extra.body.error.details.issues).toEqual([{ path: 'tier', message: 'unknown field' }]);
    expect((await put(acme, { display_name: 'x'.repeat(100) }).expect(200)).body.display_name).toHaveLength(100);
    await put(acme, { display_name: 'Acme Travel' }).expect(200);
    await put('not-a-uuid', { display_name: 'x' }).expect(400);
  });

  test('when a customer-scoped token names or reads, then only its own customer, and its list searches only itself', async () => {
    await put(unnamed, { display_name: 'Initech' }, asCustomer(unnamed)).expect(200);
    const other = await put(acme, { display_name: 'Hijacked' }, asCustomer(unnamed)).expect(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    await client(hub.app).get(`/api/admin/customers/${acme}`).set('Authorization', asCustomer(unnamed)).expect(403);
    const own = await client(hub.app).get('/api/admin/customers?q=init').set('Authorization', asCustomer(unnamed)).expect(200);
    expect(own.body.customers.map((c: { display_name: string }) => c.display_name)).toEqual(['Initech']);
    const none = await client(hub.app).get('/api/admin/customers?q=acme').set('Authorization', asCustomer(unnamed)).expect(200);
    expect(none.body.customers).toEqual([]);
    const fresh = randomUUID();
    const before = await client(hub.app).get('/api/admin/customers').set('Authorization', asCustomer(fresh)).expect(200);
    expect(before.body.customers).toEqual([]);
    await put(fresh, { display_name: 'Newco' }, asCustomer(fresh)).expect(200);
    const after = await client(hub.app).get('/api/admin/customers').set('Authorization', asCustomer(fresh)).expect(200);
    expect(after.body.customers).toEqual([{ customer_id: fresh, display_name: 'Newco', connections: [], last_activity_at: expect.any(String) }]);
    expect((await list()).body.customers.find((c: { customer_id: string }) => c.customer_id === acme).display_name).toBe('Acme Travel');
  });

  test('when a customer has a webhook endpoint, then GET of the customer shows it (never its secret); without one, null rather than 404', async () => {
    const fresh = randomUUID();
    const none = await client(hub.app).get(`/api/admin/customers/${fresh}`).set('Authorization', admin).expect(200);
    expect(none.body).toEqual({
      customer_id: fresh,
      display_name: null,
      display_name_updated_at: null,
      display_name_updated_by: null,
      webhook_endpoint: null,
      policies: [],
    });
    const url = 'http://127.0.0.1:9/hub-webhooks';
    const made = await client(hub.app).put(`/api/admin/customers/${fresh}/webhook`).set('Authorization', admin).send({ url }).expect(201);
    const shown = await client(hub.app).get(`/api/admin/customers/${fresh}`).set('Authorization', admin).expect(200);
    expect(shown.body.webhook_endpoint).toEqual({
      customer_id: fresh,
      url,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      updated_by: 'ops@example.com',
      previous_secret_valid_until: null,
    });
    expect(JSON.stringify(shown.body)).not.toContain(made.body.secret as string);

    // …and its policies, so a client fetches only those that exist
    const agentId = randomUUID();
    const mine = await client(hub.app)
      .put(`/api/admin/customers/${fresh}/agents/${agentId}/policy`)
      .set('Authorization', admin)
      .send({ max_side_effects: 'reads' })
      .expect(201);
    await client(hub.app).put(`/api/admin/customers/${fresh}/policy`).set('Authorization', admin).send({ require_conversation_id: true }).expect(201);
    const withPolicies = await client(hub.app).get(`/api/admin/customers/${fresh}`).set('Authorization', admin).expect(200);
    expect(withPolicies.body.policies).toEqual([
      { agent_id: null, etag: expect.any(String), updated_at: expect.any(String) },
      { agent_id: agentId, etag: (mine.headers.etag as string).replace(/"/g, ''), updated_at: expect.any(String) },
    ]);
  });

  test('when the request is not authenticated, then 401 for both methods', async () => {
    await client(hub.app).get(`/api/admin/customers/${acme}`).expect(401);
    await client(hub.app).put(`/api/admin/customers/${acme}`).send({ display_name: 'x' }).expect(401);
  });
});
