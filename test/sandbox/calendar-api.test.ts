import type { calendar_v3 } from '@googleapis/calendar';
import { DEMO_ACCOUNTS, demoAccounts } from '@hub/google-sandbox';
import { SCOPES, startTestSandbox, useTestSandbox } from '../helpers/sandbox';

/**
 * Calendar v3 over HTTP through the real googleapis client, as the Hub calls it: each emulated method's happy
 * path and its Google failures (404, 409, 410, 403), with every response checked against the Discovery schema.
 */

const ALICE = 'alice@acme.example';
const BOB = 'bob@acme.example';
const CAROL = 'carol@partner.example';

const sb = useTestSandbox();
let alice: calendar_v3.Calendar;
let bob: calendar_v3.Calendar;
let carol: calendar_v3.Calendar;

const client = async (email: string, scopes: string[]) => sb.google.calendar(sb.google.withAccessToken(await sb.token(email, scopes)));

/** The Google error a call failed with. */
async function failure(p: Promise<unknown>): Promise<{ status: number; reason: string; message: string }> {
  try {
    await p;
  } catch (e: any) {
    const error = e.response?.data?.error;
    return { status: e.response?.status, reason: error?.errors?.[0]?.reason, message: error?.message };
  }
  throw new Error('expected the call to fail');
}

beforeEach(async () => {
  await sb.createAccount({
    email: ALICE,
    time_zone: 'Europe/Berlin',
    primary_shared_with: [{ email: BOB, role: 'reader' }],
    events: [
      { id: 'seeded001', summary: 'Seeded', start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z' },
      { summary: 'Weekly', start: '2026-11-02T16:00:00', end: '2026-11-02T17:00:00', time_zone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] },
    ],
  });
  await sb.createAccount({ email: BOB, time_zone: 'America/New_York' });
  await sb.createAccount({ email: CAROL, time_zone: 'UTC' });
  alice = await client(ALICE, [SCOPES.calendar]);
  bob = await client(BOB, [SCOPES.calendarEvents, SCOPES.calendarReadonly]);
  carol = await client(CAROL, [SCOPES.calendar]);
});

describe('events over HTTP', () => {
  test('when an event goes through insert, get, patch, update, list and delete, then each answers like Google', async () => {
    const inserted = await alice.events.insert({
      calendarId: 'primary',
      sendUpdates: 'all',
      requestBody: {
        summary: 'Kick-off',
        start: { dateTime: '2026-11-24T10:00:00+01:00' },
        end: { dateTime: '2026-11-24T11:00:00+01:00' },
        attendees: [{ email: BOB }, { email: 'guest@outside.example' }],
      },
    });
    expect(inserted.status).toBe(200);
    const id = inserted.data.id!;
    expect(inserted.data).toMatchObject({ kind: 'calendar#event', status: 'confirmed', organizer: { email: ALICE, self: true } });
    expect(sb.world.calendar.notifications.map((n) => n.to)).toEqual([BOB, 'guest@outside.example']);

    const fetched = await alice.events.get({ calendarId: 'primary', eventId: id });
    expect(fetched.data.start).toEqual({ dateTime: '2026-11-24T10:00:00+01:00' });

    const patched = await alice.events.patch({ calendarId: 'primary', eventId: id, requestBody: { location: 'Room 4' } });
    expect(patched.data).toMatchObject({ summary: 'Kick-off', location: 'Room 4' });
    expect(patched.data.etag).not.toBe(inserted.data.etag);

    const updated = await alice.events.update({
      calendarId: 'primary',
      eventId: id,
      requestBody: { summary: 'Kick-off (moved)', start: { dateTime: '2026-11-25T10:00:00Z' }, end: { dateTime: '2026-11-25T11:00:00Z' } },
    });
    expect(updated.data).toMatchObject({ summary: 'Kick-off (moved)', sequence: 1 });
    expect(updated.data.location).toBeUndefined();
    expect(updated.data.attendees).toBeUndefined();

    const listed = await alice.events.list({
      calendarId: 'primary',
      singleEvents: true,
      orderBy: 'startTime',
      timeMin: '2026-11-23T00:00:00Z',
      timeMax: '2026-11-26T00:00:00Z',
    });
    expect(listed.data.items!.map((e) => e.summary)).toEqual(['Seeded', 'Weekly', 'Kick-off (moved)']);

    const deleted = await alice.events.delete({ calendarId: 'primary', eventId: id });
    expect(deleted.status).toBe(204);
    expect((await alice.events.get({ calendarId: 'primary', eventId: id })).data.status).toBe('cancelled');
    expect(await failure(alice.events.delete({ calendarId: 'primary', eventId: id }))).toEqual({
      status: 410,
      reason: 'deleted',
      message: 'Resource has been deleted',
    });
  });

  test('when an id is reused or unknown, then 409 duplicate and 404 notFound', async () => {
    const body = { id: 'seeded001', start: { dateTime: '2026-11-23T09:00:00Z' }, end: { dateTime: '2026-11-23T10:00:00Z' } };
    expect(await failure(alice.events.insert({ calendarId: 'primary', requestBody: body }))).toEqual({
      status: 409,
      reason: 'duplicate',
      message: 'The requested identifier already exists.',
    });
    expect(await failure(alice.events.get({ calendarId: 'primary', eventId: 'nosuchevent' }))).toMatchObject({ status: 404, reason: 'notFound' });
    expect(await failure(alice.events.patch({ calendarId: 'primary', eventId: 'nosuchevent', requestBody: {} }))).toMatchObject({ status: 404 });
  });

  test('when a reader writes or a stranger looks, then 403 requiredAccessLevel and 404', async () => {
    expect((await bob.events.get({ calendarId: ALICE, eventId: 'seeded001' })).data.summary).toBe('Seeded');
    const write = await failure(bob.events.insert({ calendarId: ALICE, requestBody: { start: { date: '2026-11-30' }, end: { date: '2026-12-01' } } }));
    expect(write).toEqual({ status: 403, reason: 'requiredAccessLevel', message: 'You need to have writer access to this calendar.' });
    expect(await failure(carol.events.list({ calendarId: ALICE }))).toMatchObject({ status: 404, reason: 'notFound' });
  });

  test('when a guest answers on its own copy, then the organizer sees the answer', async () => {
    const { data } = await alice.events.insert({
      calendarId: 'primary',
      requestBody: { summary: '1:1', start: { dateTime: '2026-11-26T15:00:00Z' }, end: { dateTime: '2026-11-26T15:30:00Z' }, attendees: [{ email: BOB }] },
    });
    const copy = (await bob.events.get({ calendarId: 'primary', eventId: data.id! })).data;
    expect(copy.start).toEqual({ dateTime: '2026-11-26T10:00:00-05:00' });
    await bob.events.patch({
      calendarId: 'primary',
      eventId: data.id!,
      requestBody: { attendees: copy.attendees!.map((a) => (a.self ? { ...a, responseStatus: 'accepted' } : a)) },
    });
    expect((await alice.events.get({ calendarId: 'primary', eventId: data.id! })).data.attendees).toEqual([{ email: BOB, responseStatus: 'accepted' }]);
  });
});

describe('free/busy, calendar list and settings over HTTP', () => {
  test('when free/busy is asked for a visible and a hidden calendar, then busy time and a notFound entry come back in a 200', async () => {
    const { data } = await bob.freebusy.query({
      requestBody: { timeMin: '2026-11-23T00:00:00Z', timeMax: '2026-11-24T00:00:00Z', items: [{ id: ALICE }, { id: CAROL }] },
    });
    expect(data.calendars).toEqual({
      [ALICE]: {
        busy: [
          { start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:00:00Z' },
          { start: '2026-11-23T15:00:00Z', end: '2026-11-23T16:00:00Z' },
        ],
      },
      [CAROL]: { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] },
    });
    const empty = await failure(bob.freebusy.query({ requestBody: { timeMin: '2026-11-24T00:00:00Z', timeMax: '2026-11-23T00:00:00Z', items: [] } }));
    expect(empty).toEqual({ status: 400, reason: 'timeRangeEmpty', message: 'The specified time range is empty.' });
  });

  test("when the calendar list and the timezone setting are read, then they are the account's", async () => {
    const list = await bob.calendarList.list();
    expect(list.data.items!.map((c) => [c.id, c.accessRole, c.primary])).toEqual([
      [BOB, 'owner', true],
      [ALICE, 'reader', undefined],
    ]);
    expect((await bob.calendarList.get({ calendarId: 'primary' })).data.timeZone).toBe('America/New_York');
    expect(await failure(carol.calendarList.get({ calendarId: ALICE }))).toMatchObject({ status: 404 });
    expect((await bob.settings.get({ setting: 'timezone' })).data).toMatchObject({ kind: 'calendar#setting', value: 'America/New_York' });
    expect(await failure(bob.settings.get({ setting: 'nonsense' }))).toMatchObject({ status: 404 });
  });

  test('when events are added through the control API, then they are visible to the API and a bad one is refused whole', async () => {
    const add = await sb.control('POST', `/accounts/${CAROL}/events`, {
      events: [{ summary: 'Via control', start: { date: '2026-12-01' }, end: { date: '2026-12-02' } }],
    });
    expect(add.status).toBe(201);
    const bad = await sb.control('POST', `/accounts/${CAROL}/events`, {
      events: [
        { summary: 'Fine', start: '2026-12-03T09:00:00Z', end: '2026-12-03T10:00:00Z' },
        { summary: 'Backwards', start: '2026-12-03T10:00:00Z', end: '2026-12-03T09:00:00Z' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('The specified time range is empty.');
    expect((await carol.events.list({ calendarId: 'primary' })).data.items!.map((e) => e.summary)).toEqual(['Via control']);
  });
});

describe('the demo world', () => {
  test('when the sandbox starts with the demo accounts, then their calendars seed and read back faithfully', async () => {
    const demo = await startTestSandbox({ accounts: demoAccounts(new Date()) });
    try {
      const ana = demo.google.calendar(demo.google.withAccessToken(await demo.token(DEMO_ACCOUNTS.ana, [SCOPES.calendar])));
      const week = { timeMin: new Date(Date.now() - 8 * 86_400_000).toISOString(), timeMax: new Date(Date.now() + 15 * 86_400_000).toISOString() };
      const events = await ana.events.list({ calendarId: 'primary', singleEvents: true, orderBy: 'startTime', ...week });
      expect(events.data.items!.filter((e) => e.summary === 'Team stand-up')).toHaveLength(10);
      const fb = await ana.freebusy.query({ requestBody: { ...week, items: [{ id: DEMO_ACCOUNTS.ben }, { id: DEMO_ACCOUNTS.carla }] } });
      expect(fb.data.calendars![DEMO_ACCOUNTS.ben]!.busy!.length).toBeGreaterThan(0);
      expect(fb.data.calendars![DEMO_ACCOUNTS.carla]!.errors).toEqual([{ domain: 'global', reason: 'notFound' }]);
      demo.expectFaithful();
    } finally {
      await demo.close();
    }
  });
});
