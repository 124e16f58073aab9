import { DEMO, type MicrosoftWorld } from '../../helpers/microsoft';
import { eventsTitled, outlookCalendar, requestsFor, useOutlookWorld } from './outlook-calendar';

/** What the availability tools read from Outlook: zones, working hours, free/busy, the agenda, the calendar list. */

let world: MicrosoftWorld;
useOutlookWorld((started) => (world = started), { now: new Date('2027-03-10T12:00:00Z'), instant: true });

const ms = (iso: string) => Date.parse(iso);
const seed = async (upn: string, spec: Record<string, unknown>) => expect((await world.control('POST', `/accounts/${upn}/events`, spec)).status).toBe(201);

test('when the mailbox keeps a Windows zone, then the port answers its IANA zone (CLDR), once per connection; an IANA zone passes as it is', async () => {
  const ana = outlookCalendar(world, DEMO.ana);
  expect(await ana.port.timeZone()).toEqual({ ok: true, value: 'Europe/Paris' });
  expect(await ana.port.timeZone()).toEqual({ ok: true, value: 'Europe/Paris' });
  expect(ana.attempts()).toBe(1);
  expect(await outlookCalendar(world, DEMO.ben).port.timeZone()).toEqual({ ok: true, value: 'America/Los_Angeles' });
  expect(await outlookCalendar(world, DEMO.chen).port.timeZone()).toEqual({ ok: true, value: 'Europe/London' });
  // Outlook on the web set to an IANA zone: mailboxSettings answers it by that name.
  [...world.sandbox.world.people.values()].find((p) => p.userPrincipalName === DEMO.chen)!.timeZone = 'Asia/Kolkata';
  expect(await outlookCalendar(world, DEMO.chen).port.timeZone()).toEqual({ ok: true, value: 'Asia/Kolkata' });
});

test("when the mailbox keeps working hours, then they come as the tools' working hours in their own IANA zone", async () => {
  expect(await outlookCalendar(world, DEMO.ben).port.workingHours()).toEqual({
    ok: true,
    value: { start: '09:00', end: '17:30', days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], timeZone: 'America/Los_Angeles' },
  });
});

test('when free/busy is asked for the account, a colleague and a stranger, then busy time is merged and sorted and the stranger unreadable', async () => {
  await seed(DEMO.ben, { subject: 'A', start: '2027-03-22T17:00:00Z', end: '2027-03-22T18:00:00Z' });
  await seed(DEMO.ben, { subject: 'B', start: '2027-03-22T17:30:00Z', end: '2027-03-22T19:00:00Z', show_as: 'tentative' });
  await seed(DEMO.ben, { subject: 'C', start: '2027-03-22T20:00:00Z', end: '2027-03-22T21:00:00Z', show_as: 'free' });
  await seed(DEMO.ben, { subject: 'D', start: '2027-03-23T08:00:00Z', end: '2027-03-23T09:00:00Z', show_as: 'workingElsewhere' });
  const { port } = outlookCalendar(world, DEMO.ana);
  const range = { start: ms('2027-03-22T00:00:00Z'), end: ms('2027-03-24T00:00:00Z') };
  const busy = await port.freeBusy(['primary', DEMO.ben, 'nobody@elsewhere.example'], range, 'Europe/Paris');
  expect(busy.ok).toBe(true);
  if (!busy.ok) return;
  expect(busy.value.get(DEMO.ben)).toEqual({
    readable: true,
    busy: [
      { start: ms('2027-03-22T17:00:00Z'), end: ms('2027-03-22T19:00:00Z') },
      { start: ms('2027-03-23T08:00:00Z'), end: ms('2027-03-23T09:00:00Z') },
    ],
  });
  expect(busy.value.get('nobody@elsewhere.example')).toEqual({ readable: false, reason: 'ErrorMailRecipientNotFound' });
  expect(busy.value.get('primary')).toMatchObject({ readable: true });
  expect(requestsFor(world, 'calendar.getSchedule')).toHaveLength(1);
});

test('when a colleague keeps free/busy from the organisation, then they are unreadable with that reason, never free', async () => {
  await seed(DEMO.chen, { subject: 'Private', start: '2027-03-22T09:00:00Z', end: '2027-03-22T10:00:00Z' });
  expect((await world.control('PUT', `/accounts/${DEMO.chen}/calendar-sharing`, { my_organization: 'none' })).status).toBe(200);
  const range = { start: ms('2027-03-22T00:00:00Z'), end: ms('2027-03-23T00:00:00Z') };
  const busy = await outlookCalendar(world, DEMO.ana).port.freeBusy([DEMO.chen], range, 'UTC');
  expect(busy.ok && busy.value.get(DEMO.chen)).toEqual({ readable: false, reason: 'ErrorNoFreeBusyAccess' });
  // Shared with Ana by name: readable again, for her alone.
  await world.control('PUT', `/accounts/${DEMO.chen}/calendar-sharing`, { my_organization: 'none', people: [{ address: DEMO.ana, role: 'freeBusyRead' }] });
  const shared = await outlookCalendar(world, DEMO.ana).port.freeBusy([DEMO.chen], range, 'UTC');
  expect(shared.ok && shared.value.get(DEMO.chen)).toEqual({ readable: true, busy: [{ start: ms('2027-03-22T09:00:00Z'), end: ms('2027-03-22T10:00:00Z') }] });
  const toBen = await outlookCalendar(world, DEMO.ben).port.freeBusy([DEMO.chen], range, 'UTC');
  expect(toBen.ok && toBen.value.get(DEMO.chen)).toEqual({ readable: false, reason: 'ErrorNoFreeBusyAccess' });
});

test('when more than 20 people are asked, then getSchedule is asked in batches of 20 and everyone is answered', async () => {
  const people = [DEMO.ben, DEMO.chen, ...Array.from({ length: 23 }, (_, i) => `ghost${i}@northwind.example`)];
  const { port } = outlookCalendar(world, DEMO.ana);
  const busy = await port.freeBusy(people, { start: ms('2027-03-22T00:00:00Z'), end: ms('2027-03-29T00:00:00Z') }, 'UTC');
  expect(busy.ok).toBe(true);
  if (!busy.ok) return;
  expect(busy.value.size).toBe(25);
  expect(busy.value.get(DEMO.chen)).toMatchObject({ readable: true });
  expect(busy.value.get('ghost22@northwind.example')).toEqual({ readable: false, reason: 'ErrorMailRecipientNotFound' });
  expect(requestsFor(world, 'calendar.getSchedule')).toHaveLength(2);
});

test('when the range is longer than getSchedule takes (62 days), then it is asked in windows and a meeting across the cut comes back whole', async () => {
  // The first window is 61 × 24 h from the start: 2027-03-03T00:00Z.
  await seed(DEMO.ben, { subject: 'Across', start: '2027-03-02T22:00:00Z', end: '2027-03-03T02:00:00Z' });
  const { port } = outlookCalendar(world, DEMO.ana);
  const range = { start: ms('2027-01-01T00:00:00Z'), end: ms('2027-04-01T00:00:00Z') };
  const busy = await port.freeBusy([DEMO.ben], range, 'UTC');
  expect(busy.ok && busy.value.get(DEMO.ben)).toMatchObject({
    readable: true,
    busy: expect.arrayContaining([{ start: ms('2027-03-02T22:00:00Z'), end: ms('2027-03-03T02:00:00Z') }]),
  });
  expect(requestsFor(world, 'calendar.getSchedule')).toHaveLength(2);
});

test('when getSchedule itself fails, then the call fails retryably: nobody is reported free', async () => {
  await world.control('POST', '/faults', { operation: 'calendar.getSchedule', status: 500, code: 'ErrorInternalServerError', times: 1 });
  const { port } = outlookCalendar(world, DEMO.ana);
  const failed = await port.freeBusy([DEMO.ben], { start: ms('2027-03-22T00:00:00Z'), end: ms('2027-03-23T00:00:00Z') }, 'UTC');
  expect(failed).toMatchObject({ ok: false, error: { code: 'EXTERNAL_API_ERROR', retryable: true } });
});

test.each([
  ['Pacific Standard Time', DEMO.ben, '2027-03-12T12:00:00-08:00', '2027-03-15T12:00:00-07:00', 'America/Los_Angeles'],
  ['Romance Standard Time', DEMO.ana, '2027-03-26T12:00:00+01:00', '2027-03-29T12:00:00+02:00', 'Europe/Paris'],
])('when a DST change falls in the week (%s), then noon local on both sides comes back as its own instant', async (zone, upn, before, after, iana) => {
  for (const start of [before, after])
    await seed(upn, { subject: `Nine ${start}`, start, end: new Date(ms(start) + 3_600_000).toISOString(), time_zone: zone });
  const port = outlookCalendar(world, upn).port;
  const range = { start: ms(before) - 86_400_000, end: ms(after) + 86_400_000 };
  const busy = await port.freeBusy(['primary'], range, iana);
  const own = busy.ok ? busy.value.get('primary') : undefined;
  expect(own).toMatchObject({ readable: true });
  const starts = own && own.readable ? own.busy.map((b) => b.start) : [];
  expect(starts).toEqual(expect.arrayContaining([ms(before), ms(after)]));
  const agenda = await port.agenda(range);
  expect(agenda.ok && agenda.value.events.map((e) => e.start)).toEqual(expect.arrayContaining([{ instant: ms(before) }, { instant: ms(after) }]));
  const created = await port.createEvent('primary', { title: 'DST', start: after, end: new Date(ms(after) + 1_800_000).toISOString() }, { dedupKey: null });
  expect(created.ok && created.value.event.start).toEqual({ instant: ms(after) });
});

test('when the agenda is read, then each occurrence says the account’s answer, free time, cancellation and all-day dates', async () => {
  const ana = outlookCalendar(world, DEMO.ana).port;
  const meeting = await ana.createEvent(
    'primary',
    { title: 'Invite', start: '2027-03-22T10:00:00Z', end: '2027-03-22T11:00:00Z', attendees: [DEMO.ben] },
    { dedupKey: null },
  );
  const gone = await ana.createEvent(
    'primary',
    { title: 'Gone', start: '2027-03-22T12:00:00Z', end: '2027-03-22T13:00:00Z', attendees: [DEMO.ben] },
    { dedupKey: null },
  );
  if (!meeting.ok || !gone.ok) throw new Error('create failed');
  await ana.deleteEvent('primary', gone.value.event.id, {});
  await seed(DEMO.ben, { subject: 'Own', start: '2027-03-22T14:00:00Z', end: '2027-03-22T15:00:00Z' });
  await seed(DEMO.ben, { subject: 'Gym', start: '2027-03-22T16:00:00Z', end: '2027-03-22T17:00:00Z', show_as: 'free' });
  await seed(DEMO.ben, { subject: 'Off', start: '2027-03-23T00:00:00-07:00', end: '2027-03-24T00:00:00-07:00', all_day: true });
  const agenda = await outlookCalendar(world, DEMO.ben).port.agenda({ start: ms('2027-03-22T00:00:00Z'), end: ms('2027-03-25T00:00:00Z') });
  expect(agenda).toMatchObject({ ok: true, value: { complete: true } });
  if (!agenda.ok) return;
  expect(agenda.value.events).toEqual(
    expect.arrayContaining([
      {
        status: 'tentative',
        start: { instant: ms('2027-03-22T10:00:00Z') },
        end: { instant: ms('2027-03-22T11:00:00Z') },
        free: false,
        selfResponse: 'needsAction',
      },
      expect.objectContaining({ status: 'cancelled', start: { instant: ms('2027-03-22T12:00:00Z') } }),
      { status: 'confirmed', start: { instant: ms('2027-03-22T14:00:00Z') }, end: { instant: ms('2027-03-22T15:00:00Z') }, free: false, selfResponse: null },
      expect.objectContaining({ free: true, start: { instant: ms('2027-03-22T16:00:00Z') } }),
      expect.objectContaining({ start: { date: '2027-03-23' }, end: { date: '2027-03-24' } }),
    ]),
  );
});

test('when the agenda has more occurrences than one page, then the pages are followed, and beyond the bound the agenda says it is cut', async () => {
  const start = ms('2027-05-03T00:00:00Z');
  await seed(DEMO.chen, { subject: 'Slot', start: new Date(start).toISOString(), end: new Date(start + 300_000).toISOString() });
  const [model] = eventsTitled(world, DEMO.chen, 'Slot');
  // More occurrences, straight into Chen's mailbox (seeding 2,000 through the control API would only be slower).
  const box = [...world.sandbox.world.mailboxes.values()].find((b) => b.events.includes(model!))!;
  const more = (from: number, n: number) => {
    for (let i = from; i < from + n; i++)
      box.events.push({
        ...model!,
        bodyType: 'text',
        id: `${model!.id}${i}`,
        immutableId: `${model!.immutableId}${i}`,
        start: start + i * 600_000,
        end: start + i * 600_000 + 300_000,
      });
  };
  more(1, 259);
  const port = outlookCalendar(world, DEMO.chen).port;
  const range = { start, end: start + 30 * 86_400_000 };
  const some = await port.agenda(range);
  expect(some.ok && some.value).toMatchObject({ complete: true });
  expect(some.ok && some.value.events.length).toBe(260);
  expect(requestsFor(world, 'events.calendarView')).toHaveLength(2);
  more(260, 1741);
  const cut = await port.agenda(range);
  expect(cut.ok && cut.value).toMatchObject({ complete: false });
  expect(cut.ok && cut.value.events.length).toBe(2000);
});

test('when the account has many calendars and some shared with it, then all pages are followed, primary first, each with its role', async () => {
  for (let i = 0; i < 11; i++) await world.control('POST', `/accounts/${DEMO.ana}/calendars`, { name: `Own ${i}` });
  const bens = (await world.control('POST', `/accounts/${DEMO.ana}/calendars`, { name: 'Ben (edit)', owner: DEMO.ben, can_edit: true })).body.id;
  const chens = (await world.control('POST', `/accounts/${DEMO.ana}/calendars`, { name: 'Chen (read)', owner: DEMO.chen })).body.id;
  const { port } = outlookCalendar(world, DEMO.ana);
  const all = await port.listCalendars();
  expect(all.ok).toBe(true);
  if (!all.ok) return;
  expect(all.value.truncated).toBe(false);
  expect(all.value.calendars).toHaveLength(14);
  expect(all.value.calendars[0]).toMatchObject({ name: 'Calendar', primary: true, accessRole: 'owner', timeZone: null });
  expect(all.value.calendars.find((c) => c.id === bens)).toMatchObject({ accessRole: 'writer', primary: false });
  expect(all.value.calendars.find((c) => c.id === chens)).toMatchObject({ accessRole: 'reader' });
  expect(requestsFor(world, 'calendars.list')).toHaveLength(2);
  const writable = await port.listCalendars('writer');
  expect(writable.ok && writable.value.calendars.map((c) => c.id)).not.toContain(chens);
  const owned = await port.listCalendars('owner');
  expect(owned.ok && owned.value.calendars).toHaveLength(12);
});

test('when the account has more calendars than the bound, then the list says truncated', async () => {
  // Ten at a time: fifty parallel control requests met a reset connection on a machine loaded by other suites.
  for (let i = 0; i < 1000; i += 10)
    await Promise.all(Array.from({ length: 10 }, (_, k) => world.control('POST', `/accounts/${DEMO.chen}/calendars`, { name: `C${i + k}` })));
  const listed = await outlookCalendar(world, DEMO.chen).port.listCalendars();
  expect(listed.ok && listed.value).toMatchObject({ truncated: true });
  expect(listed.ok && listed.value.calendars).toHaveLength(1000);
});

test("when free/busy names one of the account's calendars by id, then its busy time comes from that calendar", async () => {
  const projects = (await world.control('POST', `/accounts/${DEMO.ana}/calendars`, { name: 'Projects' })).body.id;
  const { port } = outlookCalendar(world, DEMO.ana);
  await port.createEvent(projects, { title: 'Project sync', start: '2027-03-22T09:00:00Z', end: '2027-03-22T10:00:00Z' }, { dedupKey: null });
  await seed(DEMO.ana, { subject: 'Offsite', start: '2027-03-23T00:00:00+01:00', end: '2027-03-24T00:00:00+01:00', all_day: true });
  expect(eventsTitled(world, DEMO.ana, 'Project sync')[0]!.calendarId).toBe(projects);
  const range = { start: ms('2027-03-22T00:00:00Z'), end: ms('2027-03-25T00:00:00Z') };
  const busy = await port.freeBusy([projects, `AAMkAG${'z'.repeat(60)}AAA=`], range, 'Europe/Paris');
  expect(busy.ok && busy.value.get(projects)).toEqual({ readable: true, busy: [{ start: ms('2027-03-22T09:00:00Z'), end: ms('2027-03-22T10:00:00Z') }] });
  expect(busy.ok && busy.value.get(`AAMkAG${'z'.repeat(60)}AAA=`)).toEqual({ readable: false, reason: 'notFound' });
});
