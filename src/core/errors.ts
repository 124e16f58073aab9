/**
 * The closed set of error codes the Hub answers with, their HTTP statuses, and the value type that carries an
 * expected failure. Expected failures (not connected, token revoked, upstream rate limit…) travel as `HubError`
 * values; exceptions are reserved for bugs and become INTERNAL_ERROR in the one error handler.
 */

export const ERROR_CODES = [
  // the contract's six
  'INTEGRATION_NOT_CONNECTED',
  'INTEGRATION_EXPIRED',
  'INTEGRATION_PERMISSION_DENIED',
  'TOOL_NOT_FOUND',
  'EXTERNAL_API_ERROR',
  'RATE_LIMITED',
  // the Hub's additions
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  /** A rule of the Hub's own refused the call (the policy guard, blocked tool versions). */
  'POLICY_DENIED',
  'RESOURCE_NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'PRECONDITION_FAILED',
  'PRECONDITION_REQUIRED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function codeToStatus(code: ErrorCode): number {
  switch (code) {
    case 'INTEGRATION_NOT_CONNECTED':
    case 'VALIDATION_ERROR':
      return 400;
    case 'INTEGRATION_EXPIRED':
    case 'UNAUTHORIZED':
      return 401;
    case 'INTEGRATION_PERMISSION_DENIED':
    case 'FORBIDDEN':
    case 'POLICY_DENIED':
      return 403;
    case 'TOOL_NOT_FOUND':
    case 'RESOURCE_NOT_FOUND':
      return 404;
    case 'CONFLICT':
      return 409;
    case 'PRECONDITION_FAILED':
      return 412;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'PRECONDITION_REQUIRED':
      return 428;
    case 'RATE_LIMITED':
      return 429;
    case 'INTERNAL_ERROR':
      return 500;
    case 'EXTERNAL_API_ERROR':
      return 502;
    case 'SERVICE_UNAVAILABLE':
      return 503;
    default: {
      const unreachable: never = code;
      throw new Error(`unknown error code ${String(unreachable)}`);
    }
  }
}

/**
 * Whether repeating the same request may succeed, when the failure itself does not say otherwise.
 * EXTERNAL_API_ERROR and CONFLICT depend on the case and are set by whoever raises them.
 */
export function defaultRetryable(code: ErrorCode): boolean {
  switch (code) {
    case 'RATE_LIMITED':
    case 'SERVICE_UNAVAILABLE':
    case 'EXTERNAL_API_ERROR':
      return true;
    case 'INTEGRATION_NOT_CONNECTED':
    case 'INTEGRATION_EXPIRED':
    case 'INTEGRATION_PERMISSION_DENIED':
    case 'TOOL_NOT_FOUND':
    case 'VALIDATION_ERROR':
    case 'UNAUTHORIZED':
    case 'FORBIDDEN':
    case 'POLICY_DENIED':
    case 'RESOURCE_NOT_FOUND':
    case 'CONFLICT':
    case 'PAYLOAD_TOO_LARGE':
    case 'INTERNAL_ERROR':
    case 'PRECONDITION_FAILED':
    case 'PRECONDITION_REQUIRED':
      return false;
    default: {
      const unreachable: never = code;
      throw new Error(`unknown error code ${String(unreachable)}`);
    }
  }
}

export interface HubError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  retryable: boolean;
  /** Seconds the caller should wait before retrying; also sent as the Retry-After header. */
  retryAfterS?: number;
  /** Extra response headers (rate-limit policy headers on RATE_LIMITED). */
  headers?: Record<string, string>;
}

export function hubError(
  code: ErrorCode,
  message: string,
  options: { details?: Record<string, unknown>; retryable?: boolean; retryAfterS?: number; headers?: Record<string, string> } = {},
): HubError {
  const error: HubError = { code, message, retryable: options.retryable ?? defaultRetryable(code) };
  if (options.details !== undefined) error.details = options.details;
  if (options.retryAfterS !== undefined) error.retryAfterS = Math.max(0, Math.ceil(options.retryAfterS));
  if (options.headers !== undefined) error.headers = options.headers;
  return error;
}

export type Result<T, E = HubError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const fail = (error: HubError): { ok: false; error: HubError } => ({ ok: false, error });

/** Carries a HubError through Express' `next(err)` to the error handler (middleware cannot return values). */
export class HubFailure extends Error {
  constructor(readonly error: HubError) {
    super(error.message);
    this.name = 'HubFailure';
  }
}
