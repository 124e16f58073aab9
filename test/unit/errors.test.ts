import { ERROR_CODES, codeToStatus, defaultRetryable, hubError } from '../../src/core/errors';

describe('error codes', () => {
  it('when each code is mapped, then it has the status the contract and the Hub document', () => {
    const table = Object.fromEntries(ERROR_CODES.map((c) => [c, codeToStatus(c)]));
    expect(table).toEqual({
      INTEGRATION_NOT_CONNECTED: 400,
      INTEGRATION_EXPIRED: 401,
      INTEGRATION_PERMISSION_DENIED: 403,
      TOOL_NOT_FOUND: 404,
      EXTERNAL_API_ERROR: 502,
      RATE_LIMITED: 429,
      VALIDATION_ERROR: 400,
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      POLICY_DENIED: 403,
      RESOURCE_NOT_FOUND: 404,
      CONFLICT: 409,
      PAYLOAD_TOO_LARGE: 413,
      INTERNAL_ERROR: 500,
      SERVICE_UNAVAILABLE: 503,
      PRECONDITION_FAILED: 412,
      PRECONDITION_REQUIRED: 428,
    });
  });

  it('when a code is not in the closed set, then mapping it throws instead of guessing', () => {
    expect(() => codeToStatus('NOPE' as never)).toThrow('unknown error code');
    expect(() => defaultRetryable('NOPE' as never)).toThrow('unknown error code');
  });

  it('when an error is built, then retryable defaults by code and retry_after is whole seconds', () => {
    expect(hubError('RATE_LIMITED', 'x').retryable).toBe(true);
    expect(hubError('VALIDATION_ERROR', 'x').retryable).toBe(false);
    expect(hubError('FORBIDDEN', 'x').retryable).toBe(false);
    expect(hubError('POLICY_DENIED', 'x').retryable).toBe(false);
    expect(hubError('CONFLICT', 'x', { retryable: true }).retryable).toBe(true);
    expect(hubError('RATE_LIMITED', 'x', { retryAfterS: 1.2 }).retryAfterS).toBe(2);
    expect(hubError('RATE_LIMITED', 'x', { retryAfterS: -3 }).retryAfterS).toBe(0);
    expect(hubError('INTERNAL_ERROR', 'x')).not.toHaveProperty('details');
  });
});
