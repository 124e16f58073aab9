import type { z } from 'zod';
import { type HubError, type Result, hubError, ok } from '../../core/errors';
import type { Logger } from '../../logger';

/**
 * What Google answered with a 2xx, checked against the shape a tool relies on before it is read. An answer that
 * does not fit is EXTERNAL_API_ERROR `unexpected_response` (not retryable: the same request gets the same
 * answer), logged with the failing paths only — never the data, which is a customer's calendar or mail.
 */

export const unexpectedAnswer = (operation: string): HubError =>
  hubError('EXTERNAL_API_ERROR', `Google answered ${operation} with an unexpected response`, {
    retryable: false,
    details: { reason: 'unexpected_response', operation },
  });

/** `log.logger` is read only when there is something to say: a tool call's logger is made on first use (a pino child per call). */
export function parseGoogle<S extends z.ZodType>(
  schema: S,
  data: unknown,
  operation: string,
  log: { readonly logger: Pick<Logger, 'warn'> },
): Result<z.output<S>> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return ok(parsed.data);
  log.logger.warn({ operation, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), code: i.code })) }, 'unexpected Google response');
  return { ok: false, error: unexpectedAnswer(operation) };
}
