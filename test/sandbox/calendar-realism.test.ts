import type { calendar_v3 } from '@googleapis/calendar';
import { SCOPES, useTestSandbox } from '../helpers/sandbox';

/**
 * The places where Google is less kind than a naive emulator, over HTTP through googleapis as the Hub calls
 * them: a guest list replaced by a patch loses its replies, If-Match preconditions, freeBusy's 90-day limit, a
 * read right after an insert missing it, and invitations a guest's setting keeps off its calendar.
 */

const ALICE = 'alice@acme.example';
const BEN = 'ben@acme.example';
const CARLA = 'carla@partner.example';
const OUTSIDE = 'guest@outside.example';

const sb = useTestSandbox();
let alice: calendar_v3.Calendar;
let ben: calendar_v3.Calendar;

const client = async (email: string) => sb.google.calendar(sb.google.withAccessToken(await sb.token(email, [SCOPES.calendar])));

/** The Google error a call failed with. */
async function failure(p: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await p;
  } catch (e: any) {
    return { status: e.response?.status, body: e.response?.data };
  }
  throw new Error('expected the call to fail');
}

const meeting = (attendees: calendar_v3.Schema$EventAttendee[] = []): calendar_v3.Schema$Event => ({
  summary: 'Planning',
  start: { dateTime: '2026-11-24T10:00:00+01:00' },
  end: { dateTime: '2026-11-24T11:00:00+01:00' },
  attendees,
});

const answer = async (who: calendar_v3.Calendar, eventId: string, responseStatus: string) => {
  const copy = (await who.events.get({ calendarId: 'primary', eventId })).data;
  await who.events.patch({ calendarId: 'primary', eventId, requestBody: { attendees: copy.attendees!.map((a) => (a.self ? { ...a, responseStatus } : a)) } });
};

const mail = () => sb.world.calendar.notifications.map((n) => [n.kind, n.to, ...(n.reason ? [n.reason] : [])]);

beforeEach(async () => {
  await sb.createAccount({ email: ALICE, time_zone: 'Europe/Berlin' });
  await sb.createAccount({ email: BEN, time_zone: 'Europe/Berlin' });
  alice = await client(ALICE);
  ben = await client(BEN);
});

describe('a patch of attendees replaces the guest list', () => {
  test('when the organizer patches attendees as bare emails with sendUpdates=all, then replies are reset to needsAction and answered guests are invited again', async () => {
    const { id } = (await alice.events.insert({ calendarId: 'primary', requestBody: meeting([{ email: BEN }, { email: OUTSIDE }]) })).data;
    await answer(ben, id!, 'accepted');
    const patched = await alice.events.patch({
      calendarId: 'primary',
      eventId: id!,
      sendUpdates: 'all',
      requestBody: { attendees: [{ email: BEN }, { email: OUTSIDE }, { email: CARLA }] },
    });
    expect(patched.data.attendees!.map((a) => [a.email, a.responseStatus])).toEqual([
      [BEN, 'needsAction'],
      [OUTSIDE, 'needsAction'],
      [CARLA, 'needsAction'],
    ]);
    expect(mail()).toEqual([
      ['invitation', CARLA],
      ['invitation', BEN],
      ['update', OUTSIDE],
    ]);
  });

  test('when the organizer sends each reply back, then the replies stay and only the new guest is invited', async () => {
    const { id } = (await alice.events.insert({ calendarId: 'primary', requestBody: meeting([{ email: BEN }]) })).data;
    await answer(ben, id!, 'accepted');
    const patched = await alice.events.patch({
      calendarId: 'primary',
      eventId: id!,
      sendUpdates: 'all',
      requestBody: { attendees: [{ email: BEN, responseStatus: 'accepted' }, { email: CARLA }] },
    });
    expect(patched.data.attendees!.map((a) => a.responseStatus)).toEqual(['accepted', 'needsAction']);
    expect(mail()).toEqual([
      ['invitation', CARLA],
      ['update', BEN],
    ]);
  });
});

describe('If-Match: conditional modification', () => {
  test('when the etag is stale, then patch and delete answer 412 conditionNotMet and change nothing; the current etag succeeds', async () => {
    const created = (await alice.events.insert({ calendarId: 'primary', requestBody: meeting([{ email: BEN }]) })).data;
    await answer(ben, created.id!, 'declined'); // a change by someone else moves the etag
    const stale = { headers: { 'If-Match': created.etag! } };
    const refused = await failure(alice.events.patch({ calendarId: 'primary', eventId: created.id!, requestBody: { summary: 'Mine' } }, stale));
    expect(refused).toEqual({
      status: 412,
      body: {
        error: {
          code: 412,
          message: 'Precondition Failed',
          errors: [{ message: 'Precondition Failed', domain: 'global', reason: 'conditionNotMet', locationType: 'header', location: 'If-Match' }],
        },
      },
    });
    expect((await failure(alice.events.delete({ calendarId: 'primary', eventId: created.id! }, stale))).status).toBe(412);
    const current = (await alice.events.get({ calendarId: 'primary', eventId: created.id! })).data;
    expect(current).toMatchObject({ summary: 'Planning', status: 'confirmed' });
    const patched = await alice.events.patch(
      { calendarId: 'primary', eventId: created.id!, requestBody: { summary: 'Mine' } },
      { headers: { 'If-Match': current.etag! } },
    );
    expect(patched.data.summary).toBe('Mine');
    expect(patched.data.etag).not.toBe(current.etag);
  });
});

describe('freeBusy range limit', () => {
  const query = (timeMin: string, timeMax: string) => alice.freebusy.query({ requestBody: { timeMin, timeMax, items: [{ id: ALICE }] } });

  test('when the range is exactly 90 days of 24 hours, then it is answered', async () => {
    expect((await query('2026-09-01T00:00:00Z', '2026-11-30T00:00:00Z')).status).toBe(200);
  });

  test("when 90 local days cross the autumn DST change (an hour more), then 400 timeRangeTooLong with Google's message", async () => {
    const refused = await failure(query('2026-09-01T00:00:00-04:00', '2026-11-30T00:00:00-05:00'));
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'The requested time range is too long.',
          errors: [{ message: 'The requested time range is too long.', domain: 'calendar', reason: 'timeRangeTooLong' }],
        },
      },
    });
  });
});

describe('propagation delay (eventual consistency)', () => {
  test('when set, then a new event is missed by get, patch, delete and list until the delay passes, while its id is already taken', async () => {
    // The longest delay the control API takes, so that a loaded machine cannot let it pass in real time mid-test.
    const set = await sb.control('PUT', '/settings', { calendar_propagation_delay_ms: 60_000 });
    expect(set.body).toMatchObject({ calendar_propagation_delay_ms: 60_000 });
    const created = (await alice.events.insert({ calendarId: 'primary', requestBody: { ...meeting(), id: 'fresh00001' } })).data;
    expect(created.id).toBe('fresh00001');
    const params = { calendarId: 'primary', eventId: 'fresh00001' };
    // Each call is wrapped by failure() as it starts: one answered before another is awaited must not reject unhandled.
    const missed = await Promise.all([
      failure(alice.events.get(params)),
      failure(alice.events.patch({ ...params, requestBody: { summary: 'x' } })),
      failure(alice.events.delete(params)),
    ]);
    for (const outcome of missed) expect(outcome).toMatchObject({ status: 404, body: { error: { errors: [{ reason: 'notFound' }] } } });
    expect((await alice.events.list({ calendarId: 'primary' })).data.items).toEqual([]);
    expect((await failure(alice.events.insert({ calendarId: 'primary', requestBody: { ...meeting(), id: 'fresh00001' } }))).status).toBe(409);
    await sb.control('POST', '/clock', { advance_s: 60 });
    expect((await alice.events.get(params)).data.summary).toBe('Planning');
    expect((await alice.events.list({ calendarId: 'primary' })).data.items).toHaveLength(1);
  });

  test('when the setting is out of range, then the control API refuses it', async () => {
    expect((await sb.control('PUT', '/settings', { calendar_propagation_delay_ms: -1 })).status).toBe(400);
    expect((await sb.control('PUT', '/settings', {})).body).toMatchObject({ calendar_propagation_delay_ms: 0 });
  });
});

describe('"Add invitations to my calendar"', () => {
  const insertFor = (guest: string, sendUpdates: string, responseStatus?: string) =>
    alice.events.insert({ calendarId: 'primary', sendUpdates, requestBody: meeting([{ email: guest, ...(responseStatus ? { responseStatus } : {}) }]) });
  const onCalendarOf = async (email: string, eventId: string) => {
    const guest = await client(email);
    return (await guest.events.list({ calendarId: 'primary' })).data.items!.some((e) => e.id === eventId);
  };

  test('when the guest adds invitations from everyone (the default), then a quiet insert (sendUpdates=none) still puts it on their calendar and mails nobody', async () => {
    const { id } = (await insertFor(BEN, 'none')).data;
    expect(await onCalendarOf(BEN, id!)).toBe(true);
    expect(mail()).toEqual([]);
  });

  test('when only known senders are added and the organizer is not known, then the event stays off, the reply written for them is reset, and Google mails the invitation anyway', async () => {
    await sb.createAccount({ email: CARLA, add_invitations: 'known_senders' });
    const created = (await insertFor(CARLA, 'none', 'accepted')).data;
    expect(created.attendees).toEqual([{ email: CARLA, responseStatus: 'needsAction' }]);
    expect(await onCalendarOf(CARLA, created.id!)).toBe(false);
    expect(mail()).toEqual([['invitation', CARLA, 'not_added_to_calendar']]);
  });

  test('when only known senders are added, then someone of the same organization or a listed sender is known', async () => {
    await sb.createAccount({ email: 'dora@acme.example', add_invitations: 'known_senders' });
    await sb.createAccount({ email: CARLA, add_invitations: 'known_senders', known_senders: [ALICE] });
    const colleague = (await insertFor('dora@acme.example', 'none')).data;
    const contact = (await insertFor(CARLA, 'none')).data;
    expect(await onCalendarOf('dora@acme.example', colleague.id!)).toBe(true);
    expect(await onCalendarOf(CARLA, contact.id!)).toBe(true);
  });

  test("when invitations are added only after a reply, then even a colleague's event stays off; with sendUpdates=all the ordinary invitation is the only mail", async () => {
    await sb.createAccount({ email: 'dora@acme.example', add_invitations: 'when_responded' });
    const { id } = (await insertFor('dora@acme.example', 'all')).data;
    expect(await onCalendarOf('dora@acme.example', id!)).toBe(false);
    expect(mail()).toEqual([['invitation', 'dora@acme.example']]);
  });

  test('when such a guest is added later by a patch, then the same happens, and later updates are not mailed to them by Google', async () => {
    await sb.createAccount({ email: CARLA, add_invitations: 'when_responded' });
    const { id } = (await alice.events.insert({ calendarId: 'primary', requestBody: meeting() })).data;
    await alice.events.patch({ calendarId: 'primary', eventId: id!, sendUpdates: 'none', requestBody: { attendees: [{ email: CARLA }] } });
    await alice.events.patch({ calendarId: 'primary', eventId: id!, sendUpdates: 'none', requestBody: { summary: 'Renamed' } });
    expect(await onCalendarOf(CARLA, id!)).toBe(false);
    expect(mail()).toEqual([['invitation', CARLA, 'not_added_to_calendar']]);
  });
});
