import type { CredentialRecord } from '../store/credential-store';
import type { IntegrationId } from '../core/integrations';

/**
 * The credential lookups of recent calls, per process, for a short TTL: a burst of calls for one customer costs
 * one query and one decryption instead of one each. Only found rows are kept (a "not connected" answer must
 * change the moment someone connects). Entries are grouped by (customer, integration) because that is what an
 * invalidation names: a user-level reconnect or disconnect can change which row a customer-wide lookup falls
 * back to, so it drops the whole group.
 */

export interface CachedCredential {
  readonly record: CredentialRecord;
  /** The unsealed access token, once someone asked for it: decrypted once per cached record, not per call. */
  accessToken?: string;
}

export interface CredentialCache {
  get(customerId: string, userId: string | null, integration: IntegrationId): CachedCredential | undefined;
  /** Remembers `record` as this caller's answer; returns the entry to use (kept only when caching is on). */
  put(customerId: string, userId: string | null, integration: IntegrationId, record: CredentialRecord): CachedCredential;
  /** After a refresh: every entry holding this credential now holds `record` (and its already-known token). */
  replace(record: CredentialRecord, accessToken?: string): CachedCredential;
  invalidate(customerId: string, integration: IntegrationId): void;
}

interface Slot {
  entry: CachedCredential;
  expiresAt: number;
}

/** Beyond this many entries, expired ones are swept (and if none are, everything is dropped): memory stays bounded. */
const MAX_ENTRIES = 10_000;

export function createCredentialCache(ttlMs: number, now: () => number = Date.now): CredentialCache {
  const groups = new Map<string, Map<string, Slot>>();
  let size = 0;
  const groupKey = (customerId: string, integration: IntegrationId) => `${customerId.toLowerCase()}\u0000${integration}`;
  // userId may be any string; '\u0000' + id keeps a user named '' apart from the customer-wide lookup.
  const userKey = (userId: string | null) => (userId === null ? '' : `\u0000${userId}`);

  const sweep = () => {
    const t = now();
    for (const [key, group] of groups) {
      for (const [user, slot] of group) if (slot.expiresAt <= t) group.delete(user);
      if (group.size === 0) groups.delete(key);
    }
    size = [...groups.values()].reduce((n, g) => n + g.size, 0);
    if (size >= MAX_ENTRIES) {
      groups.clear();
      size = 0;
    }
  };

  return {
    get(customerId, userId, integration) {
      if (ttlMs <= 0) return undefined;
      const group = groups.get(groupKey(customerId, integration));
      const slot = group?.get(userKey(userId));
      if (!slot) return undefined;
      if (slot.expiresAt > now()) return slot.entry;
      group!.delete(userKey(userId));
      size--;
      return undefined;
    },

    put(customerId, userId, integration, record) {
      const entry: CachedCredential = { record };
      if (ttlMs <= 0) return entry;
      if (size >= MAX_ENTRIES) sweep();
      const key = groupKey(customerId, integration);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = new Map()));
      if (!group.has(userKey(userId))) size++;
      group.set(userKey(userId), { entry, expiresAt: now() + ttlMs });
      return entry;
    },

    replace(record, accessToken) {
      const entry: CachedCredential = accessToken === undefined ? { record } : { record, accessToken };
      const group = groups.get(groupKey(record.customerId, record.integration));
      for (const slot of group?.values() ?? []) {
        if (slot.entry.record.id === record.id) {
          slot.entry = entry;
          slot.expiresAt = now() + ttlMs;
        }
      }
      return entry;
    },

    invalidate(customerId, integration) {
      const key = groupKey(customerId, integration);
      size -= groups.get(key)?.size ?? 0;
      groups.delete(key);
    },
  };
}
