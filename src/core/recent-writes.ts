/**
 * What a connection's own recent writes leave behind for the calls right after them: an event just created, the
 * key a create was made under, a delete just sent. An adapter whose vendor is eventually consistent reads them to
 * answer as if the vendor had caught up. They must be seen by whichever process serves the next call, so with
 * Redis configured every replica shares them (src/store/recent-writes-redis.ts); a single process keeps them in
 * memory (src/store/recent-writes-memory.ts).
 *
 * Every fact belongs to one connection (`scope`: its credential and connected account, so a reconnect to another
 * account starts empty): implementations keep scopes apart, so no customer reads or overwrites another's facts
 * whatever keys an adapter chooses. Facts are hints that expire, never records to rely on: one lost to an
 * unavailable store costs the vendor's own answer, as it would on another replica without them.
 */

export interface WriteScope {
  credentialId: string;
  accountEmail: string | null;
}

/** A member of a recent list and when it was added (ms since the epoch, by the adapter's clock). */
export interface RecentEntry {
  member: string;
  at: number;
}

export interface RecentWrites {
  /** Remembers `value` under `key` for `ttlMs`. */
  put(scope: WriteScope, key: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `key`, while remembered. */
  get(scope: WriteScope, key: string): Promise<string | undefined>;
  /**
   * Adds `member` at `at` to the list `list` (an earlier copy of it replaced), keeping the newest `max` members
   * and none older than `ttlMs` before `at`; the list is forgotten `ttlMs` after its last addition.
   */
  push(scope: WriteScope, list: string, entry: RecentEntry, limits: { ttlMs: number; max: number }): Promise<void>;
  /** The list's members added after `since`, oldest first. */
  since(scope: WriteScope, list: string, since: number): Promise<RecentEntry[]>;
}
