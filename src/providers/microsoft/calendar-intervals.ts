import type { Interval } from '../../core/calendar';

/**
 * Busy time as the port hands it out: clipped to the range, empty intervals dropped, sorted, overlapping or
 * touching ones merged. The same rule as the Google adapter's; kept here because a provider does not import the
 * tool layer.
 */
export function mergeIntervals(intervals: readonly Interval[], range: Interval): Interval[] {
  const clipped = intervals
    .map((i) => ({ start: Math.max(i.start, range.start), end: Math.min(i.end, range.end) }))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Interval[] = [];
  for (const i of clipped) {
    const last = out.at(-1);
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

/** `range` cut into consecutive windows of at most `maxSpanMs`. */
export function windowsOf(range: Interval, maxSpanMs: number): Interval[] {
  const windows: Interval[] = [];
  for (let start = range.start; start < range.end; start += maxSpanMs) windows.push({ start, end: Math.min(range.end, start + maxSpanMs) });
  return windows;
}

/** Runs `tasks` with at most `limit` under way at once, in order; the results in the tasks' order. */
export async function inTurns<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
