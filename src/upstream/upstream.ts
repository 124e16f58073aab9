import {
  CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
  TimeoutStrategy,
  circuitBreaker,
  handleWhen,
  retry,
  timeout,
} from 'cockatiel';
import type { UpstreamConfig } from '../config';
import { type Result, fail, ok } from '../errors';
import { INTEGRATION_IDS, type IntegrationId } from '../integrations/integrations';
import type { Logger } from '../logger';
import { retryWaitMs } from './backoff';
import { type ClassifiedFailure, DeadlineExceededError, classifyGoogleError, isUpstreamFailure, mayRetry } from './classify';

/**
 * Every call the Hub makes to Google goes through here:
 *
 *   retry (idempotent ops, or requests that never left; full-jitter backoff ∨ Retry-After; within the deadline)
 *     └ circuit breaker (one per integration, per process; 5xx/network/timeouts count, 4xx never)
 *         └ per-attempt timeout (aggressive: the attempt's signal aborts the HTTP request)
 *             └ fn(signal) — one googleapis call with `{ signal, retry: false }`
 *
 * Failures come back as HubError values (classify.ts); anything that is not a Google/transport failure is a bug
 * in `fn` and is re-thrown.
 */

export interface UpstreamOp {
  integration: IntegrationId;
  /** Discovery method id, e.g. 'calendar.events.insert' — for logs and errors. */
  operation: string;
  /** Safe to repeat: reads, deletes, patches, inserts with a client-supplied id. Gmail send is NOT. */
  idempotent: boolean;
}

export interface CallOptions {
  /** Aborts when the whole tool call's deadline passes. */
  deadline: AbortSignal;
  /** Called once per HTTP attempt actually made (metadata.api_calls). */
  onAttempt?: () => void;
}

export type CircuitStateName = 'closed' | 'open' | 'half_open';

export interface Upstream {
  /**
   * Runs `fn` (one googleapis call; it must pass `signal` through as the request's `signal` and set
   * `retry: false`) under timeout/retry/breaker; maps failures to HubError values.
   */
  call<T>(op: UpstreamOp, fn: (signal: AbortSignal) => Promise<T>, options: CallOptions): Promise<Result<T>>;
  /** Circuit state per integration, for readiness/metrics: 'closed' | 'open' | 'half_open'. */
  circuits(): Record<string, CircuitStateName>;
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

const stateName = (state: CircuitState): CircuitStateName =>
  state === CircuitState.Closed ? 'closed' : state === CircuitState.HalfOpen ? 'half_open' : 'open';

interface Circuit {
  policy: CircuitBreakerPolicy;
  /** clock.now() when it last opened. */
  openedAt: number;
}

const systemClock: Clock = { now: () => Date.now() };

export function createUpstream(config: UpstreamConfig, logger: Logger, clock: Clock = systemClock): Upstream {
  const attemptTimeout = timeout(config.attemptTimeoutMs, TimeoutStrategy.Aggressive);
  const circuits = new Map<string, Circuit>();

  const circuitFor = (integration: string): Circuit => {
    const existing = circuits.get(integration);
    if (existing) return existing;
    const policy = circuitBreaker(handleWhen(isUpstreamFailure), {
      halfOpenAfter: config.breakerHalfOpenMs,
      breaker: new ConsecutiveBreaker(config.breakerFailures),
    });
    const circuit: Circuit = { policy, openedAt: 0 };
    policy.onStateChange((state) => {
      if (state === CircuitState.Open || state === CircuitState.Isolated) circuit.openedAt = clock.now();
      const fields = { integration, state: stateName(state) };
      if (state === CircuitState.Closed) logger.info(fields, 'circuit breaker state changed');
      else logger.warn(fields, 'circuit breaker state changed');
    });
    circuits.set(integration, circuit);
    return circuit;
  };
  for (const id of INTEGRATION_IDS) circuitFor(id);

  const openForMs = (circuit: Circuit): number =>
    circuit.policy.state === CircuitState.Open ? Math.max(0, circuit.openedAt + config.breakerHalfOpenMs - clock.now()) : 0;

  return {
    circuits() {
      const out: Record<string, CircuitStateName> = {};
      for (const [id, circuit] of circuits) out[id] = stateName(circuit.policy.state);
      return out;
    },

    async call<T>(op: UpstreamOp, fn: (signal: AbortSignal) => Promise<T>, options: CallOptions): Promise<Result<T>> {
      const start = clock.now();
      const known = knownDeadlines.get(options.deadline);
      const budgetMs = Math.min(config.toolDeadlineMs, known === undefined ? Infinity : known - Date.now());
      const deadlineAt = start + budgetMs;
      // The caller's signal, or our own budget when the caller's fires later (or we cannot tell when).
      const deadline = AbortSignal.any([options.deadline, AbortSignal.timeout(Math.max(0, Math.floor(budgetMs)))]);
      const circuit = circuitFor(op.integration);
      const classify = (err: unknown, fallbackRetryAfterMs?: number): ClassifiedFailure | undefined =>
        classifyGoogleError(err, {
          operation: op.operation,
          integration: op.integration,
          now: clock.now(),
          circuitOpenForMs: openForMs(circuit),
          ...(fallbackRetryAfterMs !== undefined ? { fallbackRetryAfterMs } : {}),
        });

      let tries = 0; // runs of the retry loop (an attempt may stop at the breaker or the deadline)
      let attempts = 0; // HTTP attempts made

      // One draw per failure: the retry decision and cockatiel's backoff must agree on the wait.
      const waits = new WeakMap<object, number>();
      const waitAfter = (err: unknown, retryIndex: number): number => {
        const key = typeof err === 'object' && err !== null ? err : undefined;
        const memo = key ? waits.get(key) : undefined;
        if (memo !== undefined) return memo;
        const wait = retryWaitMs(retryIndex, classify(err)?.retryAfterMs, config);
        if (key) waits.set(key, wait);
        return wait;
      };

      const shouldRetry = (err: unknown): boolean => {
        const failure = classify(err);
        if (!failure || !mayRetry(failure, op.idempotent)) return false;
        if (tries > config.maxRetries) return false;
        // This failure opened the circuit: answer with what happened rather than retry into circuit_open.
        if (circuit.policy.state !== CircuitState.Closed && circuit.policy.state !== CircuitState.HalfOpen) return false;
        const wait = waitAfter(err, tries - 1);
        if (deadline.aborted || clock.now() + wait >= deadlineAt) {
          logger.debug({ integration: op.integration, operation: op.operation, attempt: tries, wait_ms: wait, kind: failure.kind }, 'upstream retry would pass the deadline');
          return false;
        }
        logger.debug(
          { integration: op.integration, operation: op.operation, attempt: tries, wait_ms: wait, kind: failure.kind, ...(failure.status ? { status: failure.status } : {}) },
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

      const policy = retry(handleWhen(shouldRetry), { maxAttempts: config.maxRetries, backoff });
      try {
        const value = await policy.execute(() => {
          tries++;
          if (deadline.aborted || clock.now() >= deadlineAt) throw new DeadlineExceededError();
          return circuit.policy.execute(
            () =>
              attemptTimeout.execute((_context, signal) => {
                attempts++;
                options.onAttempt?.();
                return fn(signal);
              }, deadline),
            deadline,
          );
        }, deadline);
        return ok(value);
      } catch (err) {
        const failure = classify(err, typeof err === 'object' && err !== null ? waitAfter(err, Math.max(0, tries - 1)) : undefined);
        if (!failure) throw err;
        const error = failure.error;
        if (!op.idempotent && attempts > 0 && (failure.kind === 'network' || failure.kind === 'timeout') && failure.retryWhen !== 'always') {
          // The request may have reached Google (an email may be on its way): repeating it could do it twice.
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
    },
  };
}
