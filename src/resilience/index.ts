export { type AccountGuard, type GuardSettings, type Tenant, createAccountGuard } from './account-guard';
export { type BackoffSettings, RATE_LIMIT_MIN_WAIT_MS, backoffCeilingMs, jitteredBackoffMs, rateLimitWaitMs, retryWaitMs } from './backoff';
export { type Breakers, type CallOutcome, type CircuitScope, type CircuitStateName, createBreakers } from './breakers';
export {
  type ClassifiedFailure,
  type ClassifyOptions,
  DeadlineExceededError,
  type FailureKind,
  NEVER_SENT_CODES,
  RefusedLocally,
  type RetryWhen,
  errorCode,
  mayRetry,
  retryAfterSeconds,
} from './failures';
export { type CallOptions, type Clock, type Upstream, type UpstreamDeps, type UpstreamOp, createResilience, deadlineSignal } from './resilient-call';
export type { AccountBudget, AccountLimits, VendorProfile } from './vendor-profile';
