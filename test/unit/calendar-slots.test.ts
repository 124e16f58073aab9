import { candidateSlots, findSlots, pickSuggestions, preferencePenalty, scoreOf, type SlotRequest, type Suggestion } from '../../src/tools/calendar/slots';
import type { DayWindow } from '../../src/tools/calendar/windows';

const t = (s: string) => Date.parse(s);
const M = 60_000;

/** A UTC working day 09:00-17:00, optionally with preferred hours 10:00-16:00. */
function day(date: string, weekday: DayWindow['weekday'], preferred = true, from = '09:00', to = '17:00'): DayWindow {
  return {
    day: date,
    weekday,
    start: t(`${date}T${from}:00Z`),
    end: t(`${date}T${to}:00Z`),
    preferred: preferred ? { start: t(`${date}T10:00:00Z`), end: t(`${date}T16:00:00Z`) } : null,
  };
}

const request = (over: Partial<SlotRequest> = {}): SlotRequest => ({
  windows: [day('2024-01-16', 'tuesday')],
  durationMinutes: 60,
  notBefore: 0,
  organizer: 'ana@acme.example',
  organizerBusy: [],
  organizerTentative: [],
  attendees: [],
  avoidMondays: false,
  maxResults: 5,
  ...over,
});
const at = (slots: Suggestion[], start: string) => slots.find((s) => s.start === t(start))!;
const round2 = (x: number) => Math.round(x * 100) / 100;

describe('scoring: worked examples from the module comment', () => {
  // One window 09:00-17:00 (8 h), preferred 10:00-16:00, two attendees (3 participants).
  const attendees = [
    { email: 'john@example.com', busy: [{ start: t('2024-01-16T13:00:00Z'), end: t('2024-01-16T14:00:00Z') }] },
    { email: 'jane@example.com', busy: [] },
  ];
  const slots = candidateSlots(request({ attendees, organizerTentative: [{ start: t('2024-01-16T15:00:00Z'), end: t('2024-01-16T15:30:00Z') }] }));

  test('when a slot is free and inside the preferred hours, 1 h into the day, then score = 1 − 0.05 × 1/8 = 0.99375', () => {
    const s = at(slots, '2024-01-16T10:00:00Z');
    expect(s.conflicts).toEqual([]);
    expect(s.score).toBeCloseTo(0.99375, 10);
  });

  test('when half the slot is before the preferred hours, then 0.25 × 0.5 more is taken off: 1 − 0.125 − 0.003125 = 0.871875', () => {
    expect(at(slots, '2024-01-16T09:30:00Z').score).toBeCloseTo(0.871875, 10);
  });

  test('when one of two attendees is busy, then score = 0.5 × (1 − 1/3) × (1 − P)', () => {
    const s = at(slots, '2024-01-16T13:00:00Z'); // P = 0.05 × 4/8 = 0.025
    expect(s.conflicts).toEqual([{ attendee: 'john@example.com', type: 'busy' }]);
    expect(s.score).toBeCloseTo(0.5 * (2 / 3) * 0.975, 10);
    expect(round2(s.score)).toBe(0.33);
  });

  test('when the organizer has a tentative event, then it is a tentative conflict weighing 0.25', () => {
    const s = at(slots, '2024-01-16T14:30:00Z'); // P = 0.05 × 5.5/8 = 0.034375
    expect(s.conflicts).toEqual([{ attendee: 'ana@acme.example', type: 'tentative' }]);
    expect(s.score).toBeCloseTo(0.5 * (1 - 0.25 / 3) * (1 - 0.034375), 10);
  });

  test('when an attendee calendar is unreadable, then every slot has an unknown conflict weighing 0.5', () => {
    expect(scoreOf([{ attendee: 'x@example.com', type: 'unknown' }], 3, 0)).toBeCloseTo(0.5 * (1 - 0.5 / 3), 10);
    const blind = candidateSlots(request({ attendees: [{ email: 'x@example.com', unknown: true }] }));
    expect(blind.every((s) => s.conflicts.some((c) => c.type === 'unknown'))).toBe(true);
  });

  test('when avoid_mondays is set, then a Monday slot loses 0.2; the worst conflict-free slot still outranks the best conflicted one', () => {
    const monday = day('2024-01-15', 'monday');
    const slot = { start: t('2024-01-15T10:00:00Z'), end: t('2024-01-15T11:00:00Z') };
    expect(preferencePenalty(slot, monday, true, 0)).toBeCloseTo(0.2, 10);
    expect(preferencePenalty(slot, monday, false, 0)).toBe(0);
    expect(1 - (0.25 + 0.2 + 0.05)).toBe(0.5);
    expect(scoreOf([{ attendee: 'o', type: 'tentative' }], 2, 0)).toBeLessThan(0.5);
  });
});

describe('candidates', () => {
  test('when the window starts off the grid, then slots start on local quarter-hours and fit inside the window', () => {
    const slots = candidateSlots(request({ windows: [day('2024-01-16', 'tuesday', false, '09:10', '10:30')], durationMinutes: 30 }));
    expect(slots.map((s) => new Date(s.start).toISOString().slice(11, 16))).toEqual(['09:15', '09:30', '09:45', '10:00']);
  });

  test('when the organizer is busy, then no slot overlaps that time', () => {
    const busy = { start: t('2024-01-16T09:00:00Z'), end: t('2024-01-16T16:00:00Z') };
    const slots = candidateSlots(request({ organizerBusy: [busy] }));
    expect(slots.map((s) => new Date(s.start).toISOString().slice(11, 16))).toEqual(['16:00']);
  });

  test('when notBefore is mid-window, then earlier slots are not offered', () => {
    const slots = candidateSlots(request({ notBefore: t('2024-01-16T15:05:00Z') }));
    expect(slots.map((s) => new Date(s.start).toISOString().slice(11, 16))).toEqual(['15:15', '15:30', '15:45', '16:00']);
  });
});

describe('picking', () => {
  const week = [day('2024-01-15', 'monday'), day('2024-01-16', 'tuesday'), day('2024-01-17', 'wednesday')];

  test('when several days are free, then suggestions spread over the days before a second slot of any day', () => {
    const picked = findSlots(request({ windows: week, maxResults: 5 }));
    expect(picked).toHaveLength(5);
    const perDay = new Map<string, number>();
    for (const s of picked) perDay.set(s.day, (perDay.get(s.day) ?? 0) + 1);
    expect([...perDay.values()].sort()).toEqual([1, 2, 2]); // every day once before any day twice
    expect(picked.map((s) => s.score)).toEqual([...picked.map((s) => s.score)].sort((a, b) => b - a)); // best first
    for (const a of picked) for (const b of picked) if (a !== b) expect(a.start < b.end && b.start < a.end).toBe(false);
  });

  test('when Mondays are avoided, then Monday comes after the other days', () => {
    const picked = findSlots(request({ windows: week, avoidMondays: true, maxResults: 3 }));
    expect(picked.map((s) => s.day)).toEqual(['2024-01-16', '2024-01-17', '2024-01-15']);
  });

  test('when only some slots are conflict-free, then they come first whatever the preferences', () => {
    const busyAllDay = (d: DayWindow) => ({ start: d.start, end: d.end - 60 * M });
    const picked = findSlots(request({ windows: week, attendees: [{ email: 'john@example.com', busy: week.map(busyAllDay) }], maxResults: 5 }));
    const free = picked.filter((s) => s.conflicts.length === 0);
    expect(free.map((s) => new Date(s.start).toISOString())).toEqual(['2024-01-15T16:00:00.000Z', '2024-01-16T16:00:00.000Z', '2024-01-17T16:00:00.000Z']);
    expect(picked.slice(0, 3)).toEqual(free);
    expect(picked.slice(3).every((s) => s.conflicts.length > 0 && s.score < 0.5)).toBe(true);
  });

  test('when the same inputs are given twice, then the same suggestions come back', () => {
    const req = request({ windows: week, attendees: [{ email: 'a@x.example', busy: [{ start: week[1]!.start, end: week[1]!.start + 90 * M }] }] });
    expect(findSlots(req)).toEqual(findSlots(req));
  });

  test('when fewer candidates exist than asked for, then all non-overlapping ones are returned', () => {
    const short = day('2024-01-16', 'tuesday', false, '09:00', '10:30');
    expect(pickSuggestions(candidateSlots(request({ windows: [short], maxResults: 5 })), 5)).toHaveLength(1);
  });
});
