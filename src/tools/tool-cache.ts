import type { Result } from '../core/errors';

/**
 * A small per-process memo for facts tools look up from Google that rarely change (a mailbox's own address, a
 * calendar's time zone), so a call does not pay a round trip for them every time. Only successes are kept;
 * concurrent lookups of one key share a single load. Keys must name the connection (credential id) so one
 * customer's facts never answer for another. Bounded: beyond `maxEntries` the oldest entries are dropped.
 */
export interface ToolCache {
  memo<T>(key: string, ttlMs: number, load: () => Promise<Result<T>>): Promise<Result<T>>;
  /** Forgets one key (e.g. after Google contradicted the cached fact). */
  forget(key: string): void;
}

/**
 * The key of a fact about one connection. A reconnect keeps the row (and its id) but may bring another Google
 * account, so the connected account is part of the key: a fact about the old account is never served for the new.
 */
export const connectionFactKey = (connection: { credentialId: string; accountEmail: string | null }, fact: string): string =>
  `${fact}\u0000${connection.credentialId}\u0000${connection.accountEmail ?? ''}`;

interface Slot {
  value: unknown;
  expiresAt: number;
}

export function createToolCache(options: { maxEntries?: number; now?: () => number } = {}): ToolCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const slots = new Map<string, Slot>();
  const loading = new Map<string, Promise<Result<unknown>>>();
  return {
    async memo<T>(key: string, ttlMs: number, load: () => Promise<Result<T>>): Promise<Result<T>> {
      const slot = slots.get(key);
      if (slot && slot.expiresAt > now()) return { ok: true, value: slot.value as T };
      if (slot) slots.delete(key);
      const pending = loading.get(key);
      if (pending) return pending as Promise<Result<T>>;
      const flight = load()
        .then((result) => {
          if (result.ok && ttlMs > 0) {
            slots.set(key, { value: result.value, expiresAt: now() + ttlMs });
            // Map iteration is insertion order: the first keys are the oldest.
            for (const oldest of slots.keys()) {
              if (slots.size <= maxEntries) break;
              slots.delete(oldest);
            }
          }
          return result;
        })
        .finally(() => loading.delete(key));
      loading.set(key, flight);
      return flight;
    },
    forget(key) {
      slots.delete(key);
    },
  };
}
