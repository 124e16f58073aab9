import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { VendorCall } from '../../../src/core/vendor-call';
import { fail, ok } from '../../../src/core/errors';
import { createGraphCalendar } from '../../../src/providers/microsoft/calendar';
import { classifyGraphError } from '../../../src/providers/microsoft/graph-errors';
import { createMemoryRecentWrites } from '../../../src/store/recent-writes-memory';
import { createToolCache } from '../../../src/tools/tool-cache';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../../helpers/microsoft';
import { outlookCalendar } from './outlook-calendar';

/** Throttling as Outlook does it, and Graph answers of the wrong shape: a clear error every time, never a crash. */

describe('throttling', () => {
  let world: MicrosoftWorld;
  beforeEach(async () => {
    world = await startMicrosoftWorld();
  });
  afterEach(async () => world.close());

  test('when Outlook throttles the mailbox, then the port answers RATE_LIMITED with the Retry-After Graph sent', async () => {
    await world.control('POST', '/faults', { operation: 'events.calendarView', preset: 'mailboxConcurrency', retry_after_s: 17, times: 1 });
    const { port } = outlookCalendar(world, DEMO.ana);
    const throttled = await port.agenda({ start: Date.parse('2027-03-22T00:00:00Z'), end: Date.parse('2027-03-23T00:00:00Z') });
    expect(throttled).toMatchObject({
      ok: false,
      error: { code: 'RATE_LIMITED', retryable: true, retryAfterS: 17, details: { scope: 'upstream', reason: 'ApplicationThrottled' } },
    });
  });

  test("when the app spends the mailbox's request budget, then Outlook's own 429 comes through with its Retry-After", async () => {
    await world.control('PUT', '/throttling', { preset: 'tight' });
    const { port } = outlookCalendar(world, DEMO.ana);
    let last;
    for (let i = 0; i < 25; i++) {
      last = await port.listCalendars();
      if (!last.ok) break;
    }
    expect(last).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED', details: { scope: 'upstream' } } });
    if (last && !last.ok) expect(last.error.retryAfterS).toBeGreaterThanOrEqual(1);
  });
});

describe('hostile answers', () => {
  let server: Server;
  let base: string;
  let answers: Record<string, { status?: number; body: unknown }>;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push(`${req.method} ${url.pathname}`);
      const key = Object.keys(answers).find((k) => `${req.method} ${url.pathname}`.startsWith(k));
      const answer = key ? answers[key]! : { status: 404, body: { error: { code: 'ErrorItemNotFound', message: 'nothing here' } } };
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.0`;
  });
  afterAll(async () => new Promise((r) => server.close(r)));

  /** One attempt per call, classified as the provider does: what the resilience layer would hand the adapter. */
  const call: VendorCall = async (op, fn) => {
    try {
      return ok(await fn(AbortSignal.timeout(5_000), 'token'));
    } catch (err) {
      const failure = classifyGraphError(err, { operation: op.operation });
      if (!failure) throw err;
      return fail(failure.error);
    }
  };
  const port = () =>
    createGraphCalendar({
      call,
      graphUrl: base,
      cache: createToolCache(),
      recent: createMemoryRecentWrites(),
      connection: { credentialId: 'c1', accountEmail: 'ana@northwind.example', scopes: [] },
      deadline: AbortSignal.timeout(10_000),
      now: Date.now,
      logger: { warn: () => undefined },
    });
  const unexpected = { ok: false, error: { code: 'EXTERNAL_API_ERROR', retryable: false, details: { reason: 'unexpected_response' } } };
  const range = { start: Date.parse('2027-03-22T00:00:00Z'), end: Date.parse('2027-03-23T00:00:00Z') };
  const event = {
    id: 'AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0Aabcdefghijklmnopqrstuvwxyz',
    webLink: 'https://outlook.office365.com/owa/?itemid=x',
    start: { dateTime: '2027-03-22T10:00:00.0000000', timeZone: 'UTC' },
    end: { dateTime: '2027-03-22T11:00:00.0000000', timeZone: 'UTC' },
  };

  test.each<[string, Record<string, { status?: number; body: unknown }>, (p: ReturnType<typeof port>) => Promise<unknown>]>([
    [
      'an event whose times are not times',
      { 'GET /v1.0/me/calendar/events/': { body: { ...event, start: { dateTime: 'yesterday', timeZone: 'UTC' } } } },
      (p) => p.getEvent('primary', event.id),
    ],
    [
      'an event in a zone nobody knows',
      { 'GET /v1.0/me/calendar/events/': { body: { ...event, start: { dateTime: '2027-03-22T10:00:00', timeZone: 'Mars Standard Time' } } } },
      (p) => p.getEvent('primary', event.id),
    ],
    ['an event without an id', { 'GET /v1.0/me/calendar/events/': { body: { ...event, id: 42 } } }, (p) => p.getEvent('primary', event.id)],
    ['a 200 that is not JSON', { 'GET /v1.0/me/calendar/events/': { body: '<html>gateway</html>' } }, (p) => p.getEvent('primary', event.id)],
    [
      'a created event that is a list',
      { 'POST /v1.0/me/calendar/events': { status: 201, body: { value: [] } } },
      (p) => p.createEvent('primary', { title: 't', start: '2027-03-22T10:00:00Z', end: '2027-03-22T11:00:00Z' }, { dedupKey: null }),
    ],
    ['calendars that are not a list', { 'GET /v1.0/me/calendars': { body: { value: 'nope' } } }, (p) => p.listCalendars()],
    [
      'a schedule item without times',
      {
        'POST /v1.0/me/calendar/getSchedule': {
          body: { value: [{ scheduleId: 'ben@northwind.example', scheduleItems: [{ status: 'busy', start: { dateTime: 'x' }, end: { dateTime: 'y' } }] }] },
        },
      },
      (p) => p.freeBusy(['ben@northwind.example'], range, 'UTC'),
    ],
    ['an agenda page that is an object', { 'GET /v1.0/me/calendar/calendarView': { body: { value: { start: 1 } } } }, (p) => p.agenda(range)],
    ['mailbox settings that are a string', { 'GET /v1.0/me/mailboxSettings': { body: 'Pacific Standard Time' } }, (p) => p.timeZone()],
  ])('when Graph answers %s, then EXTERNAL_API_ERROR unexpected_response', async (_, given, run) => {
    answers = given;
    expect(await run(port())).toMatchObject(unexpected);
  });

  test('when a page link points away from the Graph endpoint, then it is not followed and the answer is unexpected', async () => {
    seen.length = 0;
    answers = {
      'GET /v1.0/me/calendars': {
        body: { value: [{ id: 'c1', name: 'Mine', isDefaultCalendar: true }], '@odata.nextLink': 'https://evil.example/v1.0/me/calendars?$skip=10' },
      },
    };
    expect(await port().listCalendars()).toMatchObject(unexpected);
    answers = { 'GET /v1.0/me/calendar/calendarView': { body: { value: [], '@odata.nextLink': `${base.replace('/v1.0', '')}/elsewhere/calendarView` } } };
    expect(await port().agenda(range)).toMatchObject(unexpected);
    expect(seen).toEqual(['GET /v1.0/me/calendars', 'GET /v1.0/me/calendar/calendarView']);
  });

  test('when the mailbox keeps a zone with no IANA equivalent, then the time zone is a clear EXTERNAL_API_ERROR, never a guess', async () => {
    answers = {
      'GET /v1.0/me/mailboxSettings': {
        body: {
          timeZone: 'Customized Time Zone',
          workingHours: { daysOfWeek: ['monday'], startTime: '08:00:00.0000000', endTime: '17:00:00.0000000', timeZone: { name: 'Customized Time Zone' } },
        },
      },
    };
    const p = port();
    expect(await p.timeZone()).toMatchObject({
      ok: false,
      error: { code: 'EXTERNAL_API_ERROR', details: { reason: 'unknown_time_zone', time_zone: 'Customized Time Zone' } },
    });
    expect(await p.workingHours()).toMatchObject({ ok: false, error: { details: { reason: 'unknown_time_zone' } } });
  });

  test('when working hours cross midnight or name no day, then there are none to use (the tools fall back to theirs)', async () => {
    answers = {
      'GET /v1.0/me/mailboxSettings': {
        body: {
          timeZone: 'UTC',
          workingHours: { daysOfWeek: ['monday'], startTime: '22:00:00.0000000', endTime: '06:00:00.0000000', timeZone: { name: 'UTC' } },
        },
      },
    };
    expect(await port().workingHours()).toEqual({ ok: true, value: null });
    answers = { 'GET /v1.0/me/mailboxSettings': { body: { timeZone: 'UTC', workingHours: { daysOfWeek: [], startTime: '08:00:00', endTime: '17:00:00' } } } };
    expect(await port().workingHours()).toEqual({ ok: true, value: null });
    answers = {
      'GET /v1.0/me/mailboxSettings': {
        body: {
          timeZone: 'W. Europe Standard Time',
          workingHours: {
            daysOfWeek: ['Sunday', 'monday'],
            startTime: '08:30:00.0000000',
            endTime: '00:00:00.0000000',
            timeZone: { name: 'W. Europe Standard Time' },
          },
        },
      },
    };
    expect(await port().workingHours()).toEqual({ ok: true, value: { start: '08:30', end: '24:00', days: ['monday', 'sunday'], timeZone: 'Europe/Berlin' } });
  });

  test('when a schedule is missing from the answer or carries an error, then it is unreadable with a reason, never free', async () => {
    answers = {
      'POST /v1.0/me/calendar/getSchedule': {
        body: { value: [{ scheduleId: 'ben@northwind.example', error: { responseCode: 'ErrorProxyRequestProcessingFailed', message: 'x' } }] },
      },
    };
    const busy = await port().freeBusy(['ben@northwind.example', 'chen@northwind.example'], range, 'UTC');
    expect(busy).toEqual({
      ok: true,
      value: new Map([
        ['ben@northwind.example', { readable: false, reason: 'ErrorProxyRequestProcessingFailed' }],
        ['chen@northwind.example', { readable: false, reason: 'missing' }],
      ]),
    });
  });
});
