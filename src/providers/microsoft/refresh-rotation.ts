import type { RefreshOutcome } from '../../core/provider';
import { hubError } from '../../core/errors';

/**
 * The rule a connection store must follow with a vendor that rotates refresh tokens, as Microsoft does
 * (learn.microsoft.com/entra/identity-platform/refresh-tokens: "Refresh tokens replace themselves with a fresh token
 * upon every use"; "The Microsoft identity platform doesn't revoke old refresh tokens when used … you're expected to
 * discard the old refresh token"). Vendor-neutral in shape — nothing here is Microsoft's but the reasons:
 *
 * 1. Atomic: the rotated refresh token is written in the same statement as the access token it came with, and only
 *    while the row is the one the refresh started from (a version compare-and-set). A lost write of the refresh
 *    token alone would keep the old one, whose 90 days of inactivity count from *its* issue however often it is
 *    used (grant-lifetime.ts); a write over a newer row (a reconnect, another replica's refresh) would put back
 *    an older grant.
 * 2. Single-flight per credential across replicas: one refresh at a time, by a lock keyed by the credential; whoever
 *    gets the lock re-reads the row first and refreshes only if nobody has meanwhile; whoever does not waits for
 *    what the holder writes. With Microsoft two refreshes of the same token both succeed (the old one is not
 *    revoked, so a duplicate is harmless when the lock service is down), but each one costs a request against the
 *    tenant's budget (AADSTS90055 TenantThrottlingError, 50196 LoopDetected) and its token is dropped by rule 1.
 * 3. The grant's inactivity clock restarts only when a new refresh token is stored: an answer without one (or with
 *    the same one) leaves the held token — and its deadline — as they were.
 *
 * src/integrations/token-refresh.ts implements 1 and 2 for every provider (token_version, the Redis refresh lock);
 * `createRotatingRefresh` below is the rule in its smallest runnable form, which the tests hold against the sandbox.
 */

/** What the store holds for one credential. `version` changes with every write of its tokens. */
export interface HeldGrant {
  refreshToken: string | null;
  version: number;
}

export type Refreshed = Extract<RefreshOutcome, { kind: 'refreshed' }>;

/** One write: both tokens together, only `ifVersion`. */
export interface RotationWrite {
  accessToken: string;
  expiresAt: Date | null;
  /** The refresh token to hold from now on: the rotated one, or the held one when the vendor sent none. */
  refreshToken: string | null;
  /** A new refresh token came: the grant's inactivity clock restarts (rule 3). */
  rotated: boolean;
  scopes?: string[];
  ifVersion: number;
}

export function rotationWrite(held: HeldGrant, outcome: Refreshed): RotationWrite {
  const rotated = outcome.refreshToken !== undefined && outcome.refreshToken !== held.refreshToken;
  return {
    accessToken: outcome.accessToken,
    expiresAt: outcome.expiresAt,
    refreshToken: rotated ? outcome.refreshToken! : held.refreshToken,
    rotated,
    ...(outcome.scopes ? { scopes: outcome.scopes } : {}),
    ifVersion: held.version,
  };
}

/** Shaped like src/integrations/refresh-lock.ts's RefreshLock, so either fits. */
export interface RotationLock {
  acquire(key: string, ttlMs: number): Promise<{ state: 'acquired'; release(): Promise<void> } | { state: 'held' } | { state: 'unavailable'; err: unknown }>;
}

export interface RotationDeps {
  /** The credential's grant now, or null when it is gone. */
  read(): Promise<HeldGrant | null>;
  /** Writes both tokens in one statement while the version is `ifVersion`; false when the row moved on. */
  write(w: RotationWrite): Promise<boolean>;
  lock: RotationLock;
  lockKey: string;
  lockTtlMs: number;
  /** The vendor's refresh_token grant (createMicrosoftRefresh). */
  refresh(refreshToken: string, signal: AbortSignal): Promise<RefreshOutcome>;
  /** Between looks at the row while another replica holds the lock. */
  pollMs?: number;
}

export type RotationResult =
  { kind: 'written'; write: RotationWrite } | { kind: 'someone_else'; held: HeldGrant } | Exclude<RefreshOutcome, Refreshed> | { kind: 'gone' };

/**
 * One per credential and process: refreshes the credential once per `seen` version, across replicas (the lock) and
 * within the process (callers meanwhile share one flight, which runs under the first caller's signal — token-refresh.ts
 * instead bounds a shared flight by the tool deadline and lets each caller stop waiting on its own signal).
 */
export function createRotatingRefresh(deps: RotationDeps): (seen: HeldGrant, signal: AbortSignal) => Promise<RotationResult> {
  let inflight: Promise<RotationResult> | undefined;
  const pollMs = deps.pollMs ?? 25;

  async function once(seen: HeldGrant, signal: AbortSignal): Promise<RotationResult> {
    const attempt = await deps.lock.acquire(deps.lockKey, deps.lockTtlMs);
    if (attempt.state === 'held') {
      // Another replica refreshes: wait for its write (or for the lock to fall free, then go on ourselves).
      while (!signal.aborted) {
        const now = await deps.read();
        if (now === null) return { kind: 'gone' };
        if (now.version !== seen.version) return { kind: 'someone_else', held: now };
        await new Promise((r) => setTimeout(r, pollMs));
        const again = await deps.lock.acquire(deps.lockKey, deps.lockTtlMs);
        if (again.state !== 'held') return underLock(seen, signal, again.state === 'acquired' ? again.release : undefined);
      }
      return {
        kind: 'failed',
        misconfigured: false,
        error: hubError('EXTERNAL_API_ERROR', 'The access token could not be refreshed before the deadline; retry shortly', {
          retryable: true,
          details: { reason: 'timeout' },
        }),
      };
    }
    // 'unavailable': without the lock a duplicate refresh is harmless with Microsoft; the version check still decides.
    return underLock(seen, signal, attempt.state === 'acquired' ? attempt.release : undefined);
  }

  async function underLock(seen: HeldGrant, signal: AbortSignal, release: (() => Promise<void>) | undefined): Promise<RotationResult> {
    try {
      const current = await deps.read();
      if (current === null) return { kind: 'gone' };
      if (current.version !== seen.version) return { kind: 'someone_else', held: current };
      if (current.refreshToken === null) return { kind: 'invalid_grant', cause: 'invalid_grant', description: 'no refresh token stored' };
      const outcome = await deps.refresh(current.refreshToken, signal);
      if (outcome.kind !== 'refreshed') return outcome;
      const write = rotationWrite(current, outcome);
      if (await deps.write(write)) return { kind: 'written', write };
      const now = await deps.read();
      return now === null ? { kind: 'gone' } : { kind: 'someone_else', held: now };
    } finally {
      await release?.();
    }
  }

  return (seen, signal) => {
    inflight ??= once(seen, signal).finally(() => {
      inflight = undefined;
    });
    return inflight;
  };
}
