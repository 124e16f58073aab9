export { type AccountGuard, type Tenant, createAccountGuard } from './account-guard';
export { type BackoffSettings, RATE_LIMIT_MIN_WAIT_MS, backoffCeilingMs, jitteredBackoffMs, rateLimitWaitMs, retryWaitMs } from './backoff';
export { type Breakers, type CallOutcome, type CircuitScope, type CircuitStateName, createBreakers } from './breakers';
export {
  type ClassifiedFailure,
  type ClassifyOptions,
  DeadlineExceededError,
  type FailureKind,
  NEVER_SENT_CODES,
  RATE_LIMIT_REASONS,
  RefusedLocally,
  type RetryWhen,
  classifyGoogleError,
  errorCode,
  isUpstreamFailure,
  mayRetry,
  retryAfterFromMessage,
  retryAfterSeconds,
  safeGoogleMessage,
} from './classify';
export { type CallOptions, type Clock, type Upstream, type UpstreamDeps, type UpstreamOp, createUpstream, deadlineSignal } from './upstream';
