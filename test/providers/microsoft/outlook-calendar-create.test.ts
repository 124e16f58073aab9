import { DEMO, type MicrosoftWorld } from '../../helpers/microsoft';
import { eventsTitled, outlookCalendar, requestsFor, useOutlookWorld } from './outlook-calendar';

/** calendar_create_event's guarantees on Outlook: one event per dedupe key, whatever is lost on the way. */

let world: MicrosoftWorld;
useOutlookWorld((started) => (world = started));

const KEY = '0123456789abcdefghijklmnopqrstuv';
const draft = (title: string, extra: Partial<{ attendees: string[]; description: string; location: string }> = {}) => ({
  title,
  start: '2027-03-15T10:00:00+01:00',
  end: '2027-03-15T11:30:00+01:00',
  ...extra,
});

test('when an event is created, then it comes back as the port says: immutable id, web link, exact instants, guests not yet answered', async () => {
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent('primary', draft('Kick-off', { attendees: [DEMO.ben], description: '<b>not html</b> & co', location: 'Room 4' }), {
    dedupKey: KEY,
  });
  expect(created.ok).toBe(true);
  if (!created.ok) return;
  const { event, replayed } = created.value;
  expect(replayed).toBe(false);
  expect(event.id).toMatch(/^AAkALg/); // Prefer: IdType="ImmutableId"
  expect(event.htmlLink).toMatch(/^https:\/\/outlook\.office365\.com\/owa\//);
  expect(event).toMatchObject({
    status: 'confirmed',
    title: 'Kick-off',
    start: { instant: Date.parse('2027-03-15T09:00:00Z') },
    end: { instant: Date.parse('2027-03-15T10:30:00Z') },
    attendees: [{ email: DEMO.ben, responseStatus: 'needsAction' }],
  });
  const [stored] = eventsTitled(world, DEMO.ana, 'Kick-off');
  expect(stored).toMatchObject({ bodyType: 'text', bodyHtml: '<b>not html</b> & co', location: 'Room 4' });
  const read = await port.getEvent('primary', event.id);
  expect(read).toEqual({ ok: true, value: event });
});

test('when the same dedupe key creates twice, then Graph keeps one event and the second answer is a replay', async () => {
  const { port } = outlookCalendar(world, DEMO.ana);
  const first = await port.createEvent('primary', draft('Once'), { dedupKey: KEY });
  const second = await port.createEvent('primary', draft('Once'), { dedupKey: KEY });
  expect(first.ok && second.ok).toBe(true);
  if (!first.ok || !second.ok) return;
  expect(second.value).toEqual({ event: first.value.event, replayed: true });
  expect(eventsTitled(world, DEMO.ana, 'Once')).toHaveLength(1);
});

test.each([
  ['the connection drops after Graph made the event', { drop: true }],
  ['Graph answers 500 after making the event', { preset: 'internalError' }],
  ['the gateway answers 504 after the mailbox made the event', { preset: 'gatewayTimeout' }],
])('when %s, then the adapter finds it by its key through the list lag and answers it once', async (_, fault) => {
  // New events reach lists after 3 s here: the lookup must wait for them inside the deadline (its waits add up to
  // 3.75 s after the first look, so a slow machine only shortens the wait it sees).
  await world.control('PUT', '/consistency', { new_event_delay_ms: 3000 });
  await world.control('POST', '/faults', { operation: 'events.create', apply_first: true, times: 1, ...fault });
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent('primary', draft('Lost answer'), { dedupKey: KEY });
  expect(created).toMatchObject({ ok: true, value: { replayed: true, event: { title: 'Lost answer' } } });
  expect(requestsFor(world, 'events.list').length).toBeGreaterThan(1); // asked again while the list lagged
  expect(eventsTitled(world, DEMO.ana, 'Lost answer')).toHaveLength(1);
});

test('when the answer was lost and the event never reached Graph, then the failure stands, retryable, and the retry creates it once', async () => {
  await world.control('POST', '/faults', { operation: 'events.create', drop: true, times: 1 }); // dropped before the mailbox saw it
  const { port } = outlookCalendar(world, DEMO.ana, { deadlineMs: 8_000 });
  const failed = await port.createEvent('primary', draft('Never made'), { dedupKey: KEY });
  expect(failed).toMatchObject({ ok: false, error: { code: 'EXTERNAL_API_ERROR', retryable: true } });
  expect(eventsTitled(world, DEMO.ana, 'Never made')).toHaveLength(0);
  const retried = await port.createEvent('primary', draft('Never made'), { dedupKey: KEY });
  expect(retried).toMatchObject({ ok: true, value: { replayed: false } });
  expect(eventsTitled(world, DEMO.ana, 'Never made')).toHaveLength(1);
});

test('when a retry comes after the Hub lost its record (a restart, a minute later), then Graph answers the first event and it reads as a replay', async () => {
  const first = await outlookCalendar(world, DEMO.ana).port.createEvent('primary', draft('Crash'), { dedupKey: KEY });
  world.sandbox.world.clock.advance(60_000);
  const again = await outlookCalendar(world, DEMO.ana).port.createEvent('primary', draft('Crash'), { dedupKey: KEY });
  expect(first.ok && again.ok).toBe(true);
  if (!first.ok || !again.ok) return;
  expect(again.value).toEqual({ event: first.value.event, replayed: true });
  expect(eventsTitled(world, DEMO.ana, 'Crash')).toHaveLength(1);
});

test('when a dedupe key comes back with another event, then Graph refuses the transactionId and the adapter answers the first event as a replay', async () => {
  const { port } = outlookCalendar(world, DEMO.ana);
  const first = await port.createEvent('primary', draft('Original'), { dedupKey: KEY });
  const reused = await outlookCalendar(world, DEMO.ana).port.createEvent('primary', draft('Different'), { dedupKey: KEY });
  expect(first.ok && reused.ok).toBe(true);
  if (!first.ok || !reused.ok) return;
  expect(reused.value).toEqual({ event: first.value.event, replayed: true }); // the tool compares and answers CONFLICT
  expect(eventsTitled(world, DEMO.ana, 'Different')).toHaveLength(0);
});

test('when there is no dedupe key, then the call still names its event, so its own retry after a lost answer makes one', async () => {
  await world.control('POST', '/faults', { operation: 'events.create', apply_first: true, drop: true, times: 1 });
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent('primary', draft('Keyless'), { dedupKey: null });
  expect(created).toMatchObject({ ok: true, value: { replayed: true } });
  expect(eventsTitled(world, DEMO.ana, 'Keyless')).toHaveLength(1);
});

test('when send_notifications is false and there are attendees, then nothing is created and the field is named; without attendees it is honoured', async () => {
  const { port, attempts } = outlookCalendar(world, DEMO.ana);
  const refused = await port.createEvent('primary', draft('Quiet', { attendees: [DEMO.ben] }), { dedupKey: KEY, notify: false });
  expect(refused).toMatchObject({
    ok: false,
    error: { code: 'VALIDATION_ERROR', details: { reason: 'notifications_not_supported', issues: [{ path: 'inputs.send_notifications' }] } },
  });
  expect(attempts()).toBe(0);
  const alone = await port.createEvent('primary', draft('Quiet'), { dedupKey: KEY, notify: false });
  expect(alone).toMatchObject({ ok: true, value: { event: { attendees: [] } } });
});

test('when the end is not after the start, or a calendar id cannot be an id, then nothing is sent', async () => {
  const { port, attempts } = outlookCalendar(world, DEMO.ana);
  const empty = await port.createEvent('primary', { title: 'x', start: '2027-03-15T10:00:00Z', end: '2027-03-15T10:00:00Z' }, { dedupKey: null });
  expect(empty).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', details: { reason: 'time_range_empty' } } });
  const dots = await port.createEvent('..', draft('x'), { dedupKey: null });
  expect(dots).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND' } });
  expect(attempts()).toBe(0);
});

test('when an event is created on another calendar of the account, then it lands there', async () => {
  const made = await world.control('POST', `/accounts/${DEMO.ana}/calendars`, { name: 'Projects' });
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent(made.body.id, draft('On projects'), { dedupKey: KEY });
  expect(created.ok).toBe(true);
  expect(eventsTitled(world, DEMO.ana, 'On projects')[0]!.calendarId).toBe(made.body.id);
  const unknown = await port.createEvent(`AAMkAG${'x'.repeat(60)}AAA=`, draft('Nowhere'), { dedupKey: null });
  expect(unknown).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND', details: { upstream_status: 404 } } });
});
