import type { Result } from '../../core/errors';

/**
 * Runs `work` over `items` with at most `limit` in flight, results in input order. At the first failure the
 * answer is decided: no new work starts, and the signal handed to the work already running aborts, so it can
 * stop too (its results are discarded). The failure is returned.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, signal: AbortSignal) => Promise<Result<R>>): Promise<Result<R[]>> {
  const results: R[] = new Array<R>(items.length);
  const decided = new AbortController();
  let next = 0;
  let failure: Result<R[]> | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      const outcome = await work(items[index]!, decided.signal);
      if (!outcome.ok) {
        failure ??= outcome;
        decided.abort();
      } else results[index] = outcome.value;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return failure ?? { ok: true, value: results };
}
