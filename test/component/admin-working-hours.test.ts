import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { aCredential } from '../helpers/factories';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * Working hours per calendar connection, set by admins (Google Calendar has no API for them): validated, bound
 * to exactly one connection, visible in the connection list, seen by the next tool call at once, kept across a
 * reconnect — and only for whom the token may act on.
 */

const DEFAULT = { start: '09:00', end: '17:00', days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] };
const path = (customerId: string, userId?: string) =>
  `/api/admin/customers/${customerId}/integrations/google_calendar/working-hours${userId ? `?user_id=${encodeURIComponent(userId)}` : ''}`;

let hub: TestHub;
const api = () => client(hub.app);
const put = (customerId: string, body: unknown, options: { userId?: string; auth?: string } = {}) =>
  api()
    .put(path(customerId, options.userId))
    .set('Authorization', options.auth ?? asAdmin())
    .send(body as object);

beforeAll(async () => {
  hub = await buildTestHub();
});
afterAll(() => hub.close());

const aCalendarConnection = async (overrides: Parameters<typeof aCredential>[0] = {}) =>
  hub.store.save(aCredential({ integration: 'google_calendar', ...overrides }));
/** What a tool call would see now (through the same per-process credential cache tool calls use). */
const seenByTools = async (customerId: string, userId: string | null = null) => {
  const resolved = await hub.connections.connect({ name: 'test', capability: 'calendar', permissions: [] }, { customerId, userId });
  if (!resolved.ok) throw new Error(resolved.error.message);
  return resolved.value.workingHours;
};

describe('setting working hours', () => {
  test('when an admin sets them, then the answer, the connection list and the next tool call all show them', async () => {
    const row = await aCalendarConnection();
    expect(await seenByTools(row.customerId)).toBeNull(); // cached now: the change must reach it anyway
    const hours = { start: '08:30', end: '16:30', days: ['thursday', 'monday', 'tuesday'] };
    const res = await put(row.customerId, hours).expect(200);
    expect(res.body).toEqual({
      customer_id: row.customerId,
      user_id: null,
      integration: 'google_calendar',
      working_hours: { start: '08:30', end: '16:30', days: ['monday', 'tuesday', 'thursday'] },
      working_hours_source: 'admin',
    });
    expect(await seenByTools(row.customerId)).toEqual(res.body.working_hours);
    const list = await api().get(`/api/admin/customers/${row.customerId}/integrations`).set('Authorization', asAdmin()).expect(200);
    expect(list.body.integrations[0]).toMatchObject({ working_hours: res.body.working_hours, working_hours_source: 'admin' });
  });

  test('when they are cleared, then the default applies again', async () => {
    const row = await aCalendarConnection();
    await put(row.customerId, { start: '07:00', end: '24:00', days: ['saturday'] }).expect(200);
    const res = await api().delete(path(row.customerId)).set('Authorization', asAdmin()).expect(200);
    expect(res.body).toMatchObject({ working_hours: DEFAULT, working_hours_source: 'default' });
    expect(await seenByTools(row.customerId)).toBeNull();
  });

  test('when the connection is made again (reconnect), then the working hours stay', async () => {
    const row = await aCalendarConnection();
    await put(row.customerId, { start: '10:00', end: '18:00', days: ['monday'] }).expect(200);
    await hub.store.save(aCredential({ customerId: row.customerId, integration: 'google_calendar' }));
    expect((await hub.store.findExact(row.customerId, null, 'google_calendar'))!.workingHours).toEqual({ start: '10:00', end: '18:00', days: ['monday'] });
  });

  test('when user_id is given, then only that end user’s own connection is changed, never the customer-wide one', async () => {
    const customerId = randomUUID();
    await aCalendarConnection({ customerId });
    const res = await put(customerId, DEFAULT, { userId: 'u-1' }).expect(404);
    expect(res.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', details: { integration: 'google_calendar' } });
    await aCalendarConnection({ customerId, userId: 'u-1' });
    await put(customerId, { ...DEFAULT, start: '11:00' }, { userId: 'u-1' }).expect(200);
    expect(await seenByTools(customerId, 'u-1')).toMatchObject({ start: '11:00' });
    expect(await seenByTools(customerId, null)).toBeNull();
  });

  test('when the customer has no calendar connection, then 404 RESOURCE_NOT_FOUND for set and clear', async () => {
    const customerId = randomUUID();
    await hub.store.save(aCredential({ customerId, integration: 'google_gmail' }));
    await put(customerId, DEFAULT).expect(404);
    await api().delete(path(customerId)).set('Authorization', asAdmin()).expect(404);
  });
});

describe('invalid working hours', () => {
  test.each([
    ['an end before the start', { start: '17:00', end: '09:00', days: ['monday'] }, 'end'],
    ['an empty range', { start: '09:00', end: '09:00', days: ['monday'] }, 'end'],
    ['a time that is not HH:MM', { start: '9:00', end: '17:00', days: ['monday'] }, 'start'],
    ['24:00 as a start', { start: '24:00', end: '24:00', days: ['monday'] }, 'start'],
    ['an unknown day', { start: '09:00', end: '17:00', days: ['funday'] }, 'days[0]'],
    ['a day twice', { start: '09:00', end: '17:00', days: ['monday', 'monday'] }, 'days'],
    ['no days', { start: '09:00', end: '17:00', days: [] }, 'days'],
    ['an unknown field', { ...DEFAULT, timezone: 'UTC' }, 'timezone'],
  ])('when the body has %s, then 400 VALIDATION_ERROR naming %s', async (_case, body, field) => {
    const row = await aCalendarConnection();
    const res = await put(row.customerId, body).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
    expect((await hub.store.getById(row.id))!.workingHours).toBeNull();
  });

  test('when the customer id is not a UUID, then 400', async () => {
    await put('not-a-uuid', DEFAULT).expect(400);
  });
});

describe('who may set them', () => {
  test('when there is no admin token, then 401', async () => {
    const row = await aCalendarConnection();
    await api().put(path(row.customerId)).send(DEFAULT).expect(401);
    await api().put(path(row.customerId)).set('Authorization', 'ServiceSecret x').send(DEFAULT).expect(401);
  });

  test('when a customer-scoped token names another customer, then 403 and nothing changes; its own customer works', async () => {
    const row = await aCalendarConnection();
    await put(row.customerId, DEFAULT, { auth: asCustomer(randomUUID()) }).expect(403);
    expect((await hub.store.getById(row.id))!.workingHours).toBeNull();
    await put(row.customerId, { ...DEFAULT, end: '18:00' }, { auth: asCustomer(row.customerId) }).expect(200);
  });
});
