import type { Result } from '../../errors';

/**
 * Runs `work` over `items` with at most `limit` in flight, results in input order. Stops starting new work at
 * the first failure and returns it (work already running is allowed to finish, its results discarded).
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<Result<R>>): Promise<Result<R[]>> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: Result<R[]> | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      const outcome = await work(items[index]!);
      if (!outcome.ok) failure ??= outcome;
      else results[index] = outcome.value;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return failure ?? { ok: true, value: results };
}
