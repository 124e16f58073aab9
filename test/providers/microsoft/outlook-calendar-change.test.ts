import { DEMO, type MicrosoftWorld } from '../../helpers/microsoft';
import { eventsTitled, outlookCalendar, requestsFor, useOutlookWorld } from './outlook-calendar';

/** calendar_update_event and calendar_delete_event on Outlook: the same guarantees as on Google. */

let world: MicrosoftWorld;
useOutlookWorld((started) => (world = started), { instant: true });

const CHEN_ELSEWHERE = 'dana@fabrikam.example';

async function meeting(title: string, attendees: string[] = [DEMO.ben, DEMO.chen]) {
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent('primary', { title, start: '2027-04-05T15:00:00Z', end: '2027-04-05T16:00:00Z', attendees }, { dedupKey: null });
  if (!created.ok) throw new Error(JSON.stringify(created.error));
  return created.value.event;
}

/** Ben answers his copy of the meeting through Graph, as Outlook would. */
async function benAnswers(title: string, action: 'accept' | 'decline' | 'tentativelyAccept') {
  const token = await world.token(DEMO.ben);
  const copy = eventsTitled(world, DEMO.ben, title)[0]!;
  const res = await fetch(`${world.graphUrl}/me/events/${copy.id}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ comment: 'ok', sendResponse: true }),
  });
  expect(res.status).toBe(202);
}

test('when the guest list is rewritten, then guests who stay keep their replies, new ones are invited and those left out are removed', async () => {
  const event = await meeting('Guests');
  await benAnswers('Guests', 'accept');
  const { port } = outlookCalendar(world, DEMO.ana);
  const updated = await port.updateEvent('primary', event.id, { attendees: [DEMO.ben, CHEN_ELSEWHERE] }, {});
  expect(updated).toMatchObject({
    ok: true,
    value: {
      attendees: [
        { email: DEMO.ben, responseStatus: 'accepted' },
        { email: CHEN_ELSEWHERE, responseStatus: 'needsAction' },
      ],
    },
  });
  expect(requestsFor(world, 'events.update')).toHaveLength(1);
  const [stored] = eventsTitled(world, DEMO.ana, 'Guests');
  expect(stored!.attendees.map((a) => a.address)).toEqual([DEMO.ben, CHEN_ELSEWHERE]);
});

test('when someone changes the event between the read and the write, then Graph answers 412 and the list is read and rebuilt again', async () => {
  const event = await meeting('Race');
  await world.control('POST', '/faults', { operation: 'events.update', preset: 'conflict', times: 2 });
  const { port } = outlookCalendar(world, DEMO.ana);
  const updated = await port.updateEvent('primary', event.id, { attendees: [DEMO.ben] }, {});
  expect(updated).toMatchObject({ ok: true, value: { attendees: [{ email: DEMO.ben }] } });
  expect(requestsFor(world, 'events.get')).toHaveLength(3);
  for (const r of requestsFor(world, 'events.update')) expect(r.status === 412 || r.status === 200).toBe(true);
});

test('when the event keeps changing for three rounds, then the update is CONFLICT concurrent_change, retryable', async () => {
  const event = await meeting('Busy race');
  await world.control('POST', '/faults', { operation: 'events.update', preset: 'conflict', times: 3 });
  const { port } = outlookCalendar(world, DEMO.ana);
  const updated = await port.updateEvent('primary', event.id, { attendees: [DEMO.ben] }, {});
  expect(updated).toMatchObject({ ok: false, error: { code: 'CONFLICT', retryable: true, details: { reason: 'concurrent_change', event_id: event.id } } });
});

test('when a reply really lands between the read and the write, then the stale etag is refused and the reply survives', async () => {
  const event = await meeting('Real race');
  const { port } = outlookCalendar(world, DEMO.ana);
  // The adapter's write is held at the sandbox's door; Ben answers once it has arrived, so the etag it carries
  // (read before) is stale by the time it is applied.
  await world.control('POST', '/faults', { operation: 'events.update', latency_ms: 2500, times: 1 });
  const held = world.sandbox.world.faults.rules.find((r) => r.operation === 'events.update')!;
  const update = port.updateEvent('primary', event.id, { attendees: [DEMO.ben, DEMO.chen, CHEN_ELSEWHERE] }, {});
  while (held.hits === 0) await new Promise((r) => setTimeout(r, 10));
  await benAnswers('Real race', 'accept');
  const updated = await update;
  expect(updated).toMatchObject({
    ok: true,
    value: { attendees: [{ email: DEMO.ben, responseStatus: 'accepted' }, { email: DEMO.chen }, { email: CHEN_ELSEWHERE }] },
  });
  expect(requestsFor(world, 'events.update').map((r) => r.status)).toEqual([412, 200]);
});

test('when only the end changes and it would fall before the stored start, then VALIDATION_ERROR time_range_empty and nothing is written', async () => {
  const event = await meeting('Short', []);
  const { port } = outlookCalendar(world, DEMO.ana);
  const early = await port.updateEvent('primary', event.id, { end: '2027-04-05T14:00:00Z' }, {});
  expect(early).toMatchObject({
    ok: false,
    error: { code: 'VALIDATION_ERROR', details: { reason: 'time_range_empty', issues: [{ path: 'inputs.updates' }] } },
  });
  const both = await port.updateEvent('primary', event.id, { start: '2027-04-05T18:00:00Z', end: '2027-04-05T17:00:00Z' }, {});
  expect(both).toMatchObject({ ok: false, error: { details: { reason: 'time_range_empty' } } });
  expect(requestsFor(world, 'events.update')).toHaveLength(0);
  const later = await port.updateEvent('primary', event.id, { end: '2027-04-05T17:15:00+01:00' }, {});
  expect(later).toMatchObject({
    ok: true,
    value: { start: { instant: Date.parse('2027-04-05T15:00:00Z') }, end: { instant: Date.parse('2027-04-05T16:15:00Z') } },
  });
});

test('when only the title changes, then one PATCH changes only the title', async () => {
  const event = await meeting('Old title');
  const { port } = outlookCalendar(world, DEMO.ana);
  const updated = await port.updateEvent('primary', event.id, { title: 'New title', location: 'Room 9' }, {});
  expect(updated).toMatchObject({ ok: true, value: { title: 'New title', attendees: event.attendees } });
  expect(requestsFor(world, 'events.get')).toHaveLength(0);
  expect(eventsTitled(world, DEMO.ana, 'New title')[0]).toMatchObject({ location: 'Room 9', start: Date.parse('2027-04-05T15:00:00Z') });
});

test('when send_notifications is false for a meeting, then the update and the delete are refused naming the field; for a lone event they go ahead', async () => {
  const withGuests = await meeting('Meeting');
  const lone = await meeting('Lone', []);
  const { port } = outlookCalendar(world, DEMO.ana);
  const refused = {
    ok: false,
    error: { code: 'VALIDATION_ERROR', details: { reason: 'notifications_not_supported', issues: [{ path: 'inputs.send_notifications' }] } },
  };
  expect(await port.updateEvent('primary', withGuests.id, { title: 'Quietly' }, { notify: false })).toMatchObject(refused);
  expect(await port.deleteEvent('primary', withGuests.id, { notify: false })).toMatchObject(refused);
  expect(await port.updateEvent('primary', lone.id, { attendees: [DEMO.ben] }, { notify: false })).toMatchObject(refused); // it would invite Ben
  expect(eventsTitled(world, DEMO.ana, 'Meeting')).toHaveLength(1);
  expect(await port.updateEvent('primary', lone.id, { title: 'Lone, renamed' }, { notify: false })).toMatchObject({ ok: true });
  expect(await port.deleteEvent('primary', lone.id, { notify: false })).toEqual({ ok: true, value: { alreadyDeleted: false } });
});

test('when an event is deleted twice, then the second says alreadyDeleted; an unknown event is RESOURCE_NOT_FOUND', async () => {
  const event = await meeting('Twice');
  const { port, memory } = outlookCalendar(world, DEMO.ana);
  expect(await port.deleteEvent('primary', event.id, {})).toEqual({ ok: true, value: { alreadyDeleted: false } });
  expect(await outlookCalendar(world, DEMO.ana, { memory }).port.deleteEvent('primary', event.id, {})).toEqual({ ok: true, value: { alreadyDeleted: true } });
  // A Hub that shares no memory with this one never sent that delete: Graph's 404 is all it has.
  const elsewhere = await outlookCalendar(world, DEMO.ana).port.deleteEvent('primary', event.id, {});
  expect(elsewhere).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND', details: { upstream_status: 404 } } });
  const unknown = await port.deleteEvent('primary', `AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A${'q'.repeat(60)}AAA=`, {});
  expect(unknown).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND' } });
  expect(eventsTitled(world, DEMO.ben, 'Twice')[0]).toMatchObject({ isCancelled: true }); // the attendees were told
});

test('when the delete was applied but its answer was lost, then the retry says alreadyDeleted', async () => {
  const event = await meeting('Lost delete');
  await world.control('POST', '/faults', { operation: 'events.delete', apply_first: true, drop: true, times: 1 });
  const { port, memory } = outlookCalendar(world, DEMO.ana);
  const first = await port.deleteEvent('primary', event.id, {});
  expect(first).toMatchObject({ ok: false, error: { code: 'EXTERNAL_API_ERROR', retryable: true } });
  const retry = await outlookCalendar(world, DEMO.ana, { memory }).port.deleteEvent('primary', event.id, {});
  expect(retry).toEqual({ ok: true, value: { alreadyDeleted: true } });
});

test('when Graph answers 404 for an event the Hub just created, then the read is asked again and succeeds', async () => {
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent('primary', { title: 'Fresh', start: '2027-04-05T15:00:00Z', end: '2027-04-05T16:00:00Z' }, { dedupKey: null });
  if (!created.ok) throw new Error('create failed');
  await world.control('POST', '/faults', { operation: 'events.get', preset: 'itemNotFound', times: 2 });
  expect(await port.getEvent('primary', created.value.event.id)).toMatchObject({ ok: true, value: { title: 'Fresh' } });
  await world.control('POST', '/faults', { operation: 'events.get', preset: 'itemNotFound', times: 10 });
  const lasting = await port.getEvent('primary', created.value.event.id);
  expect(lasting).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND', retryable: true, details: { recently_created: true } } });
  const other = await outlookCalendar(world, DEMO.ana).port.getEvent('primary', created.value.event.id); // not this Hub's create
  expect(other).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND', retryable: false } });
});

test('when an all-day event is read, then its times are dates; changing only one of its times asks for both', async () => {
  const seeded = await world.control('POST', `/accounts/${DEMO.ana}/events`, {
    subject: 'Holiday',
    start: '2027-04-09T00:00:00+02:00',
    end: '2027-04-10T00:00:00+02:00',
    all_day: true,
    time_zone: 'Romance Standard Time',
  });
  const id = eventsTitled(world, DEMO.ana, 'Holiday')[0]!.immutableId;
  expect(seeded.status).toBe(201);
  const { port } = outlookCalendar(world, DEMO.ana);
  expect(await port.getEvent('primary', id)).toMatchObject({ ok: true, value: { start: { date: '2027-04-09' }, end: { date: '2027-04-10' } } });
  const one = await port.updateEvent('primary', id, { start: '2027-04-09T09:00:00+02:00' }, {});
  expect(one).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', details: { reason: 'all_day_event' } } });
  const both = await port.updateEvent('primary', id, { start: '2027-04-09T09:00:00+02:00', end: '2027-04-09T10:00:00+02:00' }, {});
  expect(both).toMatchObject({ ok: true, value: { start: { instant: Date.parse('2027-04-09T07:00:00Z') } } });
});
