import { MS_DEMO_ACCOUNTS, MS_DEMO_TENANT, type MicrosoftSandboxConfigError, ianaOf, loadMicrosoftSandboxConfig, populateDemoWorld } from '../src';
import { CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, type Harness, expectNoViolations, graphClient, startHarness, tokenFor } from './support';

/** The demo tenant as the demo shows it, read through the Graph client; and the command's configuration. */

const NOW = new Date('2026-03-11T12:00:00Z'); // a Wednesday
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    populate: populateDemoWorld(NOW),
    apps: [{ clientId: CLIENT_ID, secret: CLIENT_SECRET, redirectUris: [REDIRECT_URI], name: 'Agent', permissions: ['User.Read'] }],
  });
});
afterAll(async () => {
  expectNoViolations(h);
  await h.close();
});

test('when the demo world is read, then three people sit in Windows zones, one whose IANA name differs, with a week of meetings', async () => {
  const { accounts } = (await h.control('GET', '/accounts')).body;
  expect(accounts.map((a: any) => [a.upn, a.time_zone, a.tenant.id])).toEqual([
    [MS_DEMO_ACCOUNTS.ana, 'Romance Standard Time', MS_DEMO_TENANT.id],
    [MS_DEMO_ACCOUNTS.ben, 'Pacific Standard Time', MS_DEMO_TENANT.id],
    [MS_DEMO_ACCOUNTS.chen, 'GMT Standard Time', MS_DEMO_TENANT.id],
  ]);
  expect(ianaOf('Pacific Standard Time')).toBe('America/Los_Angeles');
  const ana = graphClient(h, await tokenFor(h, MS_DEMO_ACCOUNTS.ana, ['Calendars.ReadWrite', 'Mail.Read']));
  const week = await ana
    .api('/me/calendarView')
    .query({ startDateTime: '2026-03-09T00:00:00Z', endDateTime: '2026-03-14T00:00:00Z' })
    .top(50)
    .header('Prefer', 'outlook.timezone="Romance Standard Time"')
    .get();
  const subjects = week.value.map((e: any) => e.subject);
  expect(subjects.filter((s: string) => s === 'Ops stand-up')).toHaveLength(5);
  expect(subjects).toEqual(expect.arrayContaining(['Q3 planning', 'Contoso renewal call', 'Design review: shipping API', 'Team offsite']));
  expect(week.value.find((e: any) => e.subject === 'Ops stand-up').start.dateTime).toMatch(/T09:30:00\.0000000$/);
  expect(week.value.find((e: any) => e.subject === 'Team offsite')).toMatchObject({ isAllDay: true, start: { dateTime: '2026-03-13T00:00:00.0000000' } });
  const schedule = await ana.api('/me/calendar/getSchedule').post({
    schedules: Object.values(MS_DEMO_ACCOUNTS),
    startTime: { dateTime: '2026-03-13T08:00:00', timeZone: 'Pacific Standard Time' },
    endTime: { dateTime: '2026-03-13T10:00:00', timeZone: 'Pacific Standard Time' },
    availabilityViewInterval: 60,
  });
  expect(schedule.value[1].availabilityView).toBe('33'); // Ben at the dentist, out of office
});

test('when Ana’s inbox is read, then a thread shares one conversationId across Inbox and Sent Items, with HTML mail and a PDF', async () => {
  const ana = graphClient(h, await tokenFor(h, MS_DEMO_ACCOUNTS.ana, ['Mail.Read']));
  const inbox = (await ana.api('/me/mailFolders/inbox/messages').get()).value;
  expect(inbox.map((m: any) => m.subject)).toEqual(['Scheduled maintenance this weekend', 'Offsite logistics', 'RE: Q3 plan', 'Q3 plan']);
  const thread = (await ana.api('/me/messages').filter(`conversationId eq '${inbox[3].conversationId}'`).get()).value;
  expect(thread).toHaveLength(3);
  const sent = (await ana.api('/me/mailFolders/sentitems/messages').get()).value;
  expect(sent[0]).toMatchObject({ subject: 'RE: Q3 plan', conversationId: inbox[3].conversationId });
  expect(inbox[2].hasAttachments).toBe(true);
  expect(inbox[1].body.contentType).toBe('html');
  expect(inbox[0].importance).toBe('high');
});

test('when the command is configured, then every bad variable is named at once', () => {
  expect(loadMicrosoftSandboxConfig({})).toMatchObject({ port: 8091, host: '127.0.0.1', control: false, demoData: true });
  let problems: string[] = [];
  try {
    loadMicrosoftSandboxConfig({ MS_SANDBOX_PORT: '99999', MS_SANDBOX_CLIENT_ID: 'not-a-guid', MS_SANDBOX_CONTROL: 'maybe' });
  } catch (err) {
    problems = (err as MicrosoftSandboxConfigError).problems;
  }
  expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['MS_SANDBOX_CLIENT_ID', 'MS_SANDBOX_CONTROL', 'MS_SANDBOX_PORT']);
});
