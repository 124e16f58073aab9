import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Config, TokenLifecycleConfig } from '../config';
import { type HubError, type Result, fail, hubError, ok } from '../core/errors';
import type { Logger } from '../logger';
import type { CredentialRecord, CredentialStore } from '../store/credential-store';
import { storeUnavailable } from './store-unavailable';
import { type GrantPolicy, grantExpiredError, grantPolicyFor, refusalReason } from './grant-health';
import { INTEGRATIONS } from './catalog';
import { type RefreshLock, createRedisRefreshLock, localRefreshLock } from './refresh-lock';
import type { RefreshOutcome } from '../core/provider';
import type { IntegrationId } from '../core/integrations';
import type { ConnectingRegistry } from '../providers/connecting';
import { type HubMetrics, noMetrics } from '../observability/metrics';
import { type Tracing, spanOutcome, tracingOff } from '../observability/tracing';
import { type ConnectionEvent, type OnConnectionEvent, recordWith } from '../audit/connection-events';

/**
 * Keeps a credential's access token usable: refreshes it with its provider's `ProviderOAuth.refresh` when it expires
 * within the skew (or when the vendor rejected it: `force`) and persists the result before anyone uses it. A vendor
 * that rotates refresh tokens (Microsoft) gets the new one stored in the same write as its access token, only over
 * the row the refresh started from (token_version) — the rule of src/providers/microsoft/refresh-rotation.ts.
 *
 * One refresh per credential at a time: concurrent callers in this process share one in-flight promise; across
 * replicas the lock decides, and a replica that loses polls the row until the winner has persisted, then uses
 * that. Whoever refreshes re-reads the row first — another replica may have done it already. If the lock
 * service is down the refresh goes ahead without it (a duplicate refresh is harmless with Google and Microsoft alike: neither revokes the used token).
 * "Someone refreshed meanwhile" is told by the row's token_version, never by its sealed blobs: a key rotation
 * re-seals the same tokens, and taking that for a refresh would hand a token the vendor just rejected back to the
 * caller as if it were new.
 * Expected failures come back as values: INTEGRATION_EXPIRED (invalid_grant: the row is marked expired, with
 * the reason the vendor gave — re-authentication required, blocked by an administrator, password changed, account disabled — INTEGRATION_PERMISSION_DENIED where consent was withdrawn, or the deadline passed),
 * EXTERNAL_API_ERROR (the vendor down: retryable, the row untouched; the Hub misconfigured: not retryable),
 * INTEGRATION_NOT_CONNECTED (disconnected meanwhile), SERVICE_UNAVAILABLE (the store is down).
 */

export interface Refreshed {
  record: CredentialRecord;
  /** The new access token, when this process just received it (no need to unseal it again). */
  accessToken?: string;
}

export interface TokenRefresher {
  /** True when the access token is missing or expires within the skew. */
  needsRefresh(record: CredentialRecord): boolean;
  /** `force`: refresh even though the token looks valid, unless the row already holds a newer one. */
  refresh(
    record: CredentialRecord,
    options: {
      force: boolean;
      signal: AbortSignal /** Told when this caller's refresh sends a request to the vendor (api_calls); not for a joined flight. */;
      onRequest?: () => void;
    },
  ): Promise<Result<Refreshed>>;
}

/** One refresh_token grant at the vendor's token endpoint. */
export type TokenEndpoint = (refreshToken: string, signal: AbortSignal) => Promise<RefreshOutcome>;

export interface TokenRefresherDeps {
  store: CredentialStore;
  /** The token endpoint of the integration's provider. */
  endpointFor: (integration: IntegrationId) => TokenEndpoint;
  lock: RefreshLock;
  logger: Logger;
  tokens: Pick<TokenLifecycleConfig, 'refreshSkewS' | 'refreshLockTtlMs'>;
  /** What the Hub knows of Google's rules for its grants (Testing mode), to say why one ended. */
  grants: GrantPolicy;
  /** The longest one shared refresh may take, waits included (the tool deadline: no caller waits longer). */
  budgetMs: number;
  /** Refreshes sent to the vendor, by result. */
  metrics?: HubMetrics;
  /** Spans: the refresh, and the wait for another replica's (the cross-replica lock). */
  tracing?: Tracing;
  /** Told when a vendor's refusal expired a connection (audit trail, webhooks); must not block. */
  onConnectionEvent?: OnConnectionEvent;
}

const POLL_FIRST_MS = 25;
/** A token with less than this left is not worth a vendor call: it could expire in flight. */
const STILL_USABLE_MS = 30_000;
const POLL_MAX_MS = 250;

const expired = (record: CredentialRecord): HubError => grantExpiredError(record.integration, record.expiryReason);
const disconnected = (record: CredentialRecord): HubError =>
  hubError('INTEGRATION_NOT_CONNECTED', `${INTEGRATIONS[record.integration].displayName} was disconnected while this call ran`);
const tooSlow = (): HubError =>
  hubError('EXTERNAL_API_ERROR', 'The access token could not be refreshed before the deadline; retry shortly', {
    retryable: true,
    details: { reason: 'timeout' },
  });

/** Resolves with `promise`, or with a timeout failure as soon as `signal` aborts (the promise runs on for others). */
function untilAborted<T>(promise: Promise<Result<T>>, signal: AbortSignal): Promise<Result<T>> {
  if (signal.aborted) return Promise.resolve(fail(tooSlow()));
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(fail(tooSlow()));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

export function createTokenRefresher(deps: TokenRefresherDeps): TokenRefresher {
  const { store, endpointFor, lock, logger, tokens } = deps;
  const inflight = new Map<string, Promise<Result<Refreshed>>>();
  const metrics = deps.metrics ?? noMetrics;
  const tracing = deps.tracing ?? tracingOff;

  const needsRefresh = (record: CredentialRecord) =>
    record.sealed.access === null || (record.tokenExpiresAt !== null && record.tokenExpiresAt.getTime() - Date.now() <= tokens.refreshSkewS * 1000);

  /** What the row says now, if that settles the question without a refresh; undefined = refresh it. */
  const settle = (row: CredentialRecord | null, seen: CredentialRecord, force: boolean): Result<Refreshed> | undefined => {
    if (row === null) return fail(disconnected(seen));
    if (row.status !== 'connected') return fail(expired(row));
    if (needsRefresh(row)) return undefined;
    // Forced (the vendor rejected the token in hand): only a newer token — a higher version — settles it.
    if (!force || row.tokenVersion !== seen.tokenVersion) return ok({ record: row });
    return undefined;
  };

  async function persist(current: CredentialRecord, outcome: Extract<RefreshOutcome, { kind: 'refreshed' }>): Promise<Result<Refreshed>> {
    const { accessToken, expiresAt, refreshToken, scopes, refreshTokenExpiresAt } = outcome;
    const saved = await store.updateTokens(current, {
      accessToken,
      expiresAt,
      ...(refreshToken ? { refreshToken } : {}),
      ...(scopes ? { scopes } : {}),
      ...(refreshTokenExpiresAt ? { refreshTokenExpiresAt } : {}),
    });
    if (saved) {
      logger.info(
        { credential_id: saved.id, integration: saved.integration, rotated: refreshToken !== undefined, expires_at: saved.tokenExpiresAt },
        'access token refreshed',
      );
      return ok({ record: saved, accessToken });
    }
    // A reconnect, a disconnect or another refresh wrote the tokens meanwhile: it wins, this refresh's tokens are
    // dropped. (A key rotation does not get here: it leaves token_version alone.)
    const row = await store.getById(current.id);
    logger.info({ credential_id: current.id }, 'the connection changed during a refresh; keeping what was written');
    return settle(row, current, false) ?? ok({ record: row! });
  }

  /** Holding the lock (or going without it): re-read, and refresh only if nobody has meanwhile. */
  async function refreshNow(seen: CredentialRecord, force: boolean, signal: AbortSignal, onRequest?: () => void): Promise<Result<Refreshed>> {
    const current = await store.getById(seen.id);
    const settled = settle(current, seen, force);
    if (settled || current === null) return settled!;
    const used = store.openTokens(current).refreshToken;
    if (used !== null) onRequest?.();
    const outcome: RefreshOutcome =
      used === null
        ? { kind: 'invalid_grant', cause: 'invalid_grant', description: 'no refresh token stored' }
        : await endpointFor(current.integration)(used, signal);
    if (used !== null)
      metrics.tokenRefresh(outcome.kind === 'refreshed' ? 'ok' : outcome.kind === 'invalid_grant' ? 'invalid_grant' : 'transient', current.integration);
    switch (outcome.kind) {
      case 'refreshed':
        return persist(current, outcome);
      case 'invalid_grant': {
        const reason = refusalReason(current, outcome.cause, deps.grants);
        const event: ConnectionEvent = {
          kind: 'expired',
          customerId: current.customerId,
          userId: current.userId,
          integration: current.integration,
          accountEmail: current.accountEmail,
          actor: null,
          details: { reason, cause: outcome.cause },
        };
        if (!(await store.markExpired(current.id, outcome.description, current, reason, recordWith(deps.onConnectionEvent, event)))) {
          return settle(await store.getById(current.id), current, false) ?? fail(expired(current)); // a reconnect won
        }
        logger.warn(
          { credential_id: current.id, integration: current.integration, reason, vendor_error: outcome.description },
          'the vendor refused the refresh token; connection marked expired',
        );
        deps.onConnectionEvent?.(event);
        return fail(grantExpiredError(current.integration, reason));
      }
      case 'failed':
        if (outcome.misconfigured) {
          logger.error(
            { credential_id: current.id, integration: current.integration, details: outcome.error.details },
            'the vendor refused the Hub’s OAuth client while refreshing a token; check its client id and secret',
          );
          return fail(outcome.error);
        }
        // The token endpoint is down, but the token in hand is still valid for a while (refreshing early is
        // a courtesy, not a need): ride out the outage with it. Only a token that is gone or rejected fails.
        if (!force && current.sealed.access !== null && current.tokenExpiresAt !== null && current.tokenExpiresAt.getTime() - Date.now() > STILL_USABLE_MS) {
          logger.warn(
            { credential_id: current.id, integration: current.integration, details: outcome.error.details, expires_at: current.tokenExpiresAt },
            'access token refresh failed; using the current token until it expires',
          );
          return ok({ record: current });
        }
        logger.warn(
          { credential_id: current.id, integration: current.integration, details: outcome.error.details },
          'access token refresh failed; the connection is kept',
        );
        return fail(outcome.error);
    }
  }

  async function run(seen: CredentialRecord, force: boolean, signal: AbortSignal, onRequest?: () => void): Promise<Result<Refreshed>> {
    const key = `hub:refresh-lock:${seen.id}`;
    for (let wait = POLL_FIRST_MS; ; wait = Math.min(wait * 2, POLL_MAX_MS)) {
      const attempt = await lock.acquire(key, tokens.refreshLockTtlMs);
      if (attempt.state === 'unavailable') {
        logger.warn({ err: attempt.err, credential_id: seen.id }, 'refresh lock unavailable; refreshing without the cross-replica lock');
        return refreshNow(seen, force, signal, onRequest);
      }
      if (attempt.state === 'acquired') {
        try {
          return await refreshNow(seen, force, signal, onRequest);
        } finally {
          void attempt.release(); // never throws; not awaited, so a slow Redis cannot delay the answer
        }
      }
      // Another replica is refreshing: give it a moment, then use what it persisted (or try the lock again).
      const settled = await tracing.inSpan('hub.token_refresh.lock_wait', async () => {
        try {
          await sleep(wait, undefined, { signal });
        } catch {
          return fail(tooSlow());
        }
        return settle(await store.getById(seen.id), seen, force);
      });
      if (settled) return settled;
    }
  }

  return {
    needsRefresh,
    refresh(record, { force, signal, onRequest }) {
      let flight = inflight.get(record.id);
      if (!flight) {
        flight = tracing
          .inSpan('hub.token_refresh', async (span) => {
            span?.setAttributes({ 'hub.integration': record.integration, 'hub.refresh.forced': force });
            const result = await run(record, force, AbortSignal.timeout(deps.budgetMs), onRequest);
            spanOutcome(span, result);
            return result;
          })
          .catch((err: unknown) => fail(storeUnavailable(err, logger)))
          .finally(() => inflight.delete(record.id));
        inflight.set(record.id, flight);
      }
      return untilAborted(flight, signal);
    },
  };
}

/** As the app wires it: each provider's refresh from the connecting registry; a Redis lock when replicas share Redis. */
export function tokenRefresherFor(
  config: Pick<Config, 'google' | 'tokens' | 'upstream'>,
  connecting: ConnectingRegistry,
  store: CredentialStore,
  redis: Redis | null,
  logger: Logger,
  telemetry: { metrics?: HubMetrics; tracing?: Tracing } = {},
  onConnectionEvent?: OnConnectionEvent,
): TokenRefresher {
  const lock = redis
    ? createRedisRefreshLock(redis, { onReleaseError: (err) => logger.warn({ err }, 'refresh lock release failed; it expires on its own') })
    : localRefreshLock;
  return createTokenRefresher({
    store,
    endpointFor: (integration) => {
      const { oauth } = connecting.of(INTEGRATIONS[integration].provider);
      return (refreshToken, signal) => oauth.refresh(refreshToken, signal);
    },
    lock,
    logger,
    tokens: config.tokens,
    grants: grantPolicyFor(config.google),
    budgetMs: config.upstream.toolDeadlineMs,
    ...telemetry,
    ...(onConnectionEvent ? { onConnectionEvent } : {}),
  });
}
