import type { ApiResult } from '../src/api/types';
import { CALENDAR_HANDLERS } from '../src/calendar/handlers';
import { type CalendarSeed, seedAccountCalendars } from '../src/calendar/seed';
import { createCalendarState } from '../src/calendar/state';
import { createClock } from '../src/clock';
import { allMethods, loadDiscoveryDocuments } from '../src/discovery/documents';
import { checkResponseBody } from '../src/discovery/schema-check';
import { createRandom } from '../src/random';
import { type Account, type World, createWorld } from '../src/world';

const doc = loadDiscoveryDocuments()[0]!;
const responseRef = new Map(allMethods(doc).map((m) => [m.id, m.response?.$ref]));
const NOW = Date.parse('2026-11-20T12:00:00.250Z');

type Body = Record<string, any>;

/** A world with accounts, and a caller that checks every 2xx body against the method's Discovery schema. */
// createWorld generates an RSA key for the OAuth side; the calendar tests borrow one world's shell and give
// each test its own calendar state, accounts, PRNG and clock.
const shell = createWorld({ seed: 1 });

function setup() {
  const world: World = { ...shell, accounts: new Map(), calendar: createCalendarState(), random: createRandom(1), clock: createClock(NOW) };
  const add = (email: string, timeZone = 'Europe/Berlin', seed: CalendarSeed = {}): Account => {
    const account: Account = { email, name: email.split('@')[0]!, timeZone };
    world.accounts.set(email, account);
    const r = seedAccountCalendars(world, account, seed);
    if (!r.ok) throw new Error(r.message);
    return account;
  };
  const call = (
    account: Account,
    method: string,
    args: { params?: Record<string, string>; query?: Record<string, any>; body?: unknown } = {},
  ): ApiResult & { body: Body } => {
    const result = CALENDAR_HANDLERS[`calendar.${method}`]!({
      world,
      methodId: `calendar.${method}`,
      family: 'calendar',
      params: args.params ?? {},
      query: args.query ?? {},
      body: args.body,
      media: undefined,
      account,
      scopes: [],
      now: world.clock.now(),
    });
    const ref = responseRef.get(`calendar.${method}`);
    if (ref && result.status < 300) expect(checkResponseBody(doc, ref, result.body)).toEqual([]);
    return result as ApiResult & { body: Body };
  };
  const insert = (account: Account, body: Body, calendarId = 'primary', query: Record<string, any> = {}) =>
    call(account, 'events.insert', { params: { calendarId }, body, query });
  const reason = (r: { body: Body }) => r.body.error.errors[0].reason;
  return { world, add, call, insert, reason };
}

const meeting = (extra: Body = {}): Body => ({
  summary: 'Planning',
  start: { dateTime: '2026-11-23T09:00:00Z' },
  end: { dateTime: '2026-11-23T10:00:00Z' },
  ...extra,
});

describe('events.insert', () => {
  it('when an event is inserted, then Google fills the read-only fields and renders times in the calendar zone', () => {
    const { add, insert } = setup();
    const alice = add('alice@example.com');
    const r = insert(alice, meeting({ description: 'Q1', transparency: 'opaque' }));
    expect(r.status).toBe(200);
    const e = r.body;
    expect(e).toMatchObject({
      kind: 'calendar#event',
      status: 'confirmed',
      summary: 'Planning',
      description: 'Q1',
      creator: { email: 'alice@example.com', self: true },
      organizer: { email: 'alice@example.com', self: true },
      start: { dateTime: '2026-11-23T10:00:00+01:00' },
      end: { dateTime: '2026-11-23T11:00:00+01:00' },
      sequence: 0,
      reminders: { useDefault: true },
    });
    // `created` has whole seconds, `updated` milliseconds, as Google writes them.
    expect(e.created).toMatch(/^2026-11-20T12:00:0\d\.000Z$/);
    expect(e.updated).toMatch(/^2026-11-20T12:00:0\d\.\d{3}Z$/);
    expect(e.id).toMatch(/^[a-v0-9]{26}$/);
    expect(e.iCalUID).toBe(`${e.id}@google.com`);
    expect(e.etag).toMatch(/^"\d+"$/);
    expect(e.transparency).toBeUndefined(); // opaque is the default, which Google omits
    expect(Buffer.from(new URL(e.htmlLink).searchParams.get('eid')!, 'base64').toString()).toBe(`${e.id} alice@example.com`);
  });

  it('when the same seed runs twice, then the generated ids are the same', () => {
    const a = setup();
    const b = setup();
    const id = (s: ReturnType<typeof setup>) => s.insert(s.add('alice@example.com'), meeting()).body.id;
    expect(id(a)).toBe(id(b));
  });

  it('when the client picks a valid id, then it is kept; a second insert with it is a 409, even after deletion', () => {
    const { add, insert, call, reason } = setup();
    const alice = add('alice@example.com');
    expect(insert(alice, meeting({ id: 'abcdef0123' })).body.id).toBe('abcdef0123');
    expect(call(alice, 'events.delete', { params: { calendarId: 'primary', eventId: 'abcdef0123' } }).status).toBe(204);
    const again = insert(alice, meeting({ id: 'abcdef0123' }));
    expect(again.status).toBe(409);
    expect(reason(again)).toBe('duplicate');
  });

  it.each(['ABCDEF', 'abc', 'xyz123', 'abc_def'])('when the client id is %j, then it is a 400 "Invalid resource id value."', (id) => {
    const { add, insert } = setup();
    const r = insert(add('alice@example.com'), meeting({ id }));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 400, message: 'Invalid resource id value.', errors: [{ reason: 'invalid', domain: 'global' }] });
    expect(r.body.error.status).toBeUndefined(); // Calendar's legacy error shape
  });

  it.each([
    [{ start: { dateTime: '2026-11-23T09:00:00Z' } }, 'Missing end time.', 'required'],
    [{ end: { dateTime: '2026-11-23T09:00:00Z' } }, 'Missing start time.', 'required'],
    [{}, 'Missing end time.', 'required'],
    [{ start: { dateTime: '2026-11-23T10:00:00Z' }, end: { dateTime: '2026-11-23T09:00:00Z' } }, 'The specified time range is empty.', 'timeRangeEmpty'],
    [{ start: { date: '2026-11-23' }, end: { date: '2026-11-23' } }, 'The specified time range is empty.', 'timeRangeEmpty'],
    [
      { start: { date: '2026-11-23' }, end: { dateTime: '2026-11-24T09:00:00Z' } },
      'Start and end times must either both be date or both be dateTime.',
      'invalid',
    ],
    [{ start: { dateTime: '2026-11-23T09:00:00' }, end: { dateTime: '2026-11-23T10:00:00Z' } }, 'Missing time zone definition for start time.', 'required'],
    [
      { start: { dateTime: '2026-11-23T09:00:00Z', timeZone: 'Mars/Olympus' }, end: { dateTime: '2026-11-23T10:00:00Z' } },
      'Invalid time zone definition for start time.',
      'invalid',
    ],
    [{ ...meeting(), recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] }, 'Missing time zone definition for start time.', 'required'],
    [{ ...meeting(), attendees: [{ email: 'not-an-email' }] }, 'Invalid attendee email.', 'invalid'],
    [
      { ...meeting(), reminders: { useDefault: true, overrides: [{ method: 'popup', minutes: 5 }] } },
      'Cannot specify both default reminders and overrides at the same time.',
      'cannotUseDefaultRemindersAndSpecifyOverride',
    ],
  ])('when the body is %j, then it is a 400 %s', (body, message, why) => {
    const { add, insert, reason } = setup();
    const r = insert(add('alice@example.com'), body);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe(message);
    expect(reason(r)).toBe(why);
  });

  it('when a floating time comes with a time zone, then it is read in that zone and the zone is echoed', () => {
    const { add, insert } = setup();
    const r = insert(add('alice@example.com', 'UTC'), {
      start: { dateTime: '2026-11-23T09:00:00', timeZone: 'America/New_York' },
      end: { dateTime: '2026-11-23T10:00:00', timeZone: 'America/New_York' },
    });
    expect(r.body.start).toEqual({ dateTime: '2026-11-23T14:00:00Z', timeZone: 'America/New_York' });
  });

  it('when the body holds nulls, then they count as absent', () => {
    const { add, insert } = setup();
    const r = insert(add('alice@example.com'), meeting({ description: null, location: null }));
    expect(r.status).toBe(200);
    expect(r.body.description).toBeUndefined();
  });

  it('when an all-day event is inserted, then it echoes dates', () => {
    const { add, insert } = setup();
    const r = insert(add('alice@example.com'), { summary: 'Off', start: { date: '2026-11-23' }, end: { date: '2026-11-24' } });
    expect(r.body.start).toEqual({ date: '2026-11-23' });
    expect(r.body.end).toEqual({ date: '2026-11-24' });
  });

  it('when guests are invited with sendUpdates=all, then each is notified, sandbox guests get a copy showing their own status', () => {
    const { world, add, insert, call } = setup();
    const alice = add('alice@example.com');
    const bob = add('bob@example.com', 'America/New_York');
    const r = insert(
      alice,
      meeting({ attendees: [{ email: 'alice@example.com' }, { email: 'Bob@example.com' }, { email: 'carol@outside.test', responseStatus: 'tentative' }] }),
      'primary',
      { sendUpdates: 'all' },
    );
    expect(r.body.attendees).toEqual([
      { email: 'alice@example.com', organizer: true, self: true, responseStatus: 'accepted' },
      { email: 'Bob@example.com', responseStatus: 'needsAction' },
      { email: 'carol@outside.test', responseStatus: 'tentative' },
    ]);
    expect(world.calendar.notifications.map((n) => [n.kind, n.to])).toEqual([
      ['invitation', 'bob@example.com'],
      ['invitation', 'carol@outside.test'],
    ]);
    const copy = call(bob, 'events.get', { params: { calendarId: 'primary', eventId: r.body.id } });
    expect(copy.status).toBe(200);
    expect(copy.body.organizer).toEqual({ email: 'alice@example.com' });
    expect(copy.body.attendees[1]).toEqual({ email: 'Bob@example.com', self: true, responseStatus: 'needsAction' });
    expect(copy.body.start.dateTime).toBe('2026-11-23T04:00:00-05:00');
    expect(Buffer.from(new URL(copy.body.htmlLink).searchParams.get('eid')!, 'base64').toString()).toBe(`${r.body.id} bob@example.com`);
  });

  it('when sendUpdates is externalOnly or absent, then only outside guests, or nobody, are notified', () => {
    const { world, add, insert } = setup();
    const alice = add('alice@example.com');
    add('bob@example.com');
    const attendees = [{ email: 'bob@example.com' }, { email: 'carol@outside.test' }];
    insert(alice, meeting({ attendees }), 'primary', { sendUpdates: 'externalOnly' });
    insert(alice, meeting({ attendees }));
    expect(world.calendar.notifications.map((n) => n.to)).toEqual(['carol@outside.test']);
  });
});

describe('access control', () => {
  const shared = () => {
    const s = setup();
    const alice = s.add('alice@example.com', 'Europe/Berlin', {
      primary_shared_with: [
        { email: 'reader@example.com', role: 'reader' },
        { email: 'writer@example.com', role: 'writer' },
        { email: 'fb@example.com', role: 'freeBusyReader' },
      ],
      events: [{ id: 'secret01', summary: 'Secret', start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z' }],
    });
    return {
      ...s,
      alice,
      reader: s.add('reader@example.com'),
      writer: s.add('writer@example.com'),
      fb: s.add('fb@example.com'),
      stranger: s.add('x@example.com'),
    };
  };

  it('when someone without access asks for a calendar, then it is a 404 (its existence is hidden)', () => {
    const { stranger, call, insert } = shared();
    expect(call(stranger, 'events.list', { params: { calendarId: 'alice@example.com' } }).status).toBe(404);
    expect(insert(stranger, meeting(), 'alice@example.com').status).toBe(404);
    expect(call(stranger, 'calendarList.get', { params: { calendarId: 'alice@example.com' } }).status).toBe(404);
  });

  it('when a reader writes, then it is a 403 requiredAccessLevel; reading works', () => {
    const { reader, call, insert, reason } = shared();
    const r = insert(reader, meeting(), 'alice@example.com');
    expect(r.status).toBe(403);
    expect(reason(r)).toBe('requiredAccessLevel');
    expect(r.body.error.message).toBe('You need to have writer access to this calendar.');
    const del = call(reader, 'events.delete', { params: { calendarId: 'alice@example.com', eventId: 'secret01' } });
    expect(del.status).toBe(403);
    const got = call(reader, 'events.get', { params: { calendarId: 'alice@example.com', eventId: 'secret01' } });
    expect(got.body.summary).toBe('Secret');
    expect(got.body.organizer).toEqual({ email: 'alice@example.com', self: true });
  });

  it('when a writer inserts into a shared calendar, then the calendar organizes it and the writer created it', () => {
    const { writer, insert } = shared();
    const r = insert(writer, meeting(), 'alice@example.com');
    expect(r.status).toBe(200);
    expect(r.body.organizer).toEqual({ email: 'alice@example.com', self: true });
    expect(r.body.creator).toEqual({ email: 'writer@example.com' });
  });

  it('when a free/busy reader lists events, then it sees only times', () => {
    const { fb, call } = shared();
    const r = call(fb, 'events.list', { params: { calendarId: 'alice@example.com' } });
    expect(r.body.accessRole).toBe('freeBusyReader');
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0].summary).toBeUndefined();
    expect(r.body.items[0].start).toEqual({ dateTime: '2026-11-23T10:00:00+01:00' });
  });

  it('when the calendar list is read, then it has the own primary first and the shared calendars with their roles', () => {
    const { reader, call } = shared();
    const r = call(reader, 'calendarList.list');
    expect(r.body.items.map((i: Body) => [i.id, i.accessRole, i.primary])).toEqual([
      ['reader@example.com', 'owner', true],
      ['alice@example.com', 'reader', undefined],
    ]);
    expect(call(reader, 'calendarList.list', { query: { minAccessRole: 'owner' } }).body.items).toHaveLength(1);
    const own = call(reader, 'calendarList.get', { params: { calendarId: 'primary' } });
    expect(own.body).toMatchObject({ kind: 'calendar#calendarListEntry', id: 'reader@example.com', primary: true, timeZone: 'Europe/Berlin' });
  });

  it('when the calendar list is paged, then nextPageToken leads on, only the last page has a nextSyncToken, and a sync token comes back 410', () => {
    const { reader, call, reason } = shared();
    const first = call(reader, 'calendarList.list', { query: { maxResults: 1 } });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextPageToken).toEqual(expect.any(String));
    expect(first.body.nextSyncToken).toBeUndefined(); // "Omitted if further results are available"
    const last = call(reader, 'calendarList.list', { query: { maxResults: 1, pageToken: first.body.nextPageToken } });
    expect(last.body.items.map((i: Body) => i.id)).toEqual(['alice@example.com']);
    expect(last.body.nextPageToken).toBeUndefined();
    expect(last.body.nextSyncToken).toEqual(expect.any(String));
    expect(call(reader, 'calendarList.list', { query: { pageToken: 'bm9wZQ' } }).status).toBe(400);

    const sync = call(reader, 'calendarList.list', { query: { syncToken: last.body.nextSyncToken } });
    expect(sync.status).toBe(410);
    expect(reason(sync)).toBe('fullSyncRequired');
    const withRole = call(reader, 'calendarList.list', { query: { syncToken: last.body.nextSyncToken, minAccessRole: 'reader' } });
    expect(withRole.status).toBe(400);
    expect(call(reader, 'calendarList.list', { query: { syncToken: last.body.nextSyncToken, showDeleted: false } }).status).toBe(400);
  });
});

describe('events.get / events.delete', () => {
  it('when an event is deleted, then get still returns it cancelled, a second delete is 410, an unknown id is 404', () => {
    const { add, insert, call, reason } = setup();
    const alice = add('alice@example.com');
    const id = insert(alice, meeting()).body.id;
    const params = { calendarId: 'primary', eventId: id };
    expect(call(alice, 'events.delete', { params }).status).toBe(204);
    expect(call(alice, 'events.get', { params }).body.status).toBe('cancelled');
    const again = call(alice, 'events.delete', { params });
    expect(again.status).toBe(410);
    expect(reason(again)).toBe('deleted');
    const unknown = call(alice, 'events.get', { params: { calendarId: 'primary', eventId: 'nosuchevent' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('Not Found');
  });

  it('when get asks for another time zone, then times are rendered in it', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const id = insert(alice, meeting()).body.id;
    const r = call(alice, 'events.get', { params: { calendarId: 'primary', eventId: id }, query: { timeZone: 'Asia/Tokyo' } });
    expect(r.body.start.dateTime).toBe('2026-11-23T18:00:00+09:00');
  });

  it('when a guest deletes its copy, then the organizer sees it declined and the guest sees it cancelled', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const bob = add('bob@example.com');
    const id = insert(alice, meeting({ attendees: [{ email: 'bob@example.com' }] })).body.id;
    expect(call(bob, 'events.delete', { params: { calendarId: 'primary', eventId: id } }).status).toBe(204);
    expect(call(bob, 'events.get', { params: { calendarId: 'primary', eventId: id } }).body.status).toBe('cancelled');
    const organizer = call(alice, 'events.get', { params: { calendarId: 'primary', eventId: id } }).body;
    expect(organizer.status).toBe('confirmed');
    expect(organizer.attendees[0].responseStatus).toBe('declined');
  });

  it('when the organizer deletes with sendUpdates=all, then guests get a cancellation and their copy is cancelled', () => {
    const { world, add, insert, call } = setup();
    const alice = add('alice@example.com');
    const bob = add('bob@example.com');
    const id = insert(alice, meeting({ attendees: [{ email: 'bob@example.com' }] })).body.id;
    call(alice, 'events.delete', { params: { calendarId: 'primary', eventId: id }, query: { sendUpdates: 'all' } });
    expect(world.calendar.notifications.map((n) => [n.kind, n.to])).toEqual([['cancellation', 'bob@example.com']]);
    expect(call(bob, 'events.get', { params: { calendarId: 'primary', eventId: id } }).body.status).toBe('cancelled');
  });
});

describe('events.patch / events.update', () => {
  it('when patched, then only the given fields change, arrays are replaced, and etag, updated and sequence move', () => {
    const { world, add, insert, call } = setup();
    const alice = add('alice@example.com');
    const created = insert(alice, meeting({ description: 'keep', attendees: [{ email: 'a@x.test' }, { email: 'b@x.test' }] })).body;
    world.clock.advance(60_000);
    const params = { calendarId: 'primary', eventId: created.id };
    const p1 = call(alice, 'events.patch', { params, body: { summary: 'Renamed', attendees: [{ email: 'c@x.test' }] } }).body;
    expect(p1).toMatchObject({ summary: 'Renamed', description: 'keep', sequence: 0, created: created.created });
    expect(Date.parse(p1.updated) - Date.parse(created.updated)).toBeGreaterThanOrEqual(60_000);
    expect(p1.attendees).toEqual([{ email: 'c@x.test', responseStatus: 'needsAction' }]);
    expect(p1.etag).not.toBe(created.etag);
    const p2 = call(alice, 'events.patch', { params, body: { end: { dateTime: '2026-11-23T11:00:00Z' } } }).body;
    expect(p2.sequence).toBe(1);
    expect(p2.end.dateTime).toBe('2026-11-23T12:00:00+01:00');
    const p3 = call(alice, 'events.patch', { params, body: { description: null } }).body;
    expect(p3.description).toBeUndefined();
  });

  it('when an all-day event is patched to a timed one, then the date must be nulled, as with Google', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const id = insert(alice, { start: { date: '2026-11-23' }, end: { date: '2026-11-24' } }).body.id;
    const params = { calendarId: 'primary', eventId: id };
    const times = { start: { dateTime: '2026-11-23T09:00:00Z' }, end: { dateTime: '2026-11-23T10:00:00Z' } };
    expect(call(alice, 'events.patch', { params, body: times }).status).toBe(400);
    const body = { start: { ...times.start, date: null }, end: { ...times.end, date: null } };
    expect(call(alice, 'events.patch', { params, body }).body.start).toEqual({ dateTime: '2026-11-23T10:00:00+01:00' });
  });

  it('when updated, then absent fields are cleared and start/end are required', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const id = insert(alice, meeting({ description: 'gone', location: 'Room 1' })).body.id;
    const params = { calendarId: 'primary', eventId: id };
    const r = call(alice, 'events.update', { params, body: { summary: 'Only', start: meeting().start, end: meeting().end } });
    expect(r.body.summary).toBe('Only');
    expect(r.body.description).toBeUndefined();
    expect(r.body.location).toBeUndefined();
    expect(call(alice, 'events.update', { params, body: { summary: 'x' } }).body.error.message).toBe('Missing end time.');
  });

  it('when a stale sequence is sent, then it is refused', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const id = insert(alice, meeting({ sequence: 3 })).body.id;
    const r = call(alice, 'events.patch', { params: { calendarId: 'primary', eventId: id }, body: { sequence: 2 } });
    expect(r.status).toBe(400);
  });

  it('when a guest answers on its copy, then the organizer sees the answer; changing the title is forbidden', () => {
    const { add, insert, call, reason } = setup();
    const alice = add('alice@example.com');
    const bob = add('bob@example.com');
    const id = insert(alice, meeting({ attendees: [{ email: 'bob@example.com' }, { email: 'carol@outside.test' }] })).body.id;
    const params = { calendarId: 'primary', eventId: id };
    const copy = call(bob, 'events.get', { params }).body;
    const answered = copy.attendees.map((a: Body) => (a.self ? { ...a, responseStatus: 'accepted' } : a));
    const r = call(bob, 'events.patch', { params, body: { attendees: answered } });
    expect(r.status).toBe(200);
    expect(call(alice, 'events.get', { params }).body.attendees[0]).toEqual({ email: 'bob@example.com', responseStatus: 'accepted' });
    const retitle = call(bob, 'events.patch', { params, body: { summary: 'Mine now' } });
    expect(retitle.status).toBe(403);
    expect(reason(retitle)).toBe('forbiddenForNonOrganizer');
    // A guest's full PUT of what it read, times in its own zone, is still only an answer.
    const put = call(bob, 'events.update', {
      params,
      body: { ...copy, attendees: answered.map((a: Body) => (a.self ? { ...a, responseStatus: 'declined' } : a)) },
    });
    expect(put.status).toBe(200);
    expect(put.body.attendees[0].responseStatus).toBe('declined');
  });

  it('when the organizer adds and removes guests with sendUpdates=all, then invitations, cancellations and updates go out', () => {
    const { world, add, insert, call } = setup();
    const alice = add('alice@example.com');
    const bob = add('bob@example.com');
    const id = insert(alice, meeting({ attendees: [{ email: 'bob@example.com' }, { email: 'carol@outside.test' }] })).body.id;
    const params = { calendarId: 'primary', eventId: id };
    call(alice, 'events.patch', {
      params,
      query: { sendUpdates: 'all' },
      body: { summary: 'New', attendees: [{ email: 'carol@outside.test' }, { email: 'dan@outside.test' }] },
    });
    expect(world.calendar.notifications.map((n) => [n.kind, n.to])).toEqual([
      ['invitation', 'dan@outside.test'],
      ['cancellation', 'bob@example.com'],
      ['update', 'carol@outside.test'],
    ]);
    expect(call(bob, 'events.get', { params }).body.status).toBe('cancelled');
    expect(call(bob, 'events.list', { params: { calendarId: 'primary' } }).body.items).toHaveLength(0);
  });

  it('when a deleted event is patched back to confirmed, then it is restored', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const id = insert(alice, meeting()).body.id;
    const params = { calendarId: 'primary', eventId: id };
    call(alice, 'events.delete', { params });
    expect(call(alice, 'events.patch', { params, body: { status: 'confirmed' } }).body.status).toBe('confirmed');
  });
});

describe('events.list', () => {
  const listing = () => {
    const s = setup();
    const alice = s.add('alice@example.com', 'Europe/Berlin', {
      events: [
        { id: 'morning01', summary: 'Breakfast with Bob', start: '2026-11-23T07:00:00Z', end: '2026-11-23T08:00:00Z', location: 'Cafe' },
        { id: 'late00001', summary: 'Review', start: '2026-11-24T15:00:00Z', end: '2026-11-24T16:00:00Z', attendees: [{ email: 'zed@outside.test' }] },
        { id: 'gone00001', summary: 'Cancelled thing', start: '2026-11-23T12:00:00Z', end: '2026-11-23T13:00:00Z', status: 'cancelled' },
        { id: 'offsite01', summary: 'Holiday', start: { date: '2026-11-25' }, end: { date: '2026-11-26' } },
        {
          id: 'standup01',
          summary: 'Standup',
          start: '2026-11-23T09:00:00',
          end: '2026-11-23T09:15:00',
          time_zone: 'Europe/Berlin',
          recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
        },
      ],
    });
    const list = (query: Record<string, any> = {}) => s.call(alice, 'events.list', { params: { calendarId: 'primary' }, query });
    return { ...s, alice, list };
  };
  const ids = (r: { body: Body }) => r.body.items.map((i: Body) => i.id);

  it("when listed plainly, then cancelled events are left out and the envelope is Google's", () => {
    const { list } = listing();
    const r = list();
    expect(r.body).toMatchObject({
      kind: 'calendar#events',
      summary: 'alice@example.com',
      timeZone: 'Europe/Berlin',
      accessRole: 'owner',
      defaultReminders: [{ method: 'popup', minutes: 10 }],
    });
    expect(r.body.etag).toMatch(/^"p3[0-9a-v]+"$/);
    expect(r.body.nextSyncToken).toBeDefined();
    expect(ids(r).sort()).toEqual(['late00001', 'morning01', 'offsite01', 'standup01']);
    expect(ids(list({ showDeleted: true }))).toContain('gone00001');
  });

  it('when a window is given, then events overlapping it are returned; an empty window is a 400', () => {
    const { list, reason } = listing();
    expect(ids(list({ timeMin: '2026-11-24T00:00:00Z', timeMax: '2026-11-25T00:00:00+01:00' }))).toEqual(['late00001', 'standup01']);
    const empty = list({ timeMin: '2026-11-24T00:00:00Z', timeMax: '2026-11-23T00:00:00Z' });
    expect(empty.status).toBe(400);
    expect(reason(empty)).toBe('timeRangeEmpty');
    expect(list({ timeMin: 'yesterday' }).status).toBe(400);
  });

  it('when singleEvents and orderBy=startTime, then series are expanded into ordered instances; orderBy alone is refused', () => {
    const { list } = listing();
    const r = list({ singleEvents: true, orderBy: 'startTime', timeMin: '2026-11-24T00:00:00Z', timeMax: '2026-11-26T00:00:00Z' });
    // The all-day event starts at midnight in Berlin, 23:00 UTC the day before.
    expect(ids(r)).toEqual(['standup01_20261124T080000Z', 'late00001', 'offsite01', 'standup01_20261125T080000Z']);
    expect(r.body.items[0]).toMatchObject({
      recurringEventId: 'standup01',
      originalStartTime: { dateTime: '2026-11-24T09:00:00+01:00', timeZone: 'Europe/Berlin' },
      start: { dateTime: '2026-11-24T09:00:00+01:00', timeZone: 'Europe/Berlin' },
    });
    expect(r.body.items[0].recurrence).toBeUndefined();
    const bad = list({ orderBy: 'startTime' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('The requested ordering is not available for the particular query.');
  });

  it('when q is given, then every term must match summary, description, location or people', () => {
    const { list } = listing();
    expect(ids(list({ q: 'cafe' }))).toEqual(['morning01']);
    expect(ids(list({ q: 'zed@outside' }))).toEqual(['late00001']);
    expect(ids(list({ q: 'breakfast bob' }))).toEqual(['morning01']);
    expect(ids(list({ q: 'breakfast alice-not-here' }))).toEqual([]);
  });

  it('when maxResults is small, then pages chain through nextPageToken and the last page has a sync token', () => {
    const { list } = listing();
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const r = list({ maxResults: 2, ...(token ? { pageToken: token } : {}) });
      seen.push(...ids(r));
      token = r.body.nextPageToken;
      if (token) expect(r.body.nextSyncToken).toBeUndefined();
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen).toHaveLength(4);
    expect(list({ pageToken: 'garbage' }).status).toBe(400);
  });

  it('when a sync token is used, then only what changed since comes back, deletions included', () => {
    const { list, call, alice, insert } = listing();
    const token = list().body.nextSyncToken;
    const added = insert(alice, meeting()).body.id;
    call(alice, 'events.delete', { params: { calendarId: 'primary', eventId: 'morning01' } });
    const r = list({ syncToken: token });
    expect(ids(r).sort()).toEqual([added, 'morning01'].sort());
    expect(list({ syncToken: token, q: 'x' }).status).toBe(400);
    expect(list({ syncToken: 'bogus' }).status).toBe(410);
  });

  it('when one occurrence is deleted and another moved, then expansion and the plain list reflect both', () => {
    const { list, call, alice } = listing();
    const params = (eventId: string) => ({ calendarId: 'primary', eventId });
    expect(call(alice, 'events.delete', { params: params('standup01_20261124T080000Z') }).status).toBe(204);
    const moved = call(alice, 'events.patch', {
      params: params('standup01_20261125T080000Z'),
      body: { start: { dateTime: '2026-11-25T14:00:00+01:00' }, end: { dateTime: '2026-11-25T14:15:00+01:00' } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: 'standup01_20261125T080000Z', recurringEventId: 'standup01', start: { dateTime: '2026-11-25T14:00:00+01:00' } });
    const expanded = list({ singleEvents: true, q: 'standup' });
    expect(ids(expanded)).toEqual(['standup01_20261123T080000Z', 'standup01_20261125T080000Z', 'standup01_20261126T080000Z', 'standup01_20261127T080000Z']);
    const plain = list({ q: 'standup' });
    expect(plain.body.items.map((i: Body) => [i.id, i.status])).toEqual([
      ['standup01', 'confirmed'],
      ['standup01_20261124T080000Z', 'cancelled'],
      ['standup01_20261125T080000Z', 'confirmed'],
    ]);
    expect(call(alice, 'events.delete', { params: params('standup01_20261124T080000Z') }).status).toBe(410);
    expect(call(alice, 'events.get', { params: params('standup01_20261124T080000Z') }).body.status).toBe('cancelled');
    expect(call(alice, 'events.get', { params: params('standup01_20261124T090000Z') }).status).toBe(404);
  });
});

describe('freebusy.query', () => {
  const busyWorld = () => {
    const s = setup();
    const alice = s.add('alice@example.com', 'Europe/Berlin', {
      primary_shared_with: [{ email: 'bob@example.com', role: 'freeBusyReader' }],
      events: [
        { summary: 'A', start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z' },
        { summary: 'B overlaps A', start: '2026-11-23T09:30:00Z', end: '2026-11-23T11:00:00Z' },
        { summary: 'Free', start: '2026-11-23T12:00:00Z', end: '2026-11-23T13:00:00Z', transparency: 'transparent' },
        { summary: 'Gone', start: '2026-11-23T14:00:00Z', end: '2026-11-23T15:00:00Z', status: 'cancelled' },
        { summary: 'Day off', start: { date: '2026-11-24' }, end: { date: '2026-11-25' } },
        { summary: 'Weekly', start: '2026-11-02T16:00:00', end: '2026-11-02T17:00:00', time_zone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'] },
      ],
    });
    return { ...s, alice, bob: s.add('bob@example.com') };
  };
  const query = (body: Body) => body;

  it('when queried, then busy time is merged, clipped, in UTC, and hidden calendars report notFound inside a 200', () => {
    const { bob, call } = busyWorld();
    const r = call(bob, 'freebusy.query', {
      body: query({
        timeMin: '2026-11-23T09:15:00Z',
        timeMax: '2026-11-25T00:00:00Z',
        items: [{ id: 'alice@example.com' }, { id: 'ghost@example.com' }, { id: 'primary' }],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: 'calendar#freeBusy',
      timeMin: '2026-11-23T09:15:00.000Z',
      timeMax: '2026-11-25T00:00:00.000Z',
      calendars: {
        'alice@example.com': {
          busy: [
            { start: '2026-11-23T09:15:00Z', end: '2026-11-23T11:00:00Z' },
            { start: '2026-11-23T15:00:00Z', end: '2026-11-23T16:00:00Z' },
            { start: '2026-11-23T23:00:00Z', end: '2026-11-24T23:00:00Z' },
          ],
        },
        'ghost@example.com': { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] },
        primary: { busy: [] },
      },
    });
  });

  it('when timeZone is given, then busy times are written in it', () => {
    const { alice, call } = busyWorld();
    const r = call(alice, 'freebusy.query', {
      body: { timeMin: '2026-11-23T00:00:00Z', timeMax: '2026-11-23T12:00:00Z', timeZone: 'Europe/Berlin', items: [{ id: 'primary' }] },
    });
    expect(r.body.calendars.primary.busy).toEqual([{ start: '2026-11-23T10:00:00+01:00', end: '2026-11-23T12:00:00+01:00' }]);
  });

  it('when timeMax is before timeMin, then it is a 400 timeRangeEmpty', () => {
    const { alice, call, reason } = busyWorld();
    const r = call(alice, 'freebusy.query', { body: { timeMin: '2026-11-24T00:00:00Z', timeMax: '2026-11-23T00:00:00Z', items: [] } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('The specified time range is empty.');
    expect(reason(r)).toBe('timeRangeEmpty');
  });

  it('when a guest declined, then the event does not make the guest busy', () => {
    const { add, insert, call } = setup();
    const alice = add('alice@example.com');
    const bob = add('bob@example.com');
    insert(alice, meeting({ attendees: [{ email: 'bob@example.com' }] }));
    const window = { timeMin: '2026-11-23T00:00:00Z', timeMax: '2026-11-24T00:00:00Z', items: [{ id: 'primary' }] };
    expect(call(bob, 'freebusy.query', { body: window }).body.calendars.primary.busy).toHaveLength(1);
    const id = call(bob, 'events.list', { params: { calendarId: 'primary' } }).body.items[0].id;
    call(bob, 'events.delete', { params: { calendarId: 'primary', eventId: id } });
    expect(call(bob, 'freebusy.query', { body: window }).body.calendars.primary.busy).toEqual([]);
  });
});

describe('settings.get and seeding', () => {
  it('when the timezone setting is read, then it is the account zone; an unknown setting is 404', () => {
    const { add, call } = setup();
    const alice = add('alice@example.com', 'Asia/Kolkata');
    expect(call(alice, 'settings.get', { params: { setting: 'timezone' } }).body).toMatchObject({
      kind: 'calendar#setting',
      id: 'timezone',
      value: 'Asia/Kolkata',
    });
    expect(call(alice, 'settings.get', { params: { setting: 'nope' } }).status).toBe(404);
  });

  it('when a seed is invalid, then nothing is written and the message says why', () => {
    const { world, add } = setup();
    const alice = add('alice@example.com');
    const before = world.calendar.calendars.get('alice@example.com')!.events.size;
    const bad = seedAccountCalendars(world, alice, {
      events: [
        { summary: 'ok', start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z' },
        { summary: 'backwards', start: '2026-11-23T10:00:00Z', end: '2026-11-23T09:00:00Z' },
      ],
    });
    expect(bad).toEqual({ ok: false, message: 'events[1]: The specified time range is empty.' });
    expect(
      seedAccountCalendars(world, alice, {
        events: [{ calendar_id: 'nope@example.com', summary: 'x', start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z' }],
      }),
    ).toEqual({
      ok: false,
      message: 'events[0]: unknown calendar_id nope@example.com',
    });
    expect(world.calendar.calendars.get('alice@example.com')!.events.size).toBe(before);
  });

  it('when a secondary calendar is seeded and shared, then it has a group id, its own zone, and the sharee sees it', () => {
    const { add, call } = setup();
    add('alice@example.com', 'Europe/Berlin', {
      calendars: [{ summary: 'Team', time_zone: 'America/Chicago', shared_with: [{ email: 'bob@example.com', role: 'writer' }] }],
    });
    const bob = add('bob@example.com');
    const team = call(bob, 'calendarList.list').body.items[1];
    expect(team).toMatchObject({ summary: 'Team', timeZone: 'America/Chicago', accessRole: 'writer' });
    expect(team.id).toMatch(/^c_[a-v0-9]+@group\.calendar\.google\.com$/);
    const e = call(bob, 'events.insert', { params: { calendarId: team.id }, body: meeting() }).body;
    expect(e.organizer).toEqual({ email: team.id, displayName: 'Team', self: true });
    expect(e.start.dateTime).toBe('2026-11-23T03:00:00-06:00');
  });

  it('when an account is created after being invited, then the invitation is on its calendar', () => {
    const { add, call } = setup();
    add('alice@example.com', 'UTC', {
      events: [{ id: 'invite001', summary: 'Intro', start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z', attendees: [{ email: 'late@example.com' }] }],
    });
    const late = add('late@example.com');
    expect(call(late, 'events.get', { params: { calendarId: 'primary', eventId: 'invite001' } }).body.attendees[0].self).toBe(true);
  });

  it('when the state is structured-cloned (the control API rollback), then events survive with shared records', () => {
    const { world, add, insert } = setup();
    const alice = add('alice@example.com');
    add('bob@example.com');
    const id = insert(alice, meeting({ attendees: [{ email: 'bob@example.com' }] })).body.id;
    const clone = structuredClone(world.calendar);
    expect(clone.calendars.get('bob@example.com')!.events.get(id)!.record).toBe(clone.calendars.get('alice@example.com')!.events.get(id)!.record);
  });
});
