import type { Logger } from '../logger';
import type { ServiceKeyRecord, ServiceKeyStore } from './service-key-store';
import { type ToolMatcher, toolMatcher } from './tool-match';

/**
 * Every usable service key, held in memory on each replica, so authenticating a key is one SHA-256 and one map
 * lookup — no database query per request, and none for a guessed key either (a miss re-reads the table at most
 * once a second, so a key made a moment ago on another replica works even if its event was lost). Changes reach
 * every replica through access events (reload at once); HUB_ACCESS_CACHE_TTL_MS bounds staleness when one is
 * lost. Looking a digest up in a map leaks nothing useful through timing: an attacker cannot choose digests.
 * `last_used_at` is gathered in memory and written for all keys in one statement per minute, not per request.
 */

export interface ActiveKey {
  id: string;
  name: string;
  customerIds: ReadonlySet<string> | null;
  agentId: string | null;
  /** Null = every tool. */
  tools: ToolMatcher | null;
  expiresAtMs: number | null;
}

/**
 * Who authenticated on the internal API: a HUB_SERVICE_SECRETS secret (unrestricted) or a scoped service key.
 * A secret is named by `fingerprint`: the first 12 hex digits of its SHA-256 (`printf %s "$SECRET" | sha256sum`),
 * which tells an operator which configured secret made a call without revealing anything usable of it.
 */
export type ServicePrincipal = { kind: 'secret'; fingerprint: string } | { kind: 'key'; key: ActiveKey };

/** The principal as receipts and limits name it: `key:<service key id>` or `secret:<fingerprint>`. */
export const principalName = (p: ServicePrincipal): string => (p.kind === 'key' ? `key:${p.key.id}` : `secret:${p.fingerprint}`);

/** Whether the principal may act for this customer at all (a secret: anyone; a key: its customers). */
export const mayActFor = (p: ServicePrincipal | undefined, customerId: string): boolean =>
  p === undefined || p.kind === 'secret' || p.key.customerIds === null || p.key.customerIds.has(customerId);

export interface ServiceKeys {
  /** The usable key with this digest (hex); undefined when unknown or revoked. Throws when it cannot be read at all. */
  find(digestHex: string): ActiveKey | undefined | Promise<ActiveKey | undefined>;
  /** Notes a use (in memory; written with the next flush). */
  used(id: string): void;
  /** The latest use this replica saw but has not written yet. */
  pendingUse(id: string): number | undefined;
  /** Re-reads every usable key now (a key was created or revoked, here or on another replica). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

const MISS_RELOAD_INTERVAL_MS = 1_000;
const LAST_USED_FLUSH_MS = 60_000;

const toActive = (r: ServiceKeyRecord): ActiveKey => ({
  id: r.id,
  name: r.name,
  customerIds: r.customerIds === null ? null : new Set(r.customerIds),
  agentId: r.agentId,
  tools: r.tools === null ? null : toolMatcher(r.tools),
  expiresAtMs: r.expiresAt === null ? null : r.expiresAt.getTime(),
});

export function createServiceKeys(deps: { store: ServiceKeyStore; ttlMs: number; logger: Logger; now?: () => number }): ServiceKeys {
  const now = deps.now ?? Date.now;
  let byDigest: Map<string, ActiveKey> | undefined;
  let loadedAt = -Infinity;
  let lastMissReload = -Infinity;
  let loading: Promise<void> | undefined;
  let uses = new Map<string, number>();

  const load = () =>
    (loading ??= (async () => {
      try {
        const started = now();
        const rows = await deps.store.loadUsable();
        byDigest = new Map(rows.map((r) => [r.digest.toString('hex'), toActive(r.record)]));
        loadedAt = started;
      } finally {
        loading = undefined;
      }
    })());
  const backgroundLoad = () => void load().catch((err: unknown) => deps.logger.warn({ err }, 'service keys: re-reading failed; keeping the keys in memory'));

  const flush = async () => {
    if (uses.size === 0) return;
    const batch = uses;
    uses = new Map();
    try {
      await deps.store.recordUse(batch);
    } catch (err) {
      for (const [id, t] of batch) if (!((uses.get(id) ?? 0) > t)) uses.set(id, t); // try again next time
      deps.logger.warn({ err }, 'service keys: could not record last use; will retry');
    }
  };
  const timer = setInterval(() => void flush(), LAST_USED_FLUSH_MS);
  timer.unref();

  const lookupAfterLoad = async (digestHex: string) => {
    await load();
    return byDigest!.get(digestHex);
  };

  return {
    find(digestHex) {
      if (byDigest === undefined) return lookupAfterLoad(digestHex);
      const t = now();
      const hit = byDigest.get(digestHex);
      if (t - loadedAt > deps.ttlMs) backgroundLoad();
      if (hit !== undefined || t - lastMissReload < MISS_RELOAD_INTERVAL_MS) return hit;
      lastMissReload = t;
      return lookupAfterLoad(digestHex).catch(() => undefined); // the table could not be read: the copy in memory said no
    },
    used(id) {
      uses.set(id, now());
    },
    pendingUse: (id) => uses.get(id),
    async reload() {
      // A load already running may have read the table before this change: wait for it, then read again.
      if (loading) await loading.catch(() => {});
      await load();
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
