import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger';

const SENSITIVE_PARAM = /token|code|state|secret|key|passw|signature/i;

/** Query values that could be credentials (connect-link tokens, OAuth codes) never reach the access log. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of new Set(params.keys())) if (SENSITIVE_PARAM.test(key)) params.set(key, '[Redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

const QUIET_PATHS = new Set(['/healthz', '/readyz']);

/**
 * One JSON line per request: method, path, status, duration, the Hub's per-request `req_id`, and the
 * caller-facing `request_id` (which an agent reuses when it retries, so it need not be unique). No headers and
 * no bodies are logged at all.
 */
export function accessLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: () => randomUUID(),
    customAttributeKeys: { reqId: 'req_id', responseTime: 'duration_ms' },
    quietReqLogger: true,
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage) => ({ method: req.method, url: redactUrl(req.url ?? '') }),
      res: (res: ServerResponse) => ({ status_code: res.statusCode }),
    },
    autoLogging: { ignore: (req) => QUIET_PATHS.has(req.url ?? '') },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (_req, res, value: Record<string, unknown>) => {
      const locals = (res as Response).locals;
      return { ...value, request_id: locals.requestId, tool: locals.tool, error_code: locals.errorCode };
    },
  });
}
