import type { Interval } from './mapping';
import type { DayWindow } from './windows';

/**
 * Meeting-time suggestions: candidate slots, their scores, and which ones are shown.
 *
 * Candidates: every start on the 15-minute grid (:00, :15, :30, :45 local — every zone in use today is offset
 * from UTC by a multiple of 15 minutes, so the UTC grid is the local grid) such that the whole slot lies in one
 * working-hours window, starts no earlier than `notBefore`, and does not overlap the organizer's firm busy time
 * (the organizer must be free).
 *
 * Conflicts of a slot: `busy` for an attendee whose free/busy overlaps it, `unknown` for an attendee whose
 * calendar could not be read (fail closed: such a slot is never conflict-free), `tentative` (attributed to the
 * organizer) when it overlaps one of the organizer's own tentative or unanswered events.
 *
 * Score (deterministic, in [0, 1], rounded to 2 decimals in results):
 *   preference penalty P = 0.25 × (fraction of the slot outside the preferred hours, when given)
 *                        + 0.20 if avoid_mondays and the slot is on a local Monday
 *                        + 0.05 × (how far into the searched period the slot starts, 0 = first window, 1 = end)
 *   conflict-free:   score = 1 − P                        (so 0.5 ≤ score ≤ 1)
 *   with conflicts:  score = 0.5 × A × (1 − P), A = 1 − W / (attendees + 1),
 *                    W = Σ 1 per busy + 0.5 per unknown + 0.25 per tentative   (so 0 ≤ score < 0.5)
 * hence every conflict-free slot outranks every slot with a conflict. Ties: earlier start first.
 *
 * Shown: up to `maxResults`, conflict-free slots first; within each class the best slot of each day is taken
 * before a second slot of any day (round by round), and shown slots never overlap — so suggestions spread over
 * days instead of being five adjacent quarter-hours of the best morning.
 */

export const GRID_MS = 15 * 60_000;

export type ConflictType = 'busy' | 'tentative' | 'unknown';
export interface Conflict {
  attendee: string;
  type: ConflictType;
}

export type AttendeeBusy = { email: string; busy: readonly Interval[] } | { email: string; unknown: true };

export interface SlotRequest {
  windows: readonly DayWindow[];
  durationMinutes: number;
  notBefore: number;
  organizer: string;
  /** Sorted and merged. */
  organizerBusy: readonly Interval[];
  /** Sorted and merged. */
  organizerTentative: readonly Interval[];
  attendees: readonly AttendeeBusy[];
  avoidMondays: boolean;
  maxResults: number;
}

export interface Suggestion {
  start: number;
  end: number;
  day: string;
  score: number;
  conflicts: Conflict[];
}

const CONFLICT_WEIGHT: Record<ConflictType, number> = { busy: 1, unknown: 0.5, tentative: 0.25 };

/** A cursor over sorted, merged intervals for slots visited in increasing start order. */
function overlapCursor(intervals: readonly Interval[]) {
  let i = 0;
  return (start: number, end: number): boolean => {
    while (i < intervals.length && intervals[i]!.end <= start) i++;
    return i < intervals.length && intervals[i]!.start < end;
  };
}

export function preferencePenalty(slot: Interval, window: DayWindow, avoidMondays: boolean, progress: number): number {
  let penalty = 0.05 * Math.min(1, Math.max(0, progress));
  if (window.preferred) {
    const inside = Math.max(0, Math.min(slot.end, window.preferred.end) - Math.max(slot.start, window.preferred.start));
    penalty += 0.25 * (1 - inside / (slot.end - slot.start));
  }
  if (avoidMondays && window.weekday === 'monday') penalty += 0.2;
  return penalty;
}

export function scoreOf(conflicts: readonly Conflict[], participants: number, penalty: number): number {
  if (conflicts.length === 0) return 1 - penalty;
  const weight = conflicts.reduce((sum, c) => sum + CONFLICT_WEIGHT[c.type], 0);
  return 0.5 * Math.max(0, 1 - weight / participants) * (1 - penalty);
}

/** Every candidate slot, scored, in time order. */
export function candidateSlots(req: SlotRequest): Suggestion[] {
  const duration = req.durationMinutes * 60_000;
  const first = req.windows[0];
  const last = req.windows.at(-1);
  if (!first || !last) return [];
  const span = Math.max(1, last.end - first.start);
  const organizerBusy = overlapCursor(req.organizerBusy);
  const tentative = overlapCursor(req.organizerTentative);
  const attendees = req.attendees.map((a) => ({ email: a.email, overlaps: 'unknown' in a ? null : overlapCursor(a.busy) }));
  const participants = req.attendees.length + 1;
  const out: Suggestion[] = [];
  for (const window of req.windows) {
    const from = Math.max(window.start, req.notBefore);
    for (let start = Math.ceil(from / GRID_MS) * GRID_MS; start + duration <= window.end; start += GRID_MS) {
      const end = start + duration;
      if (organizerBusy(start, end)) continue;
      const conflicts: Conflict[] = [];
      if (tentative(start, end)) conflicts.push({ attendee: req.organizer, type: 'tentative' });
      for (const a of attendees) {
        if (a.overlaps === null) conflicts.push({ attendee: a.email, type: 'unknown' });
        else if (a.overlaps(start, end)) conflicts.push({ attendee: a.email, type: 'busy' });
      }
      const penalty = preferencePenalty({ start, end }, window, req.avoidMondays, (start - first.start) / span);
      out.push({ start, end, day: window.day, score: scoreOf(conflicts, participants, penalty), conflicts });
    }
  }
  return out;
}

const byRank = (a: Suggestion, b: Suggestion) => b.score - a.score || a.start - b.start;

/** Picks the suggestions to show from the candidates (see the module comment), best first. */
export function pickSuggestions(candidates: readonly Suggestion[], maxResults: number): Suggestion[] {
  const picked: Suggestion[] = [];
  const overlapsPicked = (c: Suggestion) => picked.some((p) => c.start < p.end && p.start < c.end);
  for (const group of [candidates.filter((c) => c.conflicts.length === 0), candidates.filter((c) => c.conflicts.length > 0)]) {
    const ranked = [...group].sort(byRank);
    const perDay = new Map<string, number>();
    for (let round = 1; picked.length < maxResults; round++) {
      let added = 0;
      for (const c of ranked) {
        if (picked.length >= maxResults) break;
        if ((perDay.get(c.day) ?? 0) >= round || overlapsPicked(c)) continue;
        picked.push(c);
        perDay.set(c.day, (perDay.get(c.day) ?? 0) + 1);
        added++;
      }
      if (added === 0) break;
    }
  }
  return picked.sort((a, b) => Number(a.conflicts.length > 0) - Number(b.conflicts.length > 0) || byRank(a, b));
}

export const findSlots = (req: SlotRequest): Suggestion[] => pickSuggestions(candidateSlots(req), req.maxResults);
