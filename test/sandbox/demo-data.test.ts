import { DEMO_ACCOUNTS, demoAccounts } from '@hub/google-sandbox';
import { SCOPES, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/** The demo world: it seeds, and everything in it reads back through googleapis as Google would send it. */

const WEDNESDAY = new Date('2026-11-18T10:00:00Z');
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox({ accounts: demoAccounts(WEDNESDAY) });
});
afterAll(async () => {
  sb.expectFaithful();
  await sb.close();
});

test('when the demo week is read, then Ana sees her events in Madrid time, expanded, with the stand-up every weekday', async () => {
  const auth = sb.google.withAccessToken(await sb.token(DEMO_ACCOUNTS.ana, [SCOPES.calendarReadonly]));
  const { data } = await sb.google.calendar(auth).events.list({
    calendarId: 'primary',
    timeMin: '2026-11-16T00:00:00Z',
    timeMax: '2026-11-21T00:00:00Z',
    singleEvents: true,
    orderBy: 'startTime',
  });
  const standups = data.items!.filter((e) => e.summary === 'Team stand-up');
  expect(standups).toHaveLength(5);
  expect(standups[0]!.start!.dateTime).toBe('2026-11-16T09:30:00+01:00');
  expect(data.items!.map((e) => e.summary)).toEqual(expect.arrayContaining(['1:1 Ana / Ben', 'Partner integration review', 'Focus time']));
  expect(data.items!.some((e) => e.status === 'cancelled')).toBe(false);
});

test("when Ana asks for free/busy, then Ben's calendar answers and Carla's is notFound inside a 200", async () => {
  const auth = sb.google.withAccessToken(await sb.token(DEMO_ACCOUNTS.ana, [SCOPES.calendarReadonly]));
  const { data } = await sb.google.calendar(auth).freebusy.query({
    requestBody: { timeMin: '2026-11-17T00:00:00Z', timeMax: '2026-11-18T00:00:00Z', items: [{ id: DEMO_ACCOUNTS.ben }, { id: DEMO_ACCOUNTS.carla }] },
  });
  expect(data.calendars![DEMO_ACCOUNTS.ben]!.busy).toEqual(expect.arrayContaining([{ start: '2026-11-17T15:00:00Z', end: '2026-11-17T17:00:00Z' }]));
  expect(data.calendars![DEMO_ACCOUNTS.carla]).toEqual({ errors: [{ domain: 'global', reason: 'notFound' }], busy: [] });
});

test('when Ana reads her inbox, then every message opens in full with its attachments, newest first', async () => {
  const gmail = sb.google.gmail(sb.google.withAccessToken(await sb.token(DEMO_ACCOUNTS.ana, [SCOPES.gmailReadonly])));
  const list = await gmail.users.messages.list({ userId: 'me' });
  expect(list.data.messages).toHaveLength(6);
  const full = await Promise.all(list.data.messages!.map((m) => gmail.users.messages.get({ userId: 'me', id: m.id! })));
  const subjects = full.map((r) => r.data.payload!.headers!.find((h) => h.name === 'Subject')!.value);
  expect(subjects[0]).toBe('Lunch Thursday?');
  const deck = full.find((r) => r.data.payload!.parts?.some((p) => p.filename === 'q4-planning.pdf'))!;
  const part = deck.data.payload!.parts!.find((p) => p.filename === 'q4-planning.pdf')!;
  const attachment = await gmail.users.messages.attachments.get({ userId: 'me', messageId: deck.data.id!, id: part.body!.attachmentId! });
  expect(Buffer.from(attachment.data.data!, 'base64url').toString()).toContain('%PDF-1.4');
  const thread = full.filter((r) => subjects[full.indexOf(r)]!.includes('Integration timeline'));
  expect(new Set(thread.map((r) => r.data.threadId)).size).toBe(1);
});

test.each([
  ['2026-11-18T10:00:00Z', '2026-11-16'],
  ['2026-11-21T10:00:00Z', '2026-11-23'],
  ['2026-11-22T10:00:00Z', '2026-11-23'],
])('when the demo starts at %s, then its working week starts on Monday %s', (now, monday) => {
  const spec = demoAccounts(new Date(now))[0]!;
  const standup = (spec.events as { summary: string; start: unknown }[]).find((e) => e.summary === 'Team stand-up')!;
  expect(String(standup.start).slice(0, 10)).toBe(monday);
});
