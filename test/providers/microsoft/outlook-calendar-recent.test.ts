import { DEMO, type MicrosoftWorld } from '../../helpers/microsoft';
import { eventsTitled, hubMemory, outlookCalendar, useOutlookWorld } from './outlook-calendar';

/**
 * Read-after-create for Outlook's lists (calendar-recent.ts): getSchedule and calendarView show a new event only
 * after the sandbox's propagation delay (1 s), as Outlook's do; the adapter joins its own recent creates in.
 */

let world: MicrosoftWorld;
useOutlookWorld((started) => (world = started));

const t = (iso: string) => Date.parse(iso);
const day = { start: t('2027-04-06T00:00:00Z'), end: t('2027-04-07T00:00:00Z') };
const draft = { title: 'Planning', start: '2027-04-06T10:00:00+02:00', end: '2027-04-06T11:00:00+02:00' };
const planning = { start: t('2027-04-06T08:00:00Z'), end: t('2027-04-06T09:00:00Z') };

test('when the Hub has just created an event, then free/busy and the agenda show it at once, and once after Outlook catches up', async () => {
  const memory = hubMemory();
  const made = await outlookCalendar(world, DEMO.ana, { memory }).port.createEvent('primary', draft, { dedupKey: null });
  if (!made.ok) throw new Error(made.error.message);
  const port = outlookCalendar(world, DEMO.ana, { memory }).port;
  const busy = await port.freeBusy(['primary', DEMO.ana], day, 'Europe/Madrid');
  expect(busy.ok && [busy.value.get('primary'), busy.value.get(DEMO.ana)]).toEqual([
    { readable: true, busy: [planning] },
    { readable: true, busy: [planning] },
  ]);
  const agenda = await port.agenda(day);
  expect(agenda.ok && agenda.value.events.map((e) => e.start)).toEqual([{ instant: planning.start }]);
  world.sandbox.world.clock.advance(5_000); // Outlook's lists have it now: still one
  const later = await outlookCalendar(world, DEMO.ana, { memory }).port.agenda(day);
  expect(later.ok && later.value.events).toHaveLength(1);
});

test('when the Hub deletes its new event at once, then free/busy does not keep it as busy', async () => {
  const memory = hubMemory();
  const port = outlookCalendar(world, DEMO.ana, { memory }).port;
  const made = await port.createEvent('primary', draft, { dedupKey: null });
  if (!made.ok) throw new Error(made.error.message);
  expect(await port.deleteEvent('primary', made.value.event.id, {})).toEqual({ ok: true, value: { alreadyDeleted: false } });
  const busy = await outlookCalendar(world, DEMO.ana, { memory }).port.freeBusy(['primary'], day, 'Europe/Madrid');
  expect(busy.ok && busy.value.get('primary')).toEqual({ readable: true, busy: [] });
});

test('when another Hub sharing no memory with it (no Redis) asks right after the create, then it sees Outlook’s lists as they are', async () => {
  const made = await outlookCalendar(world, DEMO.ana).port.createEvent('primary', draft, { dedupKey: null });
  if (!made.ok) throw new Error(made.error.message);
  const elsewhere = await outlookCalendar(world, DEMO.ana).port.freeBusy(['primary'], day, 'Europe/Madrid');
  expect(elsewhere.ok && elsewhere.value.get('primary')).toEqual({ readable: true, busy: [] });
});

test('when the Hub’s new event was made all-day in Outlook at once, then the agenda places it on its days in the mailbox’s zone', async () => {
  const memory = hubMemory();
  const made = await outlookCalendar(world, DEMO.ana, { memory }).port.createEvent('primary', draft, { dedupKey: null });
  if (!made.ok) throw new Error(made.error.message);
  // Ana turns it into an all-day event on 6 April; her mailbox keeps Romance Standard Time (22:00 UTC midnights).
  const stored = eventsTitled(world, DEMO.ana, 'Planning')[0]!;
  Object.assign(stored, {
    isAllDay: true,
    start: t('2027-04-05T22:00:00Z'),
    end: t('2027-04-06T22:00:00Z'),
    startZone: 'Romance Standard Time',
    endZone: 'Romance Standard Time',
  });
  const agenda = await outlookCalendar(world, DEMO.ana, { memory }).port.agenda({ start: t('2027-04-05T23:00:00Z'), end: t('2027-04-06T01:00:00Z') });
  expect(agenda.ok && agenda.value.events.map((e) => [e.start, e.end])).toEqual([[{ date: '2027-04-06' }, { date: '2027-04-07' }]]);
});

test('when free/busy and the agenda are read, then the memory of recent creates is asked once per calendar and call', async () => {
  const memory = hubMemory();
  const reads: string[] = [];
  const counted = { ...memory.recent, since: (...args: Parameters<typeof memory.recent.since>) => (reads.push(args[1]), memory.recent.since(...args)) };
  const made = await outlookCalendar(world, DEMO.ana, { memory }).port.createEvent('primary', draft, { dedupKey: null });
  if (!made.ok) throw new Error(made.error.message);
  const port = outlookCalendar(world, DEMO.ana, { memory: { ...memory, recent: counted } }).port;
  const busy = await port.freeBusy(['primary', DEMO.ana], day, 'Europe/Madrid');
  expect(busy.ok && busy.value.get(DEMO.ana)).toEqual({ readable: true, busy: [planning] });
  expect(reads).toHaveLength(1); // "primary" and the account's own address are one calendar
  await port.agenda(day);
  expect(reads).toHaveLength(1);
});

test('when the Hub’s recent creates lie days outside the range asked, then free/busy reads none of them by id, and a moved one follows its new times', async () => {
  const memory = hubMemory();
  const port = () => outlookCalendar(world, DEMO.ana, { memory }).port;
  const later = await port().createEvent('primary', { ...draft, start: '2027-04-20T10:00:00+02:00', end: '2027-04-20T11:00:00+02:00' }, { dedupKey: null });
  if (!later.ok) throw new Error(later.error.message);
  const reads = () => world.sandbox.world.requestLog.filter((r) => r.operation === 'calendar.events.get' || r.method === 'GET').length;
  const before = reads();
  const busy = await port().freeBusy(['primary'], day, 'Europe/Madrid');
  expect(busy.ok && busy.value.get('primary')).toEqual({ readable: true, busy: [] });
  expect(reads()).toBe(before); // getSchedule is a POST: no event was read by id
  // The Hub moves it into the day asked: Outlook's lists lag for the move, the memory follows it.
  const moved = await port().updateEvent('primary', later.value.event.id, { start: draft.start, end: draft.end }, {});
  expect(moved.ok).toBe(true);
  const now = await port().freeBusy(['primary'], day, 'Europe/Madrid');
  expect(now.ok && now.value.get('primary')).toEqual({ readable: true, busy: [planning] });
});
