import type { ErrorRequestHandler, RequestHandler } from 'express';
import { type HubError, HubFailure, hubError } from '../core/errors';
import { BODY_LIMIT_BYTES } from './json-body';
import { sendError } from './envelope';
import { validationError } from '../core/validation';
import type { Logger } from '../logger';
import { isDatabaseUnavailable } from '../store/db';
import { requestLogger } from './request-context';

const tooLarge = () => hubError('PAYLOAD_TOO_LARGE', 'The request body exceeds the 1 MiB limit', { details: { limit_bytes: BODY_LIMIT_BYTES } });

/**
 * Failures raised by the framework itself, mapped to the contract's codes: body-parser tags them with a `type`;
 * the router (an undecodable %-escape in a path parameter) and other http-errors with a 4xx `status`.
 */
function fromFramework(err: { type?: unknown; status?: unknown; message: string }): HubError | null {
  const status = typeof err.status === 'number' ? err.status : 0;
  switch (err.type) {
    case 'entity.too.large':
      return tooLarge();
    case 'entity.parse.failed':
      return validationError('The request body is not valid JSON', [{ path: '(root)', message: 'invalid JSON' }]);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return validationError('The request body must be UTF-8 JSON', [{ path: '(root)', message: err.message }]);
    case 'request.aborted':
    case 'request.size.invalid':
      return validationError('The request body was incomplete', [{ path: '(root)', message: 'incomplete body' }]);
  }
  if (status === 413) return tooLarge();
  if (status >= 400 && status < 500) {
    return validationError('The request is malformed', [{ path: '(root)', message: 'malformed request (for example an invalid %-escape in the URL)' }]);
  }
  return null;
}

export const notFound: RequestHandler = (req, res) => {
  sendError(res, hubError('RESOURCE_NOT_FOUND', `No endpoint ${req.method} ${req.path}`));
};

/**
 * The single error handler: every failure leaves as the contract's envelope; a bug never shows its internals, and
 * a database outage is a 503, never a 500.
 */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err); // Express closes the connection
      return;
    }
    if (err instanceof HubFailure) {
      sendError(res, err.error);
      return;
    }
    const mapped = typeof err === 'object' && err !== null ? fromFramework(err as Error & { type?: unknown }) : null;
    if (mapped) {
      sendError(res, mapped);
      return;
    }
    if (isDatabaseUnavailable(err)) {
      // A database outage (down, or a statement past HUB_DB_QUERY_TIMEOUT_MS) that a route did not turn into its
      // own answer is still an outage, never a bug: the caller retries.
      requestLogger(logger, res).warn({ err }, 'database unavailable');
      sendError(res, hubError('SERVICE_UNAVAILABLE', 'The Hub cannot reach its database right now; retry shortly', { retryAfterS: 2 }));
      return;
    }
    requestLogger(logger, res).error({ err }, 'unhandled error');
    sendError(res, hubError('INTERNAL_ERROR', 'Internal error; it has been logged with this request_id'));
  };
