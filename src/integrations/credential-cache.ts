import type { CredentialRecord } from '../store/credential-store';
import type { ProviderId } from '../core/capabilities';
import type { IntegrationId } from '../core/integrations';
import { INTEGRATIONS } from './catalog';

/**
 * The credential lookups of recent calls, per process, for a short TTL: a burst of calls for one customer costs
 * one query and one decryption instead of one each. Entries are grouped by (customer, capability) because that is
 * what an invalidation must reach: a call resolves its capability among every integration of it (Google's and
 * Microsoft's), so connecting or removing any of them — or a user-level row, which changes what a customer-wide
 * lookup falls back to — can change which connection answers; it drops the whole group.
 *
 * Besides found rows, a group keeps "this integration is not connected" (`putAbsent`) and the customer's default
 * provider for the capability. The resolver records an absence only beside a found row of the same capability:
 * a refusal ("nothing connected") is never served from here, so it changes the moment someone connects.
 */

export interface CachedCredential {
  readonly record: CredentialRecord;
  /** The unsealed access token, once someone asked for it: decrypted once per cached record, not per call. */
  accessToken?: string;
}

export interface CredentialCache {
  /** A found row, null when the integration is known not to be connected, undefined when unknown. */
  get(customerId: string, userId: string | null, integration: IntegrationId): CachedCredential | null | undefined;
  /** Remembers `record` as this caller's answer; returns the entry to use (kept only when caching is on). */
  put(customerId: string, userId: string | null, integration: IntegrationId, record: CredentialRecord): CachedCredential;
  /** Remembers that nothing of `integration` answers this caller. */
  putAbsent(customerId: string, userId: string | null, integration: IntegrationId): void;
  /** The customer's default provider for the integration's capability: null = none recorded, undefined = unknown. */
  getDefault(customerId: string, integration: IntegrationId): ProviderId | null | undefined;
  putDefault(customerId: string, integration: IntegrationId, provider: ProviderId | null): void;
  /** After a refresh: every entry holding this credential now holds `record` (and its already-known token). */
  replace(record: CredentialRecord, accessToken?: string): CachedCredential;
  /** Forgets everything of the integration's capability for the customer: its rows, absences and default. */
  invalidate(customerId: string, integration: IntegrationId): void;
}

interface Slot {
  value: CachedCredential | ProviderId | null;
  expiresAt: number;
}

/** Beyond this many entries, expired ones are swept (and if none are, everything is dropped): memory stays bounded. */
const MAX_ENTRIES = 10_000;

export function createCredentialCache(ttlMs: number, now: () => number = Date.now): CredentialCache {
  const groups = new Map<string, Map<string, Slot>>();
  let size = 0;
  const groupKey = (customerId: string, integration: IntegrationId) => `${customerId.toLowerCase()}\u0000${INTEGRATIONS[integration].capability}`;
  // userId may be any string; '\u0001' + id keeps a user named '' apart from the customer-wide lookup.
  const slotKey = (userId: string | null, integration: IntegrationId) => `${integration}\u0000${userId === null ? '' : `\u0001${userId}`}`;
  const DEFAULT_SLOT = '\u0002default';

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

  const read = (group: string, slot: string): Slot['value'] | undefined => {
    if (ttlMs <= 0) return undefined;
    const slots = groups.get(group);
    const found = slots?.get(slot);
    if (!found) return undefined;
    if (found.expiresAt > now()) return found.value;
    slots!.delete(slot);
    size--;
    return undefined;
  };

  const write = (group: string, slot: string, value: Slot['value']) => {
    if (ttlMs <= 0) return;
    if (size >= MAX_ENTRIES) sweep();
    let slots = groups.get(group);
    if (!slots) groups.set(group, (slots = new Map()));
    if (!slots.has(slot)) size++;
    slots.set(slot, { value, expiresAt: now() + ttlMs });
  };

  return {
    get(customerId, userId, integration) {
      const value = read(groupKey(customerId, integration), slotKey(userId, integration));
      return typeof value === 'string' ? undefined : value;
    },

    put(customerId, userId, integration, record) {
      const entry: CachedCredential = { record };
      write(groupKey(customerId, integration), slotKey(userId, integration), entry);
      return entry;
    },

    putAbsent(customerId, userId, integration) {
      write(groupKey(customerId, integration), slotKey(userId, integration), null);
    },

    getDefault(customerId, integration) {
      const value = read(groupKey(customerId, integration), DEFAULT_SLOT);
      return value === null || typeof value === 'string' ? value : undefined;
    },

    putDefault(customerId, integration, provider) {
      write(groupKey(customerId, integration), DEFAULT_SLOT, provider);
    },

    replace(record, accessToken) {
      const entry: CachedCredential = accessToken === undefined ? { record } : { record, accessToken };
      const group = groups.get(groupKey(record.customerId, record.integration));
      for (const slot of group?.values() ?? []) {
        if (slot.value !== null && typeof slot.value === 'object' && slot.value.record.id === record.id) {
          slot.value = entry;
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
