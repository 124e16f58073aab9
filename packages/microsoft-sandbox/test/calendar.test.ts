import type { Client } from '@microsoft/microsoft-graph-client';
import { type Harness, expectNoViolations, graphClient, seedPeople, startHarness, tokenFor } from './support';

/** Calendars through @microsoft/microsoft-graph-client, every answer checked against the CSDL (support.ts). */

let h: Harness;
let ana: Client;
let ben: Client;
beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  ana = graphClient(h, await tokenFor(h, 'ana@contoso.example'));
  ben = graphClient(h, await tokenFor(h, 'ben@contoso.example'));
  await h.control('PUT', '/consistency', { new_event_delay_ms: 0, delivery_delay_ms: 0 });
});
afterAll(async () => {
  expectNoViolations(h);
  await h.close();
});

test('when a user reads /me and mailboxSettings, then the time zone is the Windows name and working hours carry it', async () => {
  const me = await ana.api('/me').get();
  expect(me).toMatchObject({ userPrincipalName: 'ana@contoso.example', displayName: 'Ana Lima', mail: 'ana@contoso.example' });
  const chen = graphClient(h, await tokenFor(h, 'chen@contoso.example'));
  const settings = await chen.api('/me/mailboxSettings').get();
  expect(settings.timeZone).toBe('GMT Standard Time'); // given as Europe/London, kept by its Windows name
  expect(settings.workingHours).toEqual({
    daysOfWeek: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
    startTime: '08:00:00.0000000',
    endTime: '17:00:00.0000000',
    timeZone: { name: 'GMT Standard Time' },
  });
  const patched = await ana
    .api('/me/mailboxSettings')
    .patch({ workingHours: { startTime: '09:30:00', endTime: '18:00:00', daysOfWeek: ['monday', 'tuesday'] } });
  expect(patched.workingHours.startTime).toBe('09:30:00.0000000');
  expect(Object.keys(patched)).toEqual(['@odata.context', 'workingHours']); // only what changed comes back
  await expect(ana.api('/me/mailboxSettings').patch({ timeZone: 'Mars/Olympus' })).rejects.toMatchObject({ statusCode: 400 });
  await expect(ana.api('/me/mailboxSettings').patch({ shoeSize: 9 })).rejects.toMatchObject({ statusCode: 400 });
});

test('when an event is created twice with one transactionId, then there is one event; reads follow Prefer: outlook.timezone', async () => {
  const body = {
    subject: 'Budget sync',
    body: { contentType: 'HTML', content: '<p>Numbers</p>' },
    start: { dateTime: '2026-03-02T09:00:00', timeZone: 'Pacific Standard Time' },
    end: { dateTime: '2026-03-02T10:00:00', timeZone: 'Pacific Standard Time' },
    attendees: [{ emailAddress: { address: 'ben@contoso.example', name: 'Ben' }, type: 'required' }],
    transactionId: 'tx-7f1c',
  };
  const first = await ana.api('/me/events').post(body);
  const retry = await ana.api('/me/events').post(body);
  expect(retry.id).toBe(first.id);
  expect(first.start).toEqual({ dateTime: '2026-03-02T17:00:00.0000000', timeZone: 'UTC' }); // UTC unless asked
  expect(first.originalStartTimeZone).toBe('Pacific Standard Time');
  const res = await ana
    .api(`/me/events/${first.id}`)
    .header('Prefer', 'outlook.timezone="Pacific Standard Time"')
    .responseType('raw' as never)
    .get();
  expect(res.headers.get('preference-applied')).toBe('outlook.timezone="Pacific Standard Time"');
  expect(((await res.json()) as any).start).toEqual({ dateTime: '2026-03-02T09:00:00.0000000', timeZone: 'Pacific Standard Time' });
  const iana = await ana.api(`/me/events/${first.id}`).header('Prefer', 'outlook.timezone="Europe/Madrid"').get();
  expect(iana.start.dateTime).toBe('2026-03-02T18:00:00.0000000');
  const list = await ana.api('/me/events').filter("subject eq 'Budget sync'").get();
  expect(list.value).toHaveLength(1);
});

test('when a patch carries a stale @odata.etag in If-Match, then 412 ErrorIrresolvableConflict; a current one applies', async () => {
  const e = await ana
    .api('/me/calendar/events')
    .post({ subject: 'Draft', start: { dateTime: '2026-03-03T10:00:00', timeZone: 'UTC' }, end: { dateTime: '2026-03-03T10:30:00', timeZone: 'UTC' } });
  const updated = await ana.api(`/me/events/${e.id}`).header('If-Match', e['@odata.etag']).patch({ subject: 'Final' });
  expect(updated.subject).toBe('Final');
  expect(updated['@odata.etag']).not.toBe(e['@odata.etag']);
  await expect(ana.api(`/me/events/${e.id}`).header('If-Match', e['@odata.etag']).patch({ subject: 'Lost update' })).rejects.toMatchObject({
    statusCode: 412,
    code: 'ErrorIrresolvableConflict',
  });
  await expect(ana.api(`/me/events/${e.id}`).patch({ colour: 'red' })).rejects.toMatchObject({ statusCode: 400 });
  await ana.api(`/me/events/${e.id}`).delete();
  await expect(ana.api(`/me/events/${e.id}`).get()).rejects.toMatchObject({ statusCode: 404, code: 'ErrorItemNotFound' });
  await expect(ana.api('/me/events/not-an-id').get()).rejects.toMatchObject({ statusCode: 400, code: 'ErrorInvalidIdMalformed' });
});

test('when an invitee accepts, then the organizer sees the response; calendarView needs its window and pages with nextLink', async () => {
  const meeting = await ana.api('/me/events').post({
    subject: 'Pairing',
    start: { dateTime: '2026-03-04T15:00:00', timeZone: 'W. Europe Standard Time' },
    end: { dateTime: '2026-03-04T16:00:00', timeZone: 'W. Europe Standard Time' },
    attendees: [{ emailAddress: { address: 'ben@contoso.example' } }],
  });
  const bens = await ben.api('/me/calendarView').query({ startDateTime: '2026-03-04T00:00:00Z', endDateTime: '2026-03-05T00:00:00Z' }).get();
  const copy = bens.value.find((x: any) => x.subject === 'Pairing');
  expect(copy).toMatchObject({
    isOrganizer: false,
    responseStatus: { response: 'notResponded' },
    organizer: { emailAddress: { address: 'ana@contoso.example' } },
  });
  await ben.api(`/me/events/${copy.id}/accept`).post({ comment: 'See you', sendResponse: true });
  const after = await ana.api(`/me/events/${meeting.id}`).get();
  expect(after.attendees[0].status.response).toBe('accepted');
  await expect(ana.api('/me/calendarView').get()).rejects.toMatchObject({ statusCode: 400, code: 'ErrorInvalidParameter' });
  await expect(ana.api('/me/events').search('"Pairing"').get()).rejects.toMatchObject({ statusCode: 400 }); // messages only
  for (let i = 0; i < 12; i++)
    await ana.api('/me/events').post({
      subject: `Slot ${i}`,
      start: { dateTime: `2026-03-09T${String(8 + (i % 8)).padStart(2, '0')}:00:00`, timeZone: 'UTC' },
      end: { dateTime: `2026-03-09T${String(8 + (i % 8)).padStart(2, '0')}:30:00`, timeZone: 'UTC' },
    });
  const page1 = await ana.api('/me/calendarView').query({ startDateTime: '2026-03-09T00:00:00', endDateTime: '2026-03-10T00:00:00' }).get();
  expect(page1.value).toHaveLength(10); // the default page size
  expect(page1['@odata.nextLink']).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\.0\/me\/calendarView\?.*%24skip=10/);
  const page2 = await ana.api(page1['@odata.nextLink']).get();
  expect(page2.value).toHaveLength(2);
  expect(page2['@odata.nextLink']).toBeUndefined();
});

test('when an all-day event is created, then it must span midnights, and reads keep its dates', async () => {
  await expect(
    ana.api('/me/events').post({
      subject: 'Offsite',
      isAllDay: true,
      start: { dateTime: '2026-03-06T09:00:00', timeZone: 'UTC' },
      end: { dateTime: '2026-03-07T00:00:00', timeZone: 'UTC' },
    }),
  ).rejects.toMatchObject({ statusCode: 400 });
  const e = await ana.api('/me/events').post({
    subject: 'Offsite',
    isAllDay: true,
    start: { dateTime: '2026-03-06', timeZone: 'Romance Standard Time' },
    end: { dateTime: '2026-03-07', timeZone: 'Romance Standard Time' },
  });
  const read = await ana.api(`/me/events/${e.id}`).header('Prefer', 'outlook.timezone="Pacific Standard Time"').get();
  expect(read).toMatchObject({ isAllDay: true, start: { dateTime: '2026-03-06T00:00:00.0000000' }, end: { dateTime: '2026-03-07T00:00:00.0000000' } });
});

test('when getSchedule is asked, then it answers availabilityView per slot, hides others’ subjects, and enforces its documented limits', async () => {
  await ben.api('/me/events').post({
    subject: 'Secret 1:1',
    showAs: 'busy',
    start: { dateTime: '2026-03-10T09:00:00', timeZone: 'Pacific Standard Time' },
    end: { dateTime: '2026-03-10T10:00:00', timeZone: 'Pacific Standard Time' },
  });
  await ben.api('/me/events').post({
    subject: 'Maybe',
    showAs: 'tentative',
    start: { dateTime: '2026-03-10T10:30:00', timeZone: 'Pacific Standard Time' },
    end: { dateTime: '2026-03-10T11:00:00', timeZone: 'Pacific Standard Time' },
  });
  const res = await ana
    .api('/me/calendar/getSchedule')
    .header('Prefer', 'outlook.timezone="Pacific Standard Time"')
    .post({
      schedules: ['ben@contoso.example', 'ghost@contoso.example'],
      startTime: { dateTime: '2026-03-10T08:00:00', timeZone: 'Pacific Standard Time' },
      endTime: { dateTime: '2026-03-10T12:00:00', timeZone: 'Pacific Standard Time' },
      availabilityViewInterval: '30', // a string, as the free/busy concept page's own example writes it
    });
  const [b, ghost] = res.value;
  expect(b.availabilityView).toBe('00220100');
  expect(b.scheduleItems[0]).toEqual({
    status: 'busy',
    start: { dateTime: '2026-03-10T09:00:00.0000000', timeZone: 'Pacific Standard Time' },
    end: { dateTime: '2026-03-10T10:00:00.0000000', timeZone: 'Pacific Standard Time' },
  });
  expect(b.workingHours.timeZone).toEqual({ name: 'Pacific Standard Time' });
  expect(ghost.error.responseCode).toBeDefined();
  const window = { startTime: { dateTime: '2026-03-01T00:00:00', timeZone: 'UTC' }, endTime: { dateTime: '2026-05-02T00:00:00', timeZone: 'UTC' } };
  await expect(ana.api('/me/calendar/getSchedule').post({ schedules: ['ben@contoso.example'], ...window })).rejects.toMatchObject({ statusCode: 400 }); // 62 days
  const many = Array.from({ length: 21 }, (_, i) => `p${i}@contoso.example`);
  await expect(
    ana.api('/me/calendar/getSchedule').post({ schedules: many, startTime: window.startTime, endTime: { dateTime: '2026-03-02T00:00:00', timeZone: 'UTC' } }),
  ).rejects.toMatchObject({ statusCode: 400 });
  await expect(
    ana.api('/me/calendar/getSchedule').post({
      schedules: ['ben@contoso.example'],
      startTime: window.startTime,
      endTime: { dateTime: '2026-03-02T00:00:00', timeZone: 'UTC' },
      availabilityViewInterval: 4,
    }),
  ).rejects.toMatchObject({ statusCode: 400 });
});

test('when a calendar is not shared with the caller, then getSchedule answers that schedule with the no-access error alone, never as free', async () => {
  const window = { startTime: { dateTime: '2026-03-10T00:00:00', timeZone: 'UTC' }, endTime: { dateTime: '2026-03-11T00:00:00', timeZone: 'UTC' } };
  const ask = async () => (await ana.api('/me/calendar/getSchedule').post({ schedules: ['ben@contoso.example', 'ghost@contoso.example'], ...window })).value;
  const shared = await h.control('PUT', '/accounts/ben@contoso.example/calendar-sharing', { my_organization: 'none' });
  expect(shared.body.calendar_sharing).toEqual({ my_organization: 'none', people: [] });
  const [ben1, ghost] = await ask();
  expect(ben1).toEqual({ scheduleId: 'ben@contoso.example', error: { message: 'The caller does not have access to free/busy data.', responseCode: '5037' } });
  expect(ghost).toEqual({
    scheduleId: 'ghost@contoso.example',
    error: { message: 'Unable to resolve e-mail address ghost@contoso.example to an Active Directory object.', responseCode: '5009' },
  });
  // Named people keep what their own permission gives them, whatever "My Organization" has.
  await h.control('PUT', '/accounts/ben@contoso.example/calendar-sharing', {
    my_organization: 'none',
    people: [{ address: 'ana@contoso.example', role: 'freeBusyRead' }],
  });
  const named = (await ask())[0];
  expect([named.error, typeof named.availabilityView, Array.isArray(named.scheduleItems)]).toEqual([undefined, 'string', true]);
  await h.control('PUT', '/accounts/ben@contoso.example/calendar-sharing', { people: [{ address: 'ana@contoso.example', role: 'none' }] });
  expect((await ask())[0].error.responseCode).toBe('5037');
  await h.control('PUT', '/accounts/ben@contoso.example/calendar-sharing', {}); // back to Exchange Online's default
  expect((await ask())[0].error).toBeUndefined();
  expect(
    (await h.control('PUT', '/accounts/ben@contoso.example/calendar-sharing', { people: [{ address: 'zed@elsewhere.example', role: 'read' }] })).status,
  ).toBe(400);
});

test('when the calendars are listed or another user’s mailbox is asked for, then the default calendar shows and others are refused', async () => {
  const cals = await ana.api('/me/calendars').get();
  expect(cals.value).toEqual([expect.objectContaining({ name: 'Calendar', isDefaultCalendar: true })]);
  await expect(ana.api('/users/ben@contoso.example/events').get()).rejects.toMatchObject({ statusCode: 403, code: 'ErrorAccessDenied' });
  expect((await ana.api('/users/ana@contoso.example/calendar').get()).isDefaultCalendar).toBe(true);
});
