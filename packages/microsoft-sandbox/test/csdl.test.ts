import { checkValue, loadGraphSchema, propertyType } from '../src/csdl/schema';

/** The checker every other test relies on: it must find what is wrong, and pass what Graph itself sends. */

const schema = loadGraphSchema();

test('when the CSDL is read, then it knows the calendar and mail types, their base types and bound actions', () => {
  expect(propertyType(schema, 'microsoft.graph.event', 'id')).toBe('Edm.String'); // from entity, two bases up
  expect(propertyType(schema, 'microsoft.graph.event', 'changeKey')).toBe('Edm.String'); // from outlookItem
  expect(propertyType(schema, 'microsoft.graph.message', 'conversationId')).toBe('Edm.String');
  expect(propertyType(schema, 'microsoft.graph.mailboxSettings', 'workingHours')).toBe('graph.workingHours');
  expect([...(schema.operations.get('getSchedule')?.[0]?.parameters.keys() ?? [])]).toEqual([
    'bindingParameter',
    'Schedules',
    'EndTime',
    'StartTime',
    'AvailabilityViewInterval',
  ]);
  expect(schema.operations.has('sendMail')).toBe(true);
});

test('when a value departs from its type, then each departure is named by path', () => {
  const problems = checkValue(schema, 'microsoft.graph.event', {
    '@odata.etag': 'W/"x"',
    id: 'x',
    subject: 1,
    showAs: 'sleeping',
    start: { dateTime: '2026-01-05T09:00:00.0000000', timeZone: 'UTC', zone: 'x' },
    attendees: [{ emailAddress: { address: 'a@b.c' }, type: 'required', status: { response: 'accepted', time: 'yesterday' } }],
    madeUp: true,
  });
  expect(problems).toEqual([
    expect.stringContaining('$.subject: expected a string'),
    '$.showAs: sleeping is not a member of microsoft.graph.freeBusyStatus',
    '$.start.zone: no such property on microsoft.graph.dateTimeTimeZone',
    expect.stringContaining('$.attendees[0].status.time: expected an ISO 8601 date-time'),
    '$.madeUp: no such property on microsoft.graph.event',
  ]);
});

test('when a derived type names itself with @odata.type, then its own properties are allowed', () => {
  const attachment = { '@odata.type': '#microsoft.graph.fileAttachment', id: 'a', name: 'x.pdf', contentBytes: 'AAEC', size: 3, isInline: false };
  expect(checkValue(schema, 'microsoft.graph.attachment', attachment)).toEqual([]);
  expect(checkValue(schema, 'microsoft.graph.attachment', { ...attachment, '@odata.type': '#microsoft.graph.event' })).toHaveLength(1);
});
