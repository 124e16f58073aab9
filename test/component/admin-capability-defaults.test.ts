import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { aCredential } from '../helpers/factories';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * The default provider per capability (issue 33): listed with what a customer-wide call resolves to now, set to
 * either provider (connected or not yet), cleared back to "the first connected" — validated, and only for whom the
 * token may act on.
 */

let hub: TestHub;
const api = () => client(hub.app);
const base = (customerId: string) => `/api/admin/customers/${customerId}/defaults`;
const list = (customerId: string, auth = asAdmin()) => api().get(base(customerId)).set('Authorization', auth);
const put = (customerId: string, capability: string, body: unknown, auth = asAdmin()) =>
  api()
    .put(`${base(customerId)}/${capability}`)
    .set('Authorization', auth)
    .send(body as object);
const clear = (customerId: string, capability: string, auth = asAdmin()) =>
  api()
    .delete(`${base(customerId)}/${capability}`)
    .set('Authorization', auth);

beforeAll(async () => {
  hub = await buildTestHub();
});
afterAll(() => hub.close());

/** A customer-wide calendar connection of each provider, Google first. */
async function bothCalendars(customerId = randomUUID()) {
  await hub.store.save(aCredential({ customerId, integration: 'google_calendar' }));
  await new Promise((resolve) => setTimeout(resolve, 5)); // distinct created_at: Google is the first connected
  // The store's own type knows Google's integrations only until the providers are wired; the table takes Outlook's.
  await hub.store.save(aCredential({ customerId, integration: 'outlook_calendar' as never, scopes: ['Calendars.ReadWrite'] }));
  return customerId;
}

describe('listing the defaults', () => {
  test('when nothing is connected or set, then every capability shows no default and resolves to nothing', async () => {
    const customerId = randomUUID();
    const res = await list(customerId).expect(200);
    expect(res.body).toEqual({
      customer_id: customerId,
      capabilities: [
        { capability: 'calendar', default_provider: null, default_updated_at: null, connected_providers: [], resolves_to: null },
        { capability: 'mail', default_provider: null, default_updated_at: null, connected_providers: [], resolves_to: null },
      ],
    });
  });

  test('when both providers are connected and no default is recorded, then the calendar resolves to the first connected', async () => {
    const customerId = await bothCalendars();
    const res = await list(customerId).expect(200);
    expect(res.body.capabilities[0]).toMatchObject({
      capability: 'calendar',
      default_provider: null,
      connected_providers: ['google', 'microsoft'],
      resolves_to: { provider: 'google', integration: 'google_calendar', reason: 'first_connected' },
    });
  });

  test('when only an end user connected, then the customer-wide resolution still shows nothing', async () => {
    const customerId = randomUUID();
    await hub.store.save(aCredential({ customerId, userId: 'u-1', integration: 'google_calendar' }));
    expect((await list(customerId).expect(200)).body.capabilities[0]).toMatchObject({ connected_providers: [], resolves_to: null });
  });
});

describe('setting and clearing a default', () => {
  test('when an admin sets Microsoft for the calendar, then it is the default and the calendar resolves to it', async () => {
    const customerId = await bothCalendars();
    const res = await put(customerId, 'calendar', { provider: 'microsoft' }).expect(200);
    expect(res.body).toMatchObject({
      customer_id: customerId,
      capability: 'calendar',
      default_provider: 'microsoft',
      resolves_to: { provider: 'microsoft', integration: 'outlook_calendar', reason: 'default' },
    });
    expect(Date.parse(res.body.default_updated_at)).not.toBeNaN();
    expect((await list(customerId).expect(200)).body.capabilities[0]).toMatchObject({ default_provider: 'microsoft' });
    expect((await list(customerId).expect(200)).body.capabilities[1]).toMatchObject({ capability: 'mail', default_provider: null });
  });

  test('when the default names a provider not connected, then it is stored and the connected one still answers', async () => {
    const customerId = randomUUID();
    await hub.store.save(aCredential({ customerId, integration: 'google_calendar' }));
    const res = await put(customerId, 'calendar', { provider: 'microsoft' }).expect(200);
    expect(res.body).toMatchObject({ default_provider: 'microsoft', resolves_to: { provider: 'google', reason: 'only_connected' } });
  });

  test('when the default is cleared, then the first connected answers again, and clearing twice is harmless', async () => {
    const customerId = await bothCalendars();
    await put(customerId, 'calendar', { provider: 'microsoft' }).expect(200);
    const res = await clear(customerId, 'calendar').expect(200);
    expect(res.body).toMatchObject({ default_provider: null, default_updated_at: null, resolves_to: { provider: 'google', reason: 'first_connected' } });
    await clear(customerId, 'calendar').expect(200);
  });
});

describe('bad requests', () => {
  test('when the capability is unknown, then 400 VALIDATION_ERROR names it', async () => {
    const customerId = randomUUID();
    for (const res of [await put(customerId, 'fax', { provider: 'google' }), await clear(customerId, 'fax')]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain('capability');
    }
  });

  test('when the provider is missing or unknown, then 400 VALIDATION_ERROR names provider', async () => {
    for (const body of [{}, { provider: 'yahoo' }, { provider: null }]) {
      const res = await put(randomUUID(), 'mail', body).expect(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain('provider');
    }
  });

  test('when the body has an unknown field, then 400 VALIDATION_ERROR and nothing is stored', async () => {
    const customerId = randomUUID();
    const res = await put(customerId, 'mail', { provider: 'google', sticky: true }).expect(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await list(customerId).expect(200)).body.capabilities[1]).toMatchObject({ default_provider: null });
  });

  test('when customer_id is not a UUID, then 400 VALIDATION_ERROR', async () => {
    expect((await list('not-a-uuid').expect(400)).body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('who may', () => {
  test('when there is no admin token, then 401 and nothing changes', async () => {
    const customerId = randomUUID();
    await api().get(base(customerId)).expect(401);
    await api()
      .put(`${base(customerId)}/calendar`)
      .send({ provider: 'google' })
      .expect(401);
    await api()
      .delete(`${base(customerId)}/calendar`)
      .set('Authorization', 'ServiceSecret x')
      .expect(401);
    expect((await list(customerId).expect(200)).body.capabilities[0]).toMatchObject({ default_provider: null });
  });

  test('when a customer-scoped token names another customer, then 403; its own customer works', async () => {
    const customerId = randomUUID();
    await put(customerId, 'calendar', { provider: 'google' }, asCustomer(randomUUID())).expect(403);
    await list(customerId, asCustomer(randomUUID())).expect(403);
    await put(customerId, 'calendar', { provider: 'google' }, asCustomer(customerId)).expect(200);
    expect((await list(customerId, asCustomer(customerId)).expect(200)).body.capabilities[0]).toMatchObject({ default_provider: 'google' });
  });
});
