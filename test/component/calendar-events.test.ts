import { calendarCreateEvent } from '../../src/tools/calendar/create-event';
import { calendarDeleteEvent } from '../../src/tools/calendar/delete-event';
import { calendarUpdateEvent } from '../../src/tools/calendar/update-event';
import { storageKey } from '../../src/protection/idempotency-store';
import { openRedis } from '../../src/store/redis';
import { runTool, sandboxHubEnv } from '../helpers/connected';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';
import { buildTestHub } from '../helpers/hub';
import {
  ANA,
  JOHN,
  SUITE_NOW,
  calendarRequestsSince,
  calendarTool,
  connectPerson,
  createRecorded,
  loseIdempotencyRecords,
  requestLogPosition,
  storedEvents,
  useCalendarSuite,
} from '../helpers/calendar';

/** calendar_create_event / calendar_update_event / calendar_delete_event end to end against the sandbox. */

const suite = useCalendarSuite();
const { sb } = suite;
const NY = 'America/New_York';

const CONTRACT_CREATE = {
  title: 'Meeting with John',
  start: '2027-01-18T14:00:00-05:00',
  end: '2027-01-18T15:00:00-05:00',
  description: 'Discuss Q1 planning',
  location: 'Zoom',
  attendees: [JOHN],
  send_notifications: true,
};

const ana = () => connectPerson(suite, { email: ANA, time_zone: NY });
type Who = Awaited<ReturnType<typeof ana>>;
const create = (who: Who, inputs: Record<string, unknown> = CONTRACT_CREATE, requestId?: string) =>
  calendarTool(suite, who, 'calendar_create_event', inputs, requestId);
const update = (who: Who, inputs: Record<string, unknown>, requestId?: string) => calendarTool(suite, who, 'calendar_update_event', inputs, requestId);
const remove = (who: Who, inputs: Record<string, unknown>, requestId?: string) => calendarTool(suite, who, 'calendar_delete_event', inputs, requestId);
const liveEvents = () => storedEvents(sb, ANA).filter((r) => r.fields.status !== 'cancelled');

describe('create', () => {
  test('when created with the contract inputs, then the contract result comes back and Google got summary, times, guests and sendUpdates=all', async () => {
    const who = await ana();
    const since = await requestLogPosition(sb);
    const res = await create(who);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      event_id: expect.stringMatching(/^[a-v0-9]{5,}$/),
      html_link: expect.stringMatching(/^https:\/\/www\.google\.com\/calendar\/event\?eid=/),
      status: 'confirmed',
      attendees: [{ email: JOHN, response_status: 'needsAction' }],
    });
    expect(calendarCreateEvent.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.metadata.api_calls).toBe(1);
    const [insert] = await calendarRequestsSince(sb, since);
    expect(insert).toMatchObject({ operation: 'calendar.events.insert', status: 200, query: { sendUpdates: 'all' } });
    const [stored] = liveEvents();
    expect(stored).toMatchObject({
      id: res.body.result.event_id,
      fields: { summary: 'Meeting with John', description: 'Discuss Q1 planning', location: 'Zoom' },
    });
    expect(stored!.timing).toMatchObject({ startMs: Date.parse('2027-01-18T19:00:00Z'), endMs: Date.parse('2027-01-18T20:00:00Z') });
  });

  test('when send_notifications is false, then Google is asked for sendUpdates=none', async () => {
    const who = await ana();
    const since = await requestLogPosition(sb);
    await create(who, { ...CONTRACT_CREATE, send_notifications: false });
    expect((await calendarRequestsSince(sb, since))[0]!.query.sendUpdates).toBe('none');
  });

  test.each([
    ['end equal to start', { ...CONTRACT_CREATE, end: CONTRACT_CREATE.start }, 'inputs.end'],
    ['end before start', { ...CONTRACT_CREATE, end: '2027-01-18T13:00:00-05:00' }, 'inputs.end'],
    ['a start without offset', { ...CONTRACT_CREATE, start: '2027-01-18T14:00:00' }, 'inputs.start'],
    ['an attendee that is no email', { ...CONTRACT_CREATE, attendees: ['not-an-email'] }, 'inputs.attendees[0]'],
    ['an empty title', { ...CONTRACT_CREATE, title: '' }, 'inputs.title'],
  ])('when the inputs have %s, then VALIDATION_ERROR names the field and nothing reaches Google', async (_label, inputs, path) => {
    const who = await ana();
    const since = await requestLogPosition(sb);
    const res = await create(who, inputs);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await calendarRequestsSince(sb, since)).toEqual([]);
  });
});

describe('create is never duplicated by a retry', () => {
  test('when the same request_id is sent twice, then one event exists and the second answer is the first one replayed', async () => {
    const who = await ana();
    const first = await create(who, CONTRACT_CREATE, 'req-create-1');
    const second = await create(who, CONTRACT_CREATE, 'req-create-1');
    expect(second.body.result).toEqual(first.body.result);
    expect(second.body.metadata).toMatchObject({ api_calls: 0, idempotent_replay: true });
    expect(liveEvents()).toHaveLength(1);
  });

  test('when a burst of retries shares one request_id, then Google sees one insert and every answer is that event or a retryable CONFLICT', async () => {
    const who = await ana();
    const since = await requestLogPosition(sb);
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(who, CONTRACT_CREATE, 'req-burst-1')));
    const inserts = (await calendarRequestsSince(sb, since)).filter((r) => r.operation === 'calendar.events.insert');
    expect(inserts.map((r) => r.status)).toEqual([200]);
    const created = answers.filter((a) => a.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of created) expect(a.body.result).toEqual(created[0]!.body.result);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.body.error).toMatchObject({ code: 'CONFLICT', retryable: true, details: { reason: 'request_in_progress' } });
    }
    expect(liveEvents()).toHaveLength(1);
  });

  test('when the answer has gone out, then its record lands in the store and a Hub started afresh on the same database replays it without calling Google', async () => {
    const who = await ana();
    const first = await create(who, CONTRACT_CREATE, 'req-durable-1');
    const { db } = suite.hub().testDb;
    await createRecorded(db, who, 'req-durable-1');
    const restarted = await buildTestHub({ db, env: sandboxHubEnv(sb), now: () => SUITE_NOW });
    const since = await requestLogPosition(sb);
    const retry = await runTool(restarted, who, 'calendar_create_event', CONTRACT_CREATE, { requestId: 'req-durable-1' });
    expect(retry.body.result).toEqual(first.body.result);
    expect(retry.body.metadata).toMatchObject({ api_calls: 0, idempotent_replay: true });
    expect(await calendarRequestsSince(sb, since)).toEqual([]);
    const other = await runTool(restarted, who, 'calendar_create_event', { ...CONTRACT_CREATE, title: 'Other' }, { requestId: 'req-durable-1' });
    expect(other.body.error).toMatchObject({ code: 'CONFLICT', retryable: false, details: { reason: 'request_id_reused' } });
  });

  (services().redisUrl ? test : test.skip)(
    'when replicas share Redis, then a retry on another replica replays the create, and two at once make one event (Google’s 409 for the second)',
    async () => {
      const clients = [await openRedis(services().redisUrl!, captureLogs().logger), await openRedis(services().redisUrl!, captureLogs().logger)];
      try {
        const [a, b] = await Promise.all(
          clients.map((redis) => buildTestHub({ db: suite.hub().testDb.db, redis, env: sandboxHubEnv(sb), now: () => SUITE_NOW })),
        );
        const who = await ana();
        const first = await runTool(a!, who, 'calendar_create_event', CONTRACT_CREATE, { requestId: 'req-redis-1' });
        expect(first.status).toBe(200);
        const recorded = `hub:${storageKey({ customerId: who.customerId.toLowerCase(), tool: 'calendar_create_event', requestId: 'req-redis-1' })}`;
        for (let i = 0; i < 200 && (await clients[0]!.exists(recorded)) === 0; i++) await new Promise((r) => setTimeout(r, 10));
        const since = await requestLogPosition(sb);
        const retry = await runTool(b!, who, 'calendar_create_event', CONTRACT_CREATE, { requestId: 'req-redis-1' });
        expect(retry.body.result).toEqual(first.body.result);
        expect(retry.body.metadata).toMatchObject({ api_calls: 0, idempotent_replay: true });
        expect(await calendarRequestsSince(sb, since)).toEqual([]);

        const both = await Promise.all(
          [a!, b!].map((hub) => runTool(hub, who, 'calendar_create_event', { ...CONTRACT_CREATE, title: 'Both' }, { requestId: 'req-redis-2' })),
        );
        expect(both.map((r) => r.status)).toEqual([200, 200]);
        expect(both[1]!.body.result).toEqual(both[0]!.body.result);
        expect(liveEvents().filter((e) => e.fields.summary === 'Both')).toHaveLength(1);
      } finally {
        for (const c of clients) await c.quit();
      }
    },
  );

  test('when the Hub crashed after Google created the event (no idempotency record), then the retry meets 409 duplicate, reads the event and answers the same', async () => {
    const who = await ana();
    const first = await create(who, CONTRACT_CREATE, 'req-crash-1');
    await loseIdempotencyRecords(suite.hub().testDb.db, who, 'req-crash-1'); // what a crash before recording leaves behind
    const since = await requestLogPosition(sb);
    const retry = await create(who, CONTRACT_CREATE, 'req-crash-1');
    expect(retry.status).toBe(200);
    expect(retry.body.result).toEqual(first.body.result);
    expect((await calendarRequestsSince(sb, since)).map((r) => [r.operation, r.status])).toEqual([
      ['calendar.events.insert', 409],
      ['calendar.events.get', 200],
    ]);
    expect(retry.body.metadata.api_calls).toBe(2);
    expect(liveEvents()).toHaveLength(1);
  });

  test('when Google answers the insert with a 500 and a request_id was given, then the Hub retries it (its id makes that safe) and one event results', async () => {
    const who = await ana();
    await sb.control('POST', '/faults', { operation: 'calendar.events.insert', preset: 'backendError', times: 1 });
    const res = await create(who, CONTRACT_CREATE, 'req-retry-1');
    expect(res.status).toBe(200);
    expect(res.body.metadata.api_calls).toBe(2);
    expect(liveEvents()).toHaveLength(1);
  });

  test('when a request_id that created one event is reused after a crash for a different event, then CONFLICT and no second event', async () => {
    const who = await ana();
    await create(who, CONTRACT_CREATE, 'req-reuse-1');
    await loseIdempotencyRecords(suite.hub().testDb.db, who, 'req-reuse-1');
    const res = await create(who, { ...CONTRACT_CREATE, title: 'Something else' }, 'req-reuse-1');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', retryable: false, details: { reason: 'request_id_reused' } });
    expect(liveEvents()).toHaveLength(1);
  });

  test('when two customers use the same request_id, then each gets its own event', async () => {
    const a = await ana();
    const b = await connectPerson(suite, { email: 'bob@acme.example', time_zone: NY });
    const ra = await create(a, CONTRACT_CREATE, 'shared-id');
    const rb = await create(b, CONTRACT_CREATE, 'shared-id');
    expect(ra.body.result.event_id).not.toBe(rb.body.result.event_id);
  });

  test('without a request_id, when every insert answers 500, then the Hub retries under its own random id and answers EXTERNAL_API_ERROR with the status', async () => {
    const who = await ana();
    await sb.control('POST', '/faults', { operation: 'calendar.events.insert', preset: 'backendError' });
    const res = await create(who);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 500 } });
    expect(res.body.metadata.api_calls).toBeGreaterThan(1);
    expect(JSON.stringify(res.body)).not.toMatch(/Internal error encountered|stack/);
    expect(liveEvents()).toHaveLength(0);
  });
});

describe('update', () => {
  test('when updated with the contract inputs, then only those fields change, the result has the create shape, and guests are notified', async () => {
    const who = await ana();
    const created = await create(who);
    const since = await requestLogPosition(sb);
    const res = await update(who, {
      event_id: created.body.result.event_id,
      updates: { title: 'Updated: Meeting with John', start: '2027-01-18T15:00:00-05:00', end: '2027-01-18T16:00:00-05:00' },
      send_notifications: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ ...created.body.result, attendees: [{ email: JOHN, response_status: 'needsAction' }] });
    expect(calendarUpdateEvent.output.safeParse(res.body.result).success).toBe(true);
    const [patch] = await calendarRequestsSince(sb, since);
    expect(patch).toMatchObject({ method: 'PATCH', operation: 'calendar.events.patch', query: { sendUpdates: 'all' } });
    const [stored] = liveEvents();
    expect(stored!.fields).toMatchObject({ summary: 'Updated: Meeting with John', description: 'Discuss Q1 planning', location: 'Zoom' });
    expect(stored!.timing).toMatchObject({ startMs: Date.parse('2027-01-18T20:00:00Z') });
  });

  test('when the event id is unknown, then RESOURCE_NOT_FOUND naming the event', async () => {
    const who = await ana();
    const res = await update(who, { event_id: 'doesnotexist123', updates: { title: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      details: { event_id: 'doesnotexist123', calendar_id: 'primary', upstream_status: 404 },
    });
  });

  test('when only a start after the stored end is given, then VALIDATION_ERROR (Google refused the empty range)', async () => {
    const who = await ana();
    const created = await create(who);
    const res = await update(who, { event_id: created.body.result.event_id, updates: { start: '2027-01-18T18:00:00-05:00' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('inputs.updates');
  });

  test('when updates is empty, then VALIDATION_ERROR on inputs.updates', async () => {
    const who = await ana();
    const res = await update(who, { event_id: 'abc123', updates: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'inputs.updates', message: 'give at least one field to change' }]);
  });
});

describe('delete', () => {
  test('when deleted with the contract inputs, then {event_id, deleted: true}; deleting again is a success with already_deleted', async () => {
    const who = await ana();
    const { event_id } = (await create(who)).body.result;
    const since = await requestLogPosition(sb);
    const res = await remove(who, { event_id, send_notifications: true });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ event_id, deleted: true });
    expect(calendarDeleteEvent.output.safeParse(res.body.result).success).toBe(true);
    expect((await calendarRequestsSince(sb, since))[0]).toMatchObject({ method: 'DELETE', query: { sendUpdates: 'all' }, status: 204 });
    const again = await remove(who, { event_id, send_notifications: false });
    expect(again.status).toBe(200);
    expect(again.body.result).toEqual({ event_id, deleted: true, already_deleted: true });
    expect(liveEvents()).toHaveLength(0);
  });

  test('when the event id is unknown, then RESOURCE_NOT_FOUND', async () => {
    const who = await ana();
    const res = await remove(who, { event_id: 'abc123' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });
});
