/**
 * Google's error bodies, as its APIs send them. Calendar v3 still answers in the legacy shape (no `status`);
 * Gmail v1 and the auth front end add the canonical `status` and, for some errors, typed `details`.
 */

export interface ApiResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type ApiFamily = 'calendar' | 'gmail';

const CANONICAL: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  410: 'NOT_FOUND',
  412: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
};

export interface ErrorItem {
  message: string;
  domain?: string;
  reason: string;
  location?: string;
  locationType?: string;
}

export function googleError(
  code: number,
  message: string,
  item: Omit<ErrorItem, 'message'> & { message?: string },
  options: { family?: ApiFamily; details?: unknown[]; headers?: Record<string, string> } = {},
): ApiResult {
  const withStatus = options.family !== 'calendar';
  const error: Record<string, unknown> = {
    code,
    message,
    errors: [{ message: item.message ?? message, domain: item.domain ?? 'global', ...item }],
  };
  if (withStatus) error.status = CANONICAL[code] ?? 'UNKNOWN';
  if (options.details) error.details = options.details;
  return { status: code, body: { error }, ...(options.headers ? { headers: options.headers } : {}) };
}

const AUTH_REALM = 'Bearer realm="https://accounts.google.com/"';

export const errors = {
  /** No Authorization header at all. */
  loginRequired: () =>
    googleError(
      401,
      'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      { message: 'Login Required.', reason: 'required', location: 'Authorization', locationType: 'header' },
      {
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com' }],
        headers: { 'WWW-Authenticate': AUTH_REALM },
      },
    ),
  /** Unknown, revoked or expired access token. */
  invalidCredentials: () =>
    googleError(
      401,
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      { message: 'Invalid Credentials', reason: 'authError', location: 'Authorization', locationType: 'header' },
      {
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_EXPIRED', domain: 'googleapis.com' }],
        headers: { 'WWW-Authenticate': `${AUTH_REALM}, error="invalid_token"` },
      },
    ),
  insufficientScopes: (service: string, rpcMethod: string, accepted: readonly string[]) =>
    googleError(
      403,
      'Request had insufficient authentication scopes.',
      { message: 'Insufficient Permission', reason: 'insufficientPermissions' },
      {
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
            domain: 'googleapis.com',
            metadata: { service, method: rpcMethod },
          },
        ],
        headers: { 'WWW-Authenticate': `${AUTH_REALM}, error="insufficient_scope", scope="${accepted.join(' ')}"` },
      },
    ),
  badRequest: (message: string, family?: ApiFamily, reason = 'invalid') => googleError(400, message, { reason }, family ? { family } : {}),
  /** A body or query field the Discovery document does not define, or a mistyped one. */
  invalidPayload: (message: string, family: ApiFamily) =>
    googleError(
      400,
      message,
      { reason: 'invalid' },
      {
        family,
        details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description: message }] }],
      },
    ),
  notFound: (family: ApiFamily) =>
    family === 'calendar'
      ? googleError(404, 'Not Found', { reason: 'notFound' }, { family })
      : googleError(404, 'Requested entity was not found.', { reason: 'notFound' }, { family }),
  deleted: () => googleError(410, 'Resource has been deleted', { reason: 'deleted' }, { family: 'calendar' }),
  duplicate: () => googleError(409, 'The requested identifier already exists.', { reason: 'duplicate' }, { family: 'calendar' }),
  forbidden: (message: string, family: ApiFamily, reason = 'forbidden') => googleError(403, message, { reason }, { family }),
  /** Gmail: acting on another mailbox than the token's own. */
  delegationDenied: (userId: string) => googleError(403, `Delegation denied for ${userId}`, { reason: 'forbidden' }, { family: 'gmail' }),
  rateLimitExceeded: (family?: ApiFamily) =>
    googleError(403, 'Rate Limit Exceeded', { domain: 'usageLimits', reason: 'rateLimitExceeded' }, family ? { family } : {}),
  userRateLimitExceeded: (family?: ApiFamily) =>
    googleError(403, 'User Rate Limit Exceeded', { domain: 'usageLimits', reason: 'userRateLimitExceeded' }, family ? { family } : {}),
  tooManyRequests: (retryAfterS?: number) =>
    googleError(
      429,
      'Resource has been exhausted (e.g. check quota).',
      { reason: 'rateLimitExceeded', domain: 'global' },
      retryAfterS !== undefined ? { headers: { 'Retry-After': String(retryAfterS) } } : {},
    ),
  backendError: (code = 500) =>
    code === 503
      ? googleError(503, 'The service is currently unavailable.', { reason: 'backendError' })
      : googleError(code, 'Internal error encountered.', { reason: 'backendError' }),
  notImplemented: (methodId: string) => googleError(501, `The Google sandbox does not emulate ${methodId}.`, { reason: 'notImplemented' }),
};
