export { type BackoffSettings, backoffCeilingMs, jitteredBackoffMs, retryWaitMs } from './backoff';
export {
  type ClassifiedFailure,
  type ClassifyOptions,
  DeadlineExceededError,
  type FailureKind,
  NEVER_SENT_CODES,
  RATE_LIMIT_REASONS,
  type RetryWhen,
  classifyGoogleError,
  errorCode,
  isUpstreamFailure,
  mayRetry,
  retryAfterSeconds,
  safeGoogleMessage,
} from './classify';
export { type CallOptions, type CircuitStateName, type Clock, type Upstream, type UpstreamOp, createUpstream, deadlineSignal } from './upstream';
