import { randomUUID } from 'node:crypto';
import { calendarListCalendars } from '../../src/tools/calendar/list-calendars';
import { hubCurrentTime } from '../../src/tools/hub-current-time';
import { ANA, SUITE_NOW, connectPerson, useCalendarSuite } from '../helpers/calendar';
import { connectToSandbox, runTool, sandboxRequestsFrom } from '../helpers/connected';
import { SCOPES } from '../helpers/sandbox';

/**
 * calendar_list_calendars and hub_current_time through the real app and the sandbox's Calendar: what an agent
 * needs before it calls get_availability or create_event, and before it reasons about "tomorrow".
 */

const suite = useCalendarSuite();
const BOB = 'bob@acme.example';

async function expectOk(who: { customerId: string; userId: string | null }, tool: string, inputs: Record<string, unknown>) {
  const res = await runTool(suite.hub(), who, tool, inputs);
  if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${res.text}`);
  return res;
}

describe('calendar_list_calendars', () => {
  it('when the account owns, created and was shared calendars, then each comes with id, name, primary, role and zone, primary first', async () => {
    await suite.sb.createAccount({
      email: BOB,
      time_zone: 'America/New_York',
      primary_shared_with: [{ email: ANA, role: 'freeBusyReader' }],
      calendars: [{ id: 'team@group.calendar.example', summary: 'Team', time_zone: 'Europe/London', shared_with: [{ email: ANA, role: 'writer' }] }],
    });
    const ana = await connectPerson(suite, {
      email: ANA,
      time_zone: 'Europe/Madrid',
      calendars: [{ id: 'ana-side@group.calendar.example', summary: 'Side project' }],
    });
    const requests = await sandboxRequestsFrom(suite.sb);
    const res = await expectOk(ana, 'calendar_list_calendars', {});
    expect(calendarListCalendars.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.result.calendars[0]).toEqual({ id: ANA, summary: ANA, primary: true, access_role: 'owner', time_zone: 'Europe/Madrid' });
    expect(res.body.result.calendars).toEqual(
      expect.arrayContaining([
        { id: 'ana-side@group.calendar.example', summary: 'Side project', primary: false, access_role: 'owner', time_zone: 'Europe/Madrid' },
        { id: 'team@group.calendar.example', summary: 'Team', primary: false, access_role: 'writer', time_zone: 'Europe/London' },
        { id: BOB, summary: BOB, primary: false, access_role: 'freeBusyReader', time_zone: 'America/New_York' },
      ]),
    );
    expect(res.body.result.calendars).toHaveLength(4);
    expect(res.body.result.truncated).toBeUndefined();
    expect(res.body.metadata).toMatchObject({ api_calls: 1, tool_version: '1.1.0' });
    expect((await requests()).map((r) => r.operation)).toEqual(['calendar.calendarList.list']);

    const writable = await expectOk(ana, 'calendar_list_calendars', { min_access_role: 'writer' });
    expect(writable.body.result.calendars.map((c: { id: string }) => c.id).sort()).toEqual(
      [ANA, 'ana-side@group.calendar.example', 'team@group.calendar.example'].sort(),
    );
  });

  it('when the list is longer than one of Google’s pages (250), then the tool follows nextPageToken and returns them all', async () => {
    const calendars = Array.from({ length: 260 }, (_, i) => ({ id: `c${i}@group.calendar.example`, summary: `Calendar ${i}` }));
    const ana = await connectPerson(suite, { email: ANA, calendars });
    const res = await expectOk(ana, 'calendar_list_calendars', {});
    expect(res.body.result.calendars).toHaveLength(261);
    expect(new Set(res.body.result.calendars.map((c: { id: string }) => c.id)).size).toBe(261);
    expect(res.body.result.calendars[0].primary).toBe(true);
    expect(res.body.metadata.api_calls).toBe(2);
  });

  it('when a grant made with today’s scopes (calendar.readonly + calendar.events) is used, then it is enough; calendar.events alone is not', async () => {
    const ana = await connectPerson(suite, { email: ANA });
    expect((await runTool(suite.hub(), ana, 'calendar_list_calendars', {})).status).toBe(200);

    await suite.sb.createAccount({ email: BOB });
    const narrow = await connectToSandbox(suite.hub(), suite.sb, { email: BOB, integration: 'google_calendar', scopes: [SCOPES.calendarEvents] });
    const res = await runTool(suite.hub(), narrow, 'calendar_list_calendars', {});
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'INTEGRATION_PERMISSION_DENIED', details: { missing_scopes: ['calendar.readonly'] } });
    expect(res.body.metadata.api_calls).toBe(0);
  });
});

describe('hub_current_time', () => {
  it('when a timezone is given, then it answers without any connection or Google call', async () => {
    const nobody = { customerId: randomUUID(), userId: null };
    const res = await expectOk(nobody, 'hub_current_time', { timezone: 'America/New_York' });
    expect(hubCurrentTime.output.safeParse(res.body.result).success).toBe(true);
    // SUITE_NOW is 2026-12-01T12:00:00Z: a Tuesday, 07:00 in New York (EST).
    expect(res.body.result).toEqual({
      now: '2026-12-01T07:00:00-05:00',
      date: '2026-12-01',
      weekday: 'tuesday',
      timezone: 'America/New_York',
      utc_offset: '-05:00',
      utc: new Date(SUITE_NOW).toISOString().replace('.000Z', 'Z'),
      source: 'input',
    });
    expect(res.body.metadata.api_calls).toBe(0);
  });

  it('when no timezone is given, then the connected calendar’s zone is used (read once, then remembered)', async () => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: 'Asia/Tokyo' });
    const first = await expectOk(ana, 'hub_current_time', {});
    expect(first.body.result).toMatchObject({
      now: '2026-12-01T21:00:00+09:00',
      weekday: 'tuesday',
      timezone: 'Asia/Tokyo',
      utc_offset: '+09:00',
      source: 'calendar',
    });
    expect(first.body.metadata.api_calls).toBe(1);
    const again = await expectOk(ana, 'hub_current_time', {});
    expect(again.body.metadata.api_calls).toBe(0);
  });

  it('when no timezone is given and no calendar is connected, then INTEGRATION_NOT_CONNECTED with a setup_url — never a guessed zone', async () => {
    const res = await runTool(suite.hub(), { customerId: randomUUID(), userId: null }, 'hub_current_time', {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED', details: { integration: 'google_calendar', setup_url: expect.any(String) } });
  });

  it('when the zone is not an IANA name, then VALIDATION_ERROR names inputs.timezone', async () => {
    const res = await runTool(suite.hub(), { customerId: randomUUID(), userId: null }, 'hub_current_time', { timezone: '+05:00' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('inputs.timezone');
  });
});
