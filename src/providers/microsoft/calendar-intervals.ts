import type { Interval } from '../../core/calendar';

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
