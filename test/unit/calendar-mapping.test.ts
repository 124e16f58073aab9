import { createHash, randomBytes } from 'node:crypto';
import { type EventIdSource, base32hex, deriveEventId, isGoogleEventId } from '../../src/tools/calendar/event-id';
import { busyByCalendar, googleEventSchema, toAgendaEvent, toCalendarEvent } from '../../src/providers/google/calendar-answers';
import { mergeIntervals, subtractIntervals, toEventResult } from '../../src/tools/calendar/mapping';
import { parseGoogle } from '../../src/providers/google/answers';
import { firmnessOf, organizerTime } from '../../src/tools/calendar/organizer-events';

const t = (s: string) => Date.parse(s);
const source = { customerId: '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00', userId: null, calendarId: 'primary', requestId: 'req-1' };
const key = randomBytes(32);
const deriveEventIdOf = (s: EventIdSource) => deriveEventId(key, s);

describe('event id derivation', () => {
  test('when derived, then the id is 32 base32hex characters Google accepts, and stable', () => {
    const id = deriveEventIdOf(source);
    expect(id).toMatch(/^[a-v0-9]{32}$/);
    expect(isGoogleEventId(id)).toBe(true);
    expect(deriveEventIdOf({ ...source })).toBe(id);
    expect(deriveEventIdOf({ ...source, customerId: source.customerId.toUpperCase(), calendarId: ' PRIMARY ' })).toBe(id);
  });

  test('when derived under another key, then the id differs, and it is not the unkeyed hash anyone could compute', () => {
    const id = deriveEventIdOf(source);
    expect(deriveEventId(randomBytes(32), source)).not.toBe(id);
    // The previous scheme (plain SHA-256 over the same length-prefixed parts) is what an outsider could compute.
    const parts = ['hub-event-v1', source.customerId, '-', 'primary', 'req-1'];
    const plain = createHash('sha256');
    for (const part of parts) plain.update(`${Buffer.byteLength(part, 'utf8')}:${part}`, 'utf8');
    expect(id).not.toBe(base32hex(plain.digest().subarray(0, 20)));
  });

  test('when any part differs, then the id differs (user null vs empty string included)', () => {
    const ids = new Set([
      deriveEventIdOf(source),
      deriveEventIdOf({ ...source, userId: '' }),
      deriveEventIdOf({ ...source, userId: 'u-1' }),
      deriveEventIdOf({ ...source, calendarId: 'team@group.calendar.google.com' }),
      deriveEventIdOf({ ...source, requestId: 'req-2' }),
      deriveEventIdOf({ ...source, customerId: '00000000-0000-0000-0000-000000000000' }),
    ]);
    expect(ids.size).toBe(6);
  });

  test('when bytes are encoded, then base32hex matches RFC 4648 test vectors (lower case, no padding)', () => {
    const enc = (s: string) => base32hex(Buffer.from(s));
    expect([enc('f'), enc('fo'), enc('foo'), enc('foob'), enc('fooba'), enc('foobar')]).toEqual(['co', 'cpng', 'cpnmu', 'cpnmuog', 'cpnmuoj1', 'cpnmuoj1e8']);
  });
});

describe('Google → contract', () => {
  test('when an event is mapped, then only the contract fields leave, attendees with their answers', () => {
    expect(
      toEventResult(
        toCalendarEvent({
          id: 'abc123',
          htmlLink: 'https://www.google.com/calendar/event?eid=abc',
          status: 'confirmed',
          summary: 'secret stays inside',
          attendees: [{ email: 'john@example.com', responseStatus: 'needsAction' }],
        }),
      ),
    ).toEqual({
      event_id: 'abc123',
      html_link: 'https://www.google.com/calendar/event?eid=abc',
      status: 'confirmed',
      attendees: [{ email: 'john@example.com', response_status: 'needsAction' }],
    });
  });

  test('when freeBusy reports errors or leaves a calendar out, then it is unreadable, never free', () => {
    const range = { start: t('2024-01-15T00:00:00Z'), end: t('2024-01-16T00:00:00Z') };
    const data = {
      calendars: {
        primary: {
          busy: [
            { start: '2024-01-15T09:00:00-05:00', end: '2024-01-15T10:00:00-05:00' },
            { start: '2024-01-15T14:30:00Z', end: '2024-01-15T15:30:00Z' },
          ],
        },
        'Jane@Example.com': { busy: [], errors: [{ domain: 'global', reason: 'notFound' }] },
      },
    };
    const result = busyByCalendar(data, ['primary', 'jane@example.com', 'john@example.com'], range);
    expect(result.ok && [...result.value.entries()]).toEqual([
      ['primary', { readable: true, busy: [{ start: t('2024-01-15T14:00:00Z'), end: t('2024-01-15T15:30:00Z') }] }],
      ['jane@example.com', { readable: false, reason: 'notFound' }],
      ['john@example.com', { readable: false, reason: 'missing' }],
    ]);
  });

  test('when a busy time is not RFC 3339, then the answer is refused as unexpected', () => {
    const r = busyByCalendar({ calendars: { primary: { busy: [{ start: 'tomorrow', end: 'later' }] } } }, ['primary'], { start: 0, end: 1 });
    expect(r.ok || r.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', details: { reason: 'unexpected_response' } });
  });

  test('when Google answers with an unreadable event, then EXTERNAL_API_ERROR and a warning naming the paths, never the data', () => {
    const warn = jest.fn();
    const r = parseGoogle(googleEventSchema, { id: 'e1', summary: 'Salary talk with Jo', status: 'weird' }, 'calendar.events.get', { logger: { warn } });
    expect(r.ok || r.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', details: { reason: 'unexpected_response', operation: 'calendar.events.get' } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls)).not.toContain('Salary');
  });

  test('when intervals are merged and subtracted, then touching ones join and holes are cut', () => {
    const iv = (a: number, b: number) => ({ start: a, end: b });
    expect(mergeIntervals([iv(5, 8), iv(1, 3), iv(3, 4), iv(7, 12)], iv(0, 10))).toEqual([iv(1, 4), iv(5, 10)]);
    expect(subtractIntervals([iv(0, 10), iv(20, 30)], [iv(2, 3), iv(5, 22), iv(29, 40)])).toEqual([iv(0, 2), iv(3, 5), iv(22, 29)]);
  });
});

describe("the organizer's own time", () => {
  const ev = (id: string, start: string, end: string, extra: Record<string, unknown> = {}) =>
    toAgendaEvent({
      id,
      status: 'confirmed' as const,
      start: { dateTime: start },
      end: { dateTime: end },
      ...extra,
    });

  test('when events are unanswered, tentative, declined, transparent or cancelled, then they are tentative or free accordingly', () => {
    expect(firmnessOf(ev('a', '', '', { attendees: [{ self: true, responseStatus: 'needsAction' }] }))).toBe('tentative');
    expect(firmnessOf(ev('b', '', '', { attendees: [{ self: true, responseStatus: 'tentative' }] }))).toBe('tentative');
    expect(firmnessOf(ev('c', '', '', { status: 'tentative' }))).toBe('tentative');
    expect(firmnessOf(ev('d', '', '', { attendees: [{ self: true, responseStatus: 'declined' }] }))).toBe('free');
    expect(firmnessOf(ev('e', '', '', { transparency: 'transparent' }))).toBe('free');
    expect(firmnessOf(ev('f', '', '', { status: 'cancelled' }))).toBe('free');
    expect(firmnessOf(ev('g', '', '', { attendees: [{ self: true, responseStatus: 'accepted' }] }))).toBe('firm');
  });

  test('when freeBusy counts a tentative event busy, then that time becomes tentative, but overlapping firm time and unexplained busy stay firm', () => {
    const range = { start: t('2024-01-15T00:00:00Z'), end: t('2024-01-16T00:00:00Z') };
    const events = [
      ev('firm', '2024-01-15T10:00:00Z', '2024-01-15T11:00:00Z'),
      ev('maybe', '2024-01-15T10:30:00Z', '2024-01-15T12:00:00Z', { attendees: [{ self: true, responseStatus: 'tentative' }] }),
    ];
    const freeBusy = [
      { start: t('2024-01-15T10:00:00Z'), end: t('2024-01-15T12:00:00Z') },
      { start: t('2024-01-15T15:00:00Z'), end: t('2024-01-15T16:00:00Z') },
    ];
    expect(organizerTime(events, freeBusy, 'UTC', range)).toEqual({
      firm: [
        { start: t('2024-01-15T10:00:00Z'), end: t('2024-01-15T11:00:00Z') },
        { start: t('2024-01-15T15:00:00Z'), end: t('2024-01-15T16:00:00Z') },
      ],
      tentative: [{ start: t('2024-01-15T10:30:00Z'), end: t('2024-01-15T12:00:00Z') }],
    });
  });
});
