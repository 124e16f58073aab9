import { loadDiscoveryDocuments } from '../../src/discovery/documents';
import { buildRoutes, matchRoute } from '../../src/discovery/routes';
import { checkQuery, checkRequestBody, checkResponseBody } from '../../src/discovery/schema-check';

/** The Discovery-driven front end: routing by Google's path templates, and Google's request/response checks. */

const [calendar, gmail] = loadDiscoveryDocuments() as [ReturnType<typeof loadDiscoveryDocuments>[number], ReturnType<typeof loadDiscoveryDocuments>[number]];
const routes = buildRoutes(loadDiscoveryDocuments());
const method = (id: string) => routes.find((r) => r.method.id === id)!.method;

describe('routing', () => {
  test.each([
    ['POST', '/calendar/v3/calendars/primary/events', 'calendar.events.insert', { calendarId: 'primary' }],
    ['POST', '/calendar/v3/calendars/primary/events/import', 'calendar.events.import', { calendarId: 'primary' }],
    ['GET', '/calendar/v3/calendars/a%40b.example/events/abc123', 'calendar.events.get', { calendarId: 'a@b.example', eventId: 'abc123' }],
    ['POST', '/calendar/v3/freeBusy', 'calendar.freebusy.query', {}],
    ['POST', '/gmail/v1/users/me/messages/send', 'gmail.users.messages.send', { userId: 'me' }],
    ['POST', '/upload/gmail/v1/users/me/messages/send', 'gmail.users.messages.send', { userId: 'me' }],
    ['GET', '/gmail/v1/users/me/messages/m1/attachments/a1', 'gmail.users.messages.attachments.get', { userId: 'me', messageId: 'm1', id: 'a1' }],
  ])('when %s %s, then %s with its path parameters', (verb, path, id, params) => {
    const m = matchRoute(routes, verb, path);
    expect(m).toMatchObject({ route: { method: { id } }, params });
  });

  test('when the path exists with another verb, then method-not-allowed; when unknown, then nothing', () => {
    expect(matchRoute(routes, 'PUT', '/calendar/v3/freeBusy')).toBe('method-not-allowed');
    expect(matchRoute(routes, 'GET', '/calendar/v3/nowhere')).toBeUndefined();
  });
});

describe('request bodies', () => {
  test('when the body matches, then no problem; null and int64-as-number are accepted as Google does', () => {
    expect(checkRequestBody(calendar, 'Event', { summary: 'x', start: { dateTime: '2026-01-01T10:00:00Z' }, description: null })).toBeNull();
    expect(checkRequestBody(gmail, 'Message', { raw: 'SGVsbG8', threadId: 't1', historyId: 12 })).toBeNull();
  });

  test.each([
    [{ nope: 1 }, 'Invalid JSON payload received. Unknown name "nope": Cannot find field.'],
    [{ start: { dateTime: 'x', zone: 'UTC' } }, 'Invalid JSON payload received. Unknown name "zone" at \'start\': Cannot find field.'],
    [{ attendees: [{ email: 'a@b' }, { emial: 'c@d' }] }, 'Invalid JSON payload received. Unknown name "emial" at \'attendees[1]\': Cannot find field.'],
    [{ summary: 5 }, "Invalid value at 'summary' (TYPE_STRING), 5"],
    [{ guestsCanModify: 'yes' }, 'Invalid value at \'guests_can_modify\' (TYPE_BOOL), "yes"'],
    [{ extendedProperties: { private: { a: 1 } } }, "Invalid value at 'extended_properties.private[a]' (TYPE_STRING), 1"],
  ])('when the body is %j, then Google says %s', (body, message) => {
    expect(checkRequestBody(calendar, 'Event', body)).toBe(message);
  });

  test('when bytes are not base64, then it is refused', () => {
    expect(checkRequestBody(gmail, 'Message', { raw: 'not base64!' })).toMatch(/TYPE_BYTES/);
  });
});

describe('query parameters', () => {
  test('when parameters are known, then they come back typed; repeated ones as arrays', () => {
    const r = checkQuery(gmail, method('gmail.users.messages.list'), { maxResults: '10', includeSpamTrash: 'true', labelIds: 'INBOX', q: 'x' });
    expect(r).toEqual({ ok: true, query: { maxResults: 10, includeSpamTrash: true, labelIds: ['INBOX'], q: 'x' } });
  });

  test('when an API-wide parameter is used, then it is accepted', () => {
    expect(checkQuery(calendar, method('calendar.events.list'), { prettyPrint: 'false', fields: 'items(id)' }).ok).toBe(true);
  });

  test.each([
    [{ colour: 'red' }, /Unknown name "colour": Cannot bind query parameter/],
    [{ maxResults: 'ten' }, /Invalid value at 'max_results' \(TYPE_UINT32|TYPE_INT32\)/],
    [{ maxResults: ['1', '2'] }, /not repeating/],
    [{ includeSpamTrash: 'maybe' }, /TYPE_BOOL/],
  ])('when the query is %j, then 400 %s', (query, message) => {
    const r = checkQuery(gmail, method('gmail.users.messages.list'), query);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(message);
  });
});

describe('response bodies (strict)', () => {
  test('when a response is faithful, then no problems', () => {
    expect(checkResponseBody(gmail, 'Profile', { emailAddress: 'a@b.example', messagesTotal: 3, threadsTotal: 2, historyId: '100' })).toEqual([]);
  });

  test('when a response has an unknown field, a null, a numeric int64 or a bad date-time, then each is listed', () => {
    const problems = checkResponseBody(calendar, 'Event', { id: 'x', colour: 'red', summary: null, created: 'yesterday' });
    expect(problems).toEqual([
      '(root): "colour" is not a field of Event',
      'summary: null (Google omits empty fields)',
      'created: "yesterday" is not a valid string (date-time)',
    ]);
    expect(checkResponseBody(gmail, 'Profile', { historyId: 100 })).toEqual(['historyId: 100 is not a valid string (uint64)']);
  });
});
