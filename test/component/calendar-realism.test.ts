import { client, serviceAuth } from '../helpers/http';
import { SCOPES } from '../helpers/sandbox';
import {
  ANA,
  calendarRequestsSince,
  calendarTool,
  connectPerson,
  loseIdempotencyRecords,
  requestLogPosition,
  storedEvents,
  useCalendarSuite,
} from '../helpers/calendar';

/**
 * The calendar tools against a Google that is not kind: a guest list rewritten without the replies, a change
 * racing the rewrite, freeBusy's 90 × 24 h limit across DST, a read right after a create missing it, and guests
 * whose settings keep a quiet invitation off their calendar. The Hub over HTTP, Google played by the sandbox.
 */

// Room for a held request (below) and for every wait of the 404 retries inside one call.
const suite = useCalendarSuite({ HUB_GOOGLE_TIMEOUT_MS: '4000', HUB_TOOL_DEADLINE_MS: '15000' });
const { sb } = suite;
const NY = 'America/New_York';
const BEN = 'ben@acme.example';
const CARLA = 'carla@partner.example';

const ana = () => connectPerson(suite, { email: ANA, time_zone: NY });
type Who = Awaited<ReturnType<typeof ana>>;
const tool = (who: Who, name: string, inputs: Record<string, unknown>, requestId?: string) => calendarTool(suite, who, name, inputs, requestId);
const meeting = (extra: Record<string, unknown> = {}) => ({
  title: 'Planning',
  start: '2027-01-18T14:00:00-05:00',
  end: '2027-01-18T15:00:00-05:00',
  ...extra,
});
const steps = async (since: number) => (await calendarRequestsSince(sb, since)).map((r) => `${r.operation!.replace('calendar.', '')} ${r.status}`);

/** Ben answers the invitation on his own calendar, as Google Calendar does for him. */
async function benAnswers(eventId: string, responseStatus: string, extra: Record<string, unknown> = {}) {
  const ben = sb.google.calendar(sb.google.withAccessToken(await sb.token(BEN, [SCOPES.calendar])));
  const copy = (await ben.events.get({ calendarId: 'primary', eventId })).data;
  const attendees = copy.attendees!.map((a) => (a.self ? { ...a, responseStatus, ...extra } : a));
  await ben.events.patch({ calendarId: 'primary', eventId, requestBody: { attendees } });
}

const guestAtGoogle = (eventId: string, email: string) =>
  storedEvents(sb, ANA)
    .find((r) => r.id === eventId)!
    .fields.attendees!.find((a) => a.email === email);

describe('updates.attendees keeps the replies of the guests who stay', () => {
  async function acceptedByBen(who: Who) {
    await sb.createAccount({ email: BEN, time_zone: NY });
    const created = await tool(who, 'calendar_create_event', meeting({ attendees: [BEN] }));
    await benAnswers(created.body.result.event_id, 'accepted', { comment: 'Bringing slides', additionalGuests: 1 });
    return created.body.result.event_id as string;
  }

  test('when Ben accepted and an update adds Carla, then Ben is still accepted in the result and at Google, and only Carla is invited', async () => {
    const who = await ana();
    const eventId = await acceptedByBen(who);
    const mailBefore = sb.world.calendar.notifications.length;
    const since = await requestLogPosition(sb);
    const res = await tool(who, 'calendar_update_event', { event_id: eventId, updates: { attendees: [BEN, CARLA] }, send_notifications: true });
    expect(res.status).toBe(200);
    expect(res.body.result.attendees).toEqual([
      { email: BEN, response_status: 'accepted' },
      { email: CARLA, response_status: 'needsAction' },
    ]);
    expect(await steps(since)).toEqual(['events.get 200', 'events.patch 200']);
    expect(guestAtGoogle(eventId, BEN)).toEqual({ email: BEN, responseStatus: 'accepted', comment: 'Bringing slides', additionalGuests: 1 });
    expect(sb.world.calendar.notifications.slice(mailBefore).map((n) => [n.kind, n.to])).toEqual([
      ['invitation', CARLA],
      ['update', BEN],
    ]);
  });

  test("when Ben declines between the Hub's read and its write, then Google refuses the stale write (412) and the Hub rebuilds the list from the fresh event", async () => {
    const who = await ana();
    const eventId = await acceptedByBen(who);
    // Hold the Hub's first patch at Google's door long enough for Ben to answer in between.
    const fault = (await sb.control('POST', '/faults', { operation: 'calendar.events.patch', latency_ms: 2000, times: 1 })).body;
    const since = await requestLogPosition(sb);
    const pending = Promise.resolve(tool(who, 'calendar_update_event', { event_id: eventId, updates: { attendees: [BEN, CARLA] } })); // sent now
    await until(async () => (await sb.control('GET', '/faults')).body.faults.find((f: { id: string }) => f.id === fault.id).hits === 1);
    await benAnswers(eventId, 'declined');
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.result.attendees).toEqual([
      { email: BEN, response_status: 'declined' },
      { email: CARLA, response_status: 'needsAction' },
    ]);
    const hub = (await calendarRequestsSince(sb, since)).filter((r) => r.account === ANA).map((r) => `${r.operation} ${r.status}`);
    expect(hub).toEqual(['calendar.events.get 200', 'calendar.events.patch 412', 'calendar.events.get 200', 'calendar.events.patch 200']);
    expect(guestAtGoogle(eventId, BEN)!.responseStatus).toBe('declined');
  });

  test('when the event keeps changing at every try, then CONFLICT (retryable) after three rounds and the guest list is untouched', async () => {
    const who = await ana();
    const eventId = await acceptedByBen(who);
    const body = {
      error: {
        code: 412,
        message: 'Precondition Failed',
        errors: [{ domain: 'global', reason: 'conditionNotMet', message: 'Precondition Failed', locationType: 'header', location: 'If-Match' }],
      },
    };
    await sb.control('POST', '/faults', { operation: 'calendar.events.patch', status: 412, body, times: 3 });
    const res = await tool(who, 'calendar_update_event', { event_id: eventId, updates: { attendees: [BEN, CARLA] } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', retryable: true, details: { reason: 'concurrent_change', event_id: eventId } });
    expect(res.body.metadata.api_calls).toBe(6);
    expect(
      storedEvents(sb, ANA)
        .find((r) => r.id === eventId)!
        .fields.attendees!.map((a) => a.email),
    ).toEqual([BEN]);
  });

  test('when a guest is left out, then they are removed while the others keep their replies', async () => {
    const who = await ana();
    const eventId = await acceptedByBen(who);
    await tool(who, 'calendar_update_event', { event_id: eventId, updates: { attendees: [BEN, CARLA] } });
    const res = await tool(who, 'calendar_update_event', { event_id: eventId, updates: { attendees: [BEN] } });
    expect(res.body.result.attendees).toEqual([{ email: BEN, response_status: 'accepted' }]);
  });
});

describe('freeBusy never gets a range Google refuses', () => {
  test('when 90 local days cross the autumn DST change (90 × 24 h + 1 h), then two windows are asked and a busy period across the cut comes back whole', async () => {
    // Sep 1 00:00 EDT + 90 × 24 h = Nov 29 23:00 EST: the cut. The range ends an hour later (Nov 30 00:00 EST).
    const who = await connectPerson(suite, {
      email: ANA,
      time_zone: NY,
      events: [{ summary: 'Late call', start: '2027-11-29T22:00:00-05:00', end: '2027-11-29T23:30:00-05:00' }],
    });
    const since = await requestLogPosition(sb);
    const res = await tool(who, 'calendar_get_availability', { start_date: '2027-09-01', end_date: '2027-11-29', timezone: NY });
    expect(res.status).toBe(200);
    expect(res.body.result.busy_periods).toEqual([{ start: '2027-11-29T22:00:00-05:00', end: '2027-11-29T23:30:00-05:00', calendar: 'primary' }]);
    expect((await steps(since)).filter((s) => s.startsWith('freebusy'))).toEqual(['freebusy.query 200', 'freebusy.query 200']);
  });

  test('when the range fits in 90 × 24 h, then one request suffices', async () => {
    const who = await ana();
    const since = await requestLogPosition(sb);
    const res = await tool(who, 'calendar_get_availability', { start_date: '2027-01-01', end_date: '2027-03-31', timezone: NY });
    expect(res.status).toBe(200);
    expect((await steps(since)).filter((s) => s.startsWith('freebusy'))).toEqual(['freebusy.query 200']);
  });
});

describe("a read right after the Hub's own create (Google is eventually consistent)", () => {
  const lag = (ms: number) => sb.control('PUT', '/settings', { calendar_propagation_delay_ms: ms });

  test('when a retried create meets 409 but the event is not readable yet, then the Hub reads again until it is and answers the first result', async () => {
    const who = await ana();
    await lag(2000); // long enough that the first read misses it even on a slow machine
    const first = await tool(who, 'calendar_create_event', meeting(), 'req-lag-1');
    await loseIdempotencyRecords(suite.hub().testDb.db, who, 'req-lag-1'); // a crash before the answer was recorded
    const since = await requestLogPosition(sb);
    const retry = await tool(who, 'calendar_create_event', meeting(), 'req-lag-1');
    expect(retry.status).toBe(200);
    expect(retry.body.result).toEqual(first.body.result);
    const log = await steps(since);
    expect(log[0]).toBe('events.insert 409');
    expect(log[1]).toBe('events.get 404');
    expect(log.at(-1)).toBe('events.get 200');
  });

  test.each([
    ['calendar_update_event', { updates: { title: 'Renamed' } }, 'events.patch'],
    ['calendar_delete_event', {}, 'events.delete'],
  ])("when %s runs right after the create, then Google's 404 is retried until the event shows", async (name, inputs, operation) => {
    const who = await ana();
    await lag(2000); // long enough that the first try misses it even on a slow machine
    const { event_id } = (await tool(who, 'calendar_create_event', meeting())).body.result;
    const since = await requestLogPosition(sb);
    const res = await tool(who, name, { event_id, ...inputs });
    expect(res.status).toBe(200);
    const log = await steps(since);
    expect(log[0]).toBe(`${operation} 404`);
    expect(log.at(-1)).toMatch(new RegExp(`^${operation} 20[04]$`));
  });

  test('when the event does not show within the retries, then RESOURCE_NOT_FOUND says it was just created and is retryable', async () => {
    const who = await ana();
    await lag(30_000);
    const { event_id } = (await tool(who, 'calendar_create_event', meeting())).body.result;
    const res = await tool(who, 'calendar_update_event', { event_id, updates: { title: 'Renamed' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', retryable: true, details: { recently_created: true, event_id, upstream_status: 404 } });
    expect(res.body.metadata.api_calls).toBe(5);
  });

  test("when the Hub did not just create the event, then Google's 404 is RESOURCE_NOT_FOUND at once", async () => {
    const who = await ana();
    await lag(800);
    const res = await tool(who, 'calendar_update_event', { event_id: 'neverexisted1', updates: { title: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', retryable: false });
    expect(res.body.metadata.api_calls).toBe(1);
  });
});

describe('quiet creates (send_notifications: false)', () => {
  test('when the catalog describes send_notifications, then it tells the agent what false means for guests', async () => {
    const res = await client(suite.hub().app).get('/api/internal/tools/').set('Authorization', serviceAuth());
    const create = res.body.tools.find((t: { name: string }) => t.name === 'calendar_create_event');
    expect(create.input_schema.properties.send_notifications.description).toMatch(/never learn of it.*only if their settings add invitations/s);
  });

  test("when guests are invited quietly, then one who adds invitations from everyone has it, one who adds only known senders does not and gets Google's own email", async () => {
    const who = await ana();
    await sb.createAccount({ email: BEN, time_zone: NY });
    await sb.createAccount({ email: CARLA, add_invitations: 'known_senders' });
    const res = await tool(who, 'calendar_create_event', meeting({ attendees: [BEN, CARLA], send_notifications: false }));
    expect(res.status).toBe(200);
    const { event_id } = res.body.result;
    expect(storedEvents(sb, BEN).map((r) => r.id)).toEqual([event_id]);
    expect(storedEvents(sb, CARLA)).toEqual([]);
    expect(sb.world.calendar.notifications.map((n) => [n.kind, n.to, n.reason])).toEqual([['invitation', CARLA, 'not_added_to_calendar']]);
  });
});

/** Polls `check` every 20 ms, for up to 5 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met within 5 s');
}
