import type { RecentEntry, RecentWrites, WriteScope } from '../core/recent-writes';

/**
 * The recent-writes port (src/core/recent-writes.ts) in this process's memory: what a single Hub uses, and what a
 * replica falls back on while Redis is unavailable. Bounded: beyond `maxEntries` keys and lists the oldest are
 * dropped, so a flood of writes costs forgetting, never memory.
 */

interface Slot<T> {
  value: T;
  expiresAt: number;
}

/** The scope and the key, apart: no credential id or address can make one scope's key another's. */
export const scopedKey = (scope: WriteScope, key: string): string => JSON.stringify([scope.credentialId, scope.accountEmail ?? '', key]);

export function createMemoryRecentWrites(options: { maxEntries?: number; now?: () => number } = {}): RecentWrites {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const values = new Map<string, Slot<string>>();
  const lists = new Map<string, Slot<RecentEntry[]>>();

  const read = <T>(map: Map<string, Slot<T>>, key: string): T | undefined => {
    const slot = map.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt > now()) return slot.value;
    map.delete(key);
    return undefined;
  };
  const write = <T>(map: Map<string, Slot<T>>, key: string, value: T, ttlMs: number) => {
    map.delete(key); // re-inserted last: Map iteration is insertion order, the first keys are the oldest
    map.set(key, { value, expiresAt: now() + ttlMs });
    for (const oldest of map.keys()) {
      if (map.size <= maxEntries) break;
      map.delete(oldest);
    }
  };

  return {
    async put(scope, key, value, ttlMs) {
      if (ttlMs > 0) write(values, scopedKey(scope, key), value, ttlMs);
    },
    async get(scope, key) {
      return read(values, scopedKey(scope, key));
    },
    async push(scope, list, entry, { ttlMs, max }) {
      if (ttlMs <= 0 || max <= 0) return;
      const key = scopedKey(scope, list);
      const horizon = entry.at - ttlMs;
      const kept = (read(lists, key) ?? []).filter((e) => e.member !== entry.member && e.at > horizon);
      const next = [...kept, { ...entry }].sort((a, b) => a.at - b.at).slice(-max);
      write(lists, key, next, ttlMs);
    },
    async since(scope, list, since) {
      return (read(lists, scopedKey(scope, list)) ?? []).filter((e) => e.at > since).map((e) => ({ ...e }));
    },
  };
}
