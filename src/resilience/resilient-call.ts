import { type IBackoff, type IBackoffFactory, type IRetryBackoffContext, TimeoutStrategy, handleWhen, retry, timeout } from 'cockatiel';
import type { UpstreamConfig } from '../config';
import { type HubError, type Result, fail, hubError, ok } from '../core/errors';
import type { Logger } from '../logger';
import type { SharedRedis } from '../protection/rate-limit';
import { type AccountGuard, type Tenant, createAccountGuard } from './account-guard';
import { rateLimitWaitMs, retryWaitMs } from './backoff';
import { type CallOutcome, type CircuitScope, type CircuitStateName, createBreakers } from './breakers';
import { type ClassifiedFailure, DeadlineExceededError, mayRetry } from './failures';
import type { VendorProfile } from './vendor-profile';
import { type HubMetrics, noMetrics, statusClass } from '../observability/metrics';
import { type Tracing, tracingOff } from '../observability/tracing';

/**
 * Every call the Hub makes to a vendor goes through here, whatever the vendor (its profile says how its failures
 * read and what its limits are — vendor-profile.ts):
 *
 *   circuits (the connection's, then the integration's; a call counts once, whatever its retries did)
 *     └ retry (idempotent ops, or requests that never left; full-jitter backoff ∨ Retry-After, ≥ 1 s after a
 *       rate limit; within the deadline)
 *         └ the account's guard (cool-down, the account's budget and upload budget, per-mailbox in-flight slot)
 *             └ per-attempt timeout (aggressive: the attempt's signal aborts the HTTP request)
 *                 └ fn(signal) — one request to the vendor, which must not retry by itself
 *
 * Failures come back as HubError values (the vendor's classifier); anything that is not a vendor/transport
 * failure is a bug in `fn` and is re-thrown.
 */

export interface UpstreamOp {
  /** The integration the call is for; a vendor profile given to createResilience guards it. */
  integration: string;
  /** The vendor's operation name, e.g. 'calendar.events.insert' — for logs and errors. */
  operation: string;
  /** Safe to repeat: reads, deletes, patches, creates the vendor de-duplicates. A mail send is NOT. */
  idempotent: boolean;
  /** Bytes of the request's body, charged to the account's upload budget before each attempt (VendorOp.uploadBytes). */
  uploadBytes?: number;
}

export interface CallOptions {
  /** Aborts when the whole tool call's deadline passes. */
  deadline: AbortSignal;
  /** Called once per HTTP attempt actually made (metadata.api_calls). */
  onAttempt?: () => void;
  /**
   * The connection and account the call is made for: its own circuit, cool-downs, and the account's budget and
   * in-flight cap where its vendor has them. Without it the call shares one anonymous circuit and is not guarded.
   */
  tenant?: Tenant;
}

export interface Upstream {
  /**
   * Runs `fn` (one request to the vendor; it must pass `signal` through as the request's `signal` and not retry
   * by itself) under timeout/retry/breaker; maps failures to HubError values.
   */
  call<T>(op: UpstreamOp, fn: (signal: AbortSignal) => Promise<T>, options: CallOptions): Promise<Result<T>>;
  /** The integration-wide circuits' states, for readiness/metrics: 'closed' | 'open' | 'half_open'. */
  circuits(): Record<string, CircuitStateName>;
  /** One connection's circuit. */
  connectionCircuit(integration: string, connectionId: string): CircuitStateName;
}

export interface UpstreamDeps {
  clock?: Clock;
  /** Shares the accounts' budgets across replicas (through the Redis breaker); null = this replica only. */
  redis?: SharedRedis | null;
  /** Counts each attempt (operation, status class, duration) and each retry. */
  metrics?: HubMetrics;
  /** A span per attempt (operation, status, attempt number). */
  tracing?: Tracing;
}

export interface Clock {
  now(): number;
}

/** Absolute deadlines (Date.now() based) of the signals made by `deadlineSignal`, so waits can be planned. */
const knownDeadlines = new WeakMap<AbortSignal, number>();

/**
 * A signal that aborts `ms` from now. The layer knows when it will fire, so it stops before a wait that would
 * pass it; for any other signal it plans against `toolDeadlineMs` from the start of the call.
 */
export function deadlineSignal(ms: number): AbortSignal {
  const signal = AbortSignal.timeout(Math.max(0, Math.floor(ms)));
  knownDeadlines.set(signal, Date.now() + ms);
  return signal;
}

/**
 * A signal that aborts `ms` from now as AbortSignal.timeout would (reason: a TimeoutError DOMException), whose
 * timer `dispose` clears: a call that ends early leaves no timer behind to fire later.
 */
function budgetSignal(ms: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), Math.max(0, Math.floor(ms)));
  timer.unref();
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

const systemClock: Clock = { now: () => Date.now() };
const ANONYMOUS = '(none)';

function circuitOpen(vendor: string, op: UpstreamOp, scope: CircuitScope, openForMs: number): HubError {
  const whose = scope === 'connection' ? 'this connection' : 'every connection';
  return hubError('EXTERNAL_API_ERROR', `${vendor} is failing for ${whose}; ${op.operation} was not attempted while the circuit is open`, {
    retryable: true,
    retryAfterS: Math.max(1, Math.ceil(openForMs / 1000)),
    details: { reason: 'circuit_open', scope, integration: op.integration },
  });
}

/** What one answer (or its absence) says about the vendor: 5xx, network errors and timeouts against it; any other answer for it. */
const outcomeOf = (failure: ClassifiedFailure | undefined): CallOutcome => (failure?.upstreamFailure ? 'failure' : 'success');

export function createResilience(config: UpstreamConfig, vendors: readonly VendorProfile[], logger: Logger, deps: UpstreamDeps = {}): Upstream {
  const clock = deps.clock ?? systemClock;
  // No abort on return: once an attempt has returned, the vendor's client has read the whole answer and nothing listens to
  // its signal any more — aborting it only cost a DOMException per call (the timeout and the deadline still abort).
  const attemptTimeout = timeout(config.attemptTimeoutMs, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false });
  const breakers = createBreakers({ ...config.globalBreaker, failures: config.breakerFailures, halfOpenMs: config.breakerHalfOpenMs }, logger, () =>
    clock.now(),
  );
  const guard: AccountGuard = createAccountGuard(
    vendors,
    // An attempt ends at its timeout or the call's deadline, whichever comes first (the aggressive timeout below).
    { replicas: config.replicas, redisTimeoutMs: config.redisTimeoutMs, longestAttemptMs: Math.min(config.attemptTimeoutMs, config.toolDeadlineMs) },
    deps.redis ?? null,
    logger,
    () => clock.now(),
  );
  const byIntegration = new Map(vendors.flatMap((vendor) => vendor.integrations.map((id) => [id, vendor] as const)));
  const metrics = deps.metrics ?? noMetrics;
  const tracing = deps.tracing ?? tracingOff;

  const runCall = async <T>(
    op: UpstreamOp,
    fn: (signal: AbortSignal) => Promise<T>,
    options: CallOptions,
    at: { start: number; deadline: AbortSignal; deadlineAt: number },
  ): Promise<Result<T>> => {
    const { start, deadline, deadlineAt } = at;
    const tenant = options.tenant;
    const vendor = byIntegration.get(op.integration);
    if (!vendor) throw new Error(`no vendor profile guards the integration ${op.integration}`);
    const admission = breakers.admit(op.integration, tenant?.connectionId ?? ANONYMOUS);
    if (!admission.ok) return fail(circuitOpen(vendor.name, op, admission.scope, admission.openForMs));

    const classify = (err: unknown, fallbackRetryAfterMs?: number): ClassifiedFailure | undefined =>
      vendor.classify(err, {
        operation: op.operation,
        integration: op.integration,
        now: clock.now(),
        quotaCooldownMs: vendor.quotaCooldownMs,
        ...(fallbackRetryAfterMs !== undefined ? { fallbackRetryAfterMs } : {}),
      });

    let tries = 0; // runs of the retry loop (an attempt may stop at the guard or the deadline)
    let attempts = 0; // HTTP attempts made
    // What the call tells the circuits: its last attempt's answer — once per call, whatever its retries did.
    // 'none' while no request left (refused locally, deadline passed while waiting for a slot).
    let lastAnswer: CallOutcome = 'none';

    // One draw per failure: the retry decision and cockatiel's backoff must agree on the wait.
    const waits = new WeakMap<object, number>();
    const waitAfter = (err: unknown, retryIndex: number): number => {
      const key = typeof err === 'object' && err !== null ? err : undefined;
      const memo = key ? waits.get(key) : undefined;
      if (memo !== undefined) return memo;
      const failure = classify(err);
      const wait =
        failure?.kind === 'rate_limited' ? rateLimitWaitMs(retryIndex, failure.retryAfterMs, config) : retryWaitMs(retryIndex, failure?.retryAfterMs, config);
      if (key) waits.set(key, wait);
      return wait;
    };

    const shouldRetry = (err: unknown): boolean => {
      const failure = classify(err);
      if (!failure) return false;
      if (tenant) guard.afterFailure(op, tenant, failure);
      if (!mayRetry(failure, op.idempotent) || tries > config.maxRetries) return false;
      const wait = waitAfter(err, tries - 1);
      if (deadline.aborted || clock.now() + wait >= deadlineAt) {
        logger.debug(
          { integration: op.integration, operation: op.operation, attempt: tries, wait_ms: wait, kind: failure.kind },
          'upstream retry would pass the deadline',
        );
        return false;
      }
      metrics.vendorRetry(op.integration, op.operation);
      logger.debug(
        {
          integration: op.integration,
          operation: op.operation,
          attempt: tries,
          wait_ms: wait,
          kind: failure.kind,
          ...(failure.status ? { status: failure.status } : {}),
        },
        'retrying upstream call',
      );
      return true;
    };

    const backoff: IBackoffFactory<IRetryBackoffContext<unknown>> = {
      next(context): IBackoff<IRetryBackoffContext<unknown>> {
        const err = 'error' in context.result ? context.result.error : undefined;
        return { duration: waitAfter(err, context.attempt - 1), next: (c) => backoff.next(c) };
      },
    };

    const attempt = async (): Promise<T> => {
      tries++;
      if (deadline.aborted || clock.now() >= deadlineAt) throw new DeadlineExceededError();
      const release = tenant ? await guard.beforeAttempt(op, tenant, deadline, deadlineAt) : undefined;
      const attemptNumber = tries;
      // One span per HTTP attempt (tracing on); its measured time is the request's alone, not the guard's wait.
      return tracing.inSpan(
        op.operation,
        async (span) => {
          let t0 = 0;
          try {
            const value = await attemptTimeout.execute((_context, signal) => {
              attempts++;
              options.onAttempt?.();
              t0 = performance.now();
              return fn(signal);
            }, deadline);
            lastAnswer = 'success';
            metrics.vendorRequest(op.integration, op.operation, 200, undefined, (performance.now() - t0) / 1000);
            span?.setAttributes({ 'hub.google.status_class': '2xx', 'hub.google.attempt': attemptNumber });
            return value;
          } catch (err) {
            const failure = classify(err);
            lastAnswer = outcomeOf(failure);
            if (t0 > 0) {
              const status = statusClass(failure?.status, failure?.kind);
              metrics.vendorRequest(op.integration, op.operation, failure?.status, failure?.kind, (performance.now() - t0) / 1000);
              span?.setAttributes({
                'hub.google.status_class': status,
                'hub.google.attempt': attemptNumber,
                ...(failure?.status ? { 'http.response.status_code': failure.status } : {}),
              });
            }
            throw err;
          } finally {
            release?.();
          }
        },
        tracing.enabled ? { 'hub.google.operation': op.operation, 'hub.integration': op.integration } : undefined,
      );
    };

    const policy = retry(handleWhen(shouldRetry), { maxAttempts: config.maxRetries, backoff });
    try {
      const value = await policy.execute(attempt, deadline);
      breakers.record(admission.ticket, lastAnswer);
      return ok(value);
    } catch (err) {
      const failure = classify(err, typeof err === 'object' && err !== null ? waitAfter(err, Math.max(0, tries - 1)) : undefined);
      breakers.record(admission.ticket, failure ? lastAnswer : 'none');
      if (!failure) throw err;
      const error = failure.error;
      if (!op.idempotent && attempts > 0 && (failure.kind === 'network' || failure.kind === 'timeout') && failure.retryWhen !== 'always') {
        // The request may have reached the vendor (an email may be on its way): repeating it could do it twice.
        // Not retryable, so the idempotency record keeps this answer and a same-request_id retry replays it.
        error.details = { ...error.details, outcome: 'unknown' };
        error.retryable = false;
        error.message = `${error.message}; the request may have been carried out — check before repeating it with a new request_id`;
      }
      logger.debug(
        { integration: op.integration, operation: op.operation, attempts, duration_ms: clock.now() - start, kind: failure.kind, code: error.code },
        'upstream call failed',
      );
      return fail(error);
    }
  };

  return {
    circuits() {
      const out: Record<string, CircuitStateName> = {};
      for (const vendor of vendors) for (const id of vendor.integrations) out[id] = breakers.state(id);
      return out;
    },
    connectionCircuit: (integration, connectionId) => breakers.connectionState(integration, connectionId),

    async call<T>(op: UpstreamOp, fn: (signal: AbortSignal) => Promise<T>, options: CallOptions): Promise<Result<T>> {
      const start = clock.now();
      const known = knownDeadlines.get(options.deadline);
      const budgetMs = Math.min(config.toolDeadlineMs, known === undefined ? Infinity : known - Date.now());
      const deadlineAt = start + budgetMs;
      // The caller's signal when it fires first (a deadlineSignal within HUB_TOOL_DEADLINE_MS: the usual case, no
      // new signal); otherwise it merged with our own budget, whose timer is cleared when the call ends.
      const own = known !== undefined && known - Date.now() <= config.toolDeadlineMs ? undefined : budgetSignal(budgetMs);
      const deadline = own ? AbortSignal.any([options.deadline, own.signal]) : options.deadline;
      try {
        return await runCall(op, fn, options, { start, deadline, deadlineAt });
      } finally {
        own?.dispose();
      }
    },
  };
}
