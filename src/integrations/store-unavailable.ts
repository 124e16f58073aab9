import { type HubError, hubError } from '../core/errors';
import type { Logger } from '../logger';
import { isDatabaseUnavailable } from '../store/db';

/** Turns a failed credential-store call into SERVICE_UNAVAILABLE (retry) or a bug (rethrown). */
export function storeUnavailable(err: unknown, logger: Logger): HubError {
  if (!isDatabaseUnavailable(err)) throw err;
  logger.warn({ err }, 'credential store unavailable');
  return hubError('SERVICE_UNAVAILABLE', 'The Hub cannot reach its credential store right now; retry shortly', {
    retryAfterS: 2,
  });
}
