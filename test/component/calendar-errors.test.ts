import { randomUUID } from 'node:crypto';
import { googleScope } from '../../src/integrations/catalog';
import { connectToSandbox } from '../helpers/connected';
import { ANA, calendarRequestsSince, calendarTool, connectPerson, connectWithNarrowedToken, requestLogPosition, useCalendarSuite } from '../helpers/calendar';

/**
 * How Google's failures reach the agent through the calendar tools: each mapped to the contract's codes, with
 * metadata.api_calls counting every request made to Google (retries and token refreshes included), and never
 * Google's body or a stack in the answer.
 */

const suite = useCalendarSuite();
const { sb } = suite;
const NY = 'America/New_York';
const EVENT = { title: 'Sync', start: '2027-01-18T14:00:00-05:00', end: '2027-01-18T15:00:00-05:00' };
const RANGE = { start_date: '2027-01-18', end_date: '2027-01-19', timezone: NY };
const ana = () => connectPerson(suite, { email: ANA, time_zone: NY });
type Who = Awaited<ReturnType<typeof ana>>;
const run = (who: Who, tool: string, inputs: Record<string, unknown>, requestId?: string) => calendarTool(suite, who, tool, inputs, requestId);

afterEach(async () => {
  await sb.control('DELETE', '/faults');
});

test('when the token Google holds lacks calendar.events, then Google’s 403 becomes INTEGRATION_PERMISSION_DENIED with where to reconnect', async () => {
  await sb.createAccount({ email: ANA, time_zone: NY });
  const who = await connectWithNarrowedToken(suite, ANA);
  const res = await run(who, 'calendar_create_event', EVENT);
  expect(res.status).toBe(403);
  expect(res.body.error).toMatchObject({
    code: 'INTEGRATION_PERMISSION_DENIED',
    retryable: false,
    details: { integration: 'google_calendar', setup_url: expect.stringContaining('/integrations/google/connect?token=') },
  });
  expect(res.body.metadata.api_calls).toBe(1);
});

test('when the connection was granted read-only, then the write tools fail before calling Google and the read tools work', async () => {
  await sb.createAccount({ email: ANA, time_zone: NY });
  const who = await connectToSandbox(suite.hub(), sb, { email: ANA, integration: 'google_calendar', scopes: [googleScope('calendar.readonly')] });
  const since = await requestLogPosition(sb);
  const denied = await run(who, 'calendar_delete_event', { event_id: 'abc123' });
  expect(denied.status).toBe(403);
  expect(denied.body.error.details.missing_scopes).toEqual(['calendar.events']);
  expect(await calendarRequestsSince(sb, since)).toEqual([]);
  expect((await run(who, 'calendar_get_availability', RANGE)).status).toBe(200);
});

test.each([
  ['429 tooManyRequests', { preset: 'tooManyRequests' }],
  ['403 rateLimitExceeded', { preset: 'rateLimitExceeded' }],
])('when Google answers %s on every attempt, then RATE_LIMITED (upstream) after the retries, each attempt counted', async (_name, fault) => {
  const who = await ana();
  await run(who, 'calendar_get_availability', RANGE); // the calendar's zone is now cached: only freeBusy below
  await sb.control('POST', '/faults', { operation: 'calendar.freebusy.query', ...fault });
  const res = await run(who, 'calendar_get_availability', RANGE);
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { scope: 'upstream' } });
  expect(res.headers['retry-after']).toBeDefined();
  expect(res.body.metadata.api_calls).toBe(4); // 1 + HUB_GOOGLE_MAX_RETRIES (3)
});

test('when Google answers 500 once, then the read is retried and succeeds, both attempts counted', async () => {
  const who = await ana();
  await sb.control('POST', '/faults', { operation: 'calendar.freebusy.query', preset: 'backendError', times: 1 });
  const res = await run(who, 'calendar_get_availability', RANGE);
  expect(res.status).toBe(200);
  expect(res.body.metadata.api_calls).toBe(3); // settings + freeBusy twice
});

test('when Google keeps failing with 503, then EXTERNAL_API_ERROR (retryable) with the upstream status and no Google body', async () => {
  const who = await ana();
  await sb.control('POST', '/faults', { operation: 'calendar.events.patch', preset: 'unavailable' });
  const res = await run(who, 'calendar_update_event', { event_id: 'abc123', updates: { title: 'x' } });
  expect(res.status).toBe(502);
  expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 503 } });
  expect(res.text).not.toMatch(/currently unavailable|stack|googleapis\.com/);
});

test('when Google refuses a request with another 4xx, then EXTERNAL_API_ERROR (not retryable) with its status and reason', async () => {
  const who = await ana();
  const body = { error: { code: 400, message: 'Bad Request', errors: [{ domain: 'calendar', reason: 'invalid', message: 'Bad Request' }] } };
  await sb.control('POST', '/faults', { operation: 'calendar.events.delete', status: 400, body });
  const res = await run(who, 'calendar_delete_event', { event_id: 'abc123' });
  expect(res.status).toBe(502);
  expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: false, details: { upstream_status: 400, reason: 'invalid' } });
  expect(res.body.metadata.api_calls).toBe(1);
});

test('when the calendar id is unknown, then RESOURCE_NOT_FOUND', async () => {
  const who = await ana();
  const res = await run(who, 'calendar_create_event', { ...EVENT, calendar_id: 'nope@group.calendar.google.com' });
  expect(res.status).toBe(404);
  expect(res.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', details: { upstream_status: 404 } });
});

test('when Google rejects the access token once (401), then the Hub refreshes and retries: insert, token, insert counted', async () => {
  const who = await ana();
  await sb.control('POST', '/faults', { operation: 'calendar.events.insert', status: 401, times: 1 });
  const res = await run(who, 'calendar_create_event', EVENT, 'req-401');
  expect(res.status).toBe(200);
  expect(res.body.metadata.api_calls).toBe(3);
});

test('when the access token is about to expire, then the refresh before the call counts as an api call', async () => {
  await sb.createAccount({ email: ANA, time_zone: NY });
  const who = await connectToSandbox(suite.hub(), sb, { email: ANA, integration: 'google_calendar', expiresInS: 60 });
  const res = await run(who, 'calendar_create_event', EVENT);
  expect(res.status).toBe(200);
  expect(res.body.metadata.api_calls).toBe(2);
});

test('when the grant was revoked, then INTEGRATION_EXPIRED', async () => {
  const who = await ana();
  await sb.control('POST', `/accounts/${ANA}/revoke`);
  const res = await run(who, 'calendar_find_optimal_times', {
    duration_minutes: 30,
    attendees: [],
    date_range: { start: '2027-01-18', end: '2027-01-19' },
    timezone: NY,
  });
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('INTEGRATION_EXPIRED');
});

test('when the customer has no calendar connection, then INTEGRATION_NOT_CONNECTED', async () => {
  const res = await run({ customerId: randomUUID(), userId: null } as Who, 'calendar_get_availability', RANGE);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('INTEGRATION_NOT_CONNECTED');
});
