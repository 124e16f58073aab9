import type { Client } from '@microsoft/microsoft-graph-client';
import { type Harness, expectNoViolations, graphClient, seedPeople, startHarness, tokenFor } from './support';

/**
 * What a client needs to create an event once and find it again (transactionId, single-value extended
 * properties), an event that ends before it starts, and the calendar list's paging and shared calendars — through
 * @microsoft/microsoft-graph-client, every answer checked against the CSDL.
 */

let h: Harness;
let ana: Client;
beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  ana = graphClient(h, await tokenFor(h, 'ana@contoso.example'));
  await h.control('PUT', '/consistency', { new_event_delay_ms: 0, delivery_delay_ms: 0 });
});
afterAll(async () => {
  expectNoViolations(h);
  await h.close();
});

const PROP = 'String {4bd6a4a1-8f6e-4c52-9a43-0d3c2b1e7f55} Name HubKey';
const draft = (subject: string, extra: Record<string, unknown> = {}) => ({
  subject,
  start: { dateTime: '2026-04-06T09:00:00', timeZone: 'UTC' },
  end: { dateTime: '2026-04-06T10:00:00', timeZone: 'UTC' },
  ...extra,
});

test('when a transactionId is repeated with another body, then Graph refuses it with ErrorDuplicateTransactionId and keeps one event', async () => {
  const first = await ana.api('/me/events').post(draft('Planning', { transactionId: 'tx-dup-1' }));
  const same = await ana.api('/me/events').post(draft('Planning', { transactionId: 'tx-dup-1' }));
  expect(same.id).toBe(first.id);
  await expect(ana.api('/me/events').post(draft('Something else', { transactionId: 'tx-dup-1' }))).rejects.toMatchObject({
    statusCode: 400,
    code: 'ErrorDuplicateTransactionId',
  });
  // Edited since: the same repeat is now "a different event" too (the harsher reading).
  await ana.api(`/me/events/${first.id}`).patch({ subject: 'Planning (moved)' });
  await expect(ana.api('/me/events').post(draft('Planning', { transactionId: 'tx-dup-1' }))).rejects.toMatchObject({ statusCode: 400 });
  const listed = await ana.api('/me/events').filter("subject eq 'Planning (moved)'").get();
  expect(listed.value).toHaveLength(1);
});

test('when an event carries a single-value extended property, then $filter finds it by id and value and $expand returns it', async () => {
  const made = await ana.api('/me/calendar/events').post(draft('Tagged', { singleValueExtendedProperties: [{ id: PROP, value: 'k-123' }] }));
  expect(made.singleValueExtendedProperties).toBeUndefined(); // never part of the event unless expanded
  const filter = (id: string, value: string) => `singleValueExtendedProperties/Any(ep: ep/id eq '${id}' and ep/value eq '${value}')`;
  const found = await ana.api('/me/calendar/events').filter(filter(PROP, 'K-123')).select('id,subject').get(); // value: case-insensitive
  expect(found.value.map((e: { id: string }) => e.id)).toEqual([made.id]);
  expect(found.value[0].singleValueExtendedProperties).toBeUndefined();
  const wrongCase = await ana
    .api('/me/calendar/events')
    .filter(filter(PROP.replace('HubKey', 'hubkey'), 'k-123'))
    .get(); // name: case-sensitive
  expect(wrongCase.value).toEqual([]);
  const expanded = await ana.api(`/me/events/${made.id}`).expand(`singleValueExtendedProperties($filter=id eq '${PROP}')`).get();
  expect(expanded.singleValueExtendedProperties).toEqual([{ id: PROP, value: 'k-123' }]);
  await expect(ana.api('/me/events').post(draft('Bad', { singleValueExtendedProperties: [{ id: 'HubKey', value: 'x' }] }))).rejects.toMatchObject({
    statusCode: 400,
  });
});

test('when an update would end an event before it starts, then Graph answers its generic ErrorPropertyValidationFailure', async () => {
  const made = await ana.api('/me/events').post(draft('Short'));
  await expect(ana.api(`/me/events/${made.id}`).patch({ end: { dateTime: '2026-04-06T08:00:00', timeZone: 'UTC' } })).rejects.toMatchObject({
    statusCode: 400,
    code: 'ErrorPropertyValidationFailure',
  });
});

test('when an account has more than ten calendars, then the list comes 10 a page with nextLink, and shared ones say so', async () => {
  for (let i = 0; i < 11; i++) expect((await h.control('POST', '/accounts/ana@contoso.example/calendars', { name: `Project ${i}` })).status).toBe(201);
  const shared = await h.control('POST', '/accounts/ana@contoso.example/calendars', { name: "Ben's calendar", owner: 'ben@contoso.example' });
  expect(shared.status).toBe(201);
  const page1 = await ana.api('/me/calendars').get();
  expect(page1.value).toHaveLength(10);
  expect(page1['@odata.nextLink']).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\.0\/me\/calendars\?%24skip=10$/);
  const page2 = await ana.api(page1['@odata.nextLink']).get();
  expect(page2.value).toHaveLength(3);
  expect(page2['@odata.nextLink']).toBeUndefined();
  const bens = page2.value.find((c: { name: string }) => c.name === "Ben's calendar");
  expect(bens).toMatchObject({ canEdit: false, canShare: false, owner: { address: 'ben@contoso.example' } });
  expect(page1.value[0]).toMatchObject({ isDefaultCalendar: true, canEdit: true, canShare: true, owner: { address: 'ana@contoso.example' } });
});

test("when an invitee answers, then the organizer's event changes version, so a write prepared before meets 412", async () => {
  const ben = graphClient(h, await tokenFor(h, 'ben@contoso.example'));
  const made = await ana.api('/me/events').post(draft('Answered', { attendees: [{ emailAddress: { address: 'ben@contoso.example' }, type: 'required' }] }));
  const copy = (await ben.api('/me/events').filter("subject eq 'Answered'").get()).value[0];
  await ben.api(`/me/events/${copy.id}/accept`).post({ sendResponse: true });
  await expect(ana.api(`/me/events/${made.id}`).header('If-Match', made['@odata.etag']).patch({ subject: 'Stale' })).rejects.toMatchObject({
    statusCode: 412,
    code: 'ErrorIrresolvableConflict',
  });
  const now = await ana.api(`/me/events/${made.id}`).get();
  expect(now['@odata.etag']).not.toBe(made['@odata.etag']);
  expect(now.attendees[0].status.response).toBe('accepted');
});
