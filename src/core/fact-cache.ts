import type { Result } from './errors';

/**
 * A per-process memo of facts about a connection that rarely change (a mailbox's own address, a calendar's time
 * zone), shared by the adapters of every call of that connection. Only successes are kept; concurrent loads of
 * one key share a single load. Keys must name the connection so one customer's facts never answer for another.
 */
export interface FactCache {
  memo<T>(key: string, ttlMs: number, load: () => Promise<Result<T>>): Promise<Result<T>>;
  /** Forgets one key (e.g. after the vendor contradicted the cached fact). */
  forget(key: string): void;
}
