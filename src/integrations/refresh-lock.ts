import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Who may refresh a credential right now. In one process the token refresher's map of in-flight refreshes
 * already lets only one through, so the local lock always grants. Across replicas a Redis lock does:
 * `SET key owner NX PX ttl` with a random owner token, released only by its owner (compare-and-delete in Lua),
 * so a holder that overran its TTL cannot delete the lock a successor now holds.
 */

export type LockAttempt =
  | { state: 'acquired'; release(): Promise<void> }
  /** Another replica holds it: wait for what it persists. */
  | { state: 'held' }
  /** The lock service did not answer (Redis down): the caller decides whether to go on without it. */
  | { state: 'unavailable'; err: unknown };

export interface RefreshLock {
  acquire(key: string, ttlMs: number): Promise<LockAttempt>;
}

const noop = async () => {};

/** One replica (no Redis): the in-process single flight is the whole story. */
export const localRefreshLock: RefreshLock = {
  acquire: async () => ({ state: 'acquired', release: noop }),
};

// KEYS[1] lock; ARGV[1] owner token. Deletes only while this owner holds it; 1 = released, 0 = not ours (or gone).
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface LockCommands {
  hubRefreshLockRelease(key: string, owner: string): Promise<number>;
}

export interface RedisRefreshLock extends RefreshLock {
  /** Compare-and-delete: true when `owner` held `key` and it is now released. Exposed for tests. */
  releaseIfOwner(key: string, owner: string): Promise<boolean>;
  /** Takes the lock for a given owner token (acquire() draws a random one). Exposed for tests. */
  tryTake(key: string, owner: string, ttlMs: number): Promise<boolean>;
}

export function createRedisRefreshLock(redis: Redis, options: { onReleaseError?: (err: unknown) => void } = {}): RedisRefreshLock {
  // defineCommand sends EVALSHA and falls back to EVAL once; redefining (a second app on this client) is harmless.
  redis.defineCommand('hubRefreshLockRelease', { numberOfKeys: 1, lua: RELEASE });
  const commands = redis as unknown as LockCommands;

  const tryTake = async (key: string, owner: string, ttlMs: number) => (await redis.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK';
  const releaseIfOwner = async (key: string, owner: string) => (await commands.hubRefreshLockRelease(key, owner)) === 1;

  return {
    tryTake,
    releaseIfOwner,
    async acquire(key, ttlMs) {
      const owner = randomBytes(16).toString('base64url');
      let taken: boolean;
      try {
        taken = await tryTake(key, owner, ttlMs);
      } catch (err) {
        return { state: 'unavailable', err };
      }
      if (!taken) return { state: 'held' };
      return {
        state: 'acquired',
        release: async () => {
          // A failed release only delays the next refresh of this credential until the TTL passes.
          await releaseIfOwner(key, owner).catch((err: unknown) => options.onReleaseError?.(err));
        },
      };
    },
  };
}
