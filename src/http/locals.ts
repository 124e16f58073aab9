import type { Logger } from '../logger';

/** What the Hub keeps per request on `res.locals` (set by request-context.ts unless noted). */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** performance.now() when the request arrived. */
      t0: number;
      /** The Hub's own id for this HTTP request, unique (unlike request_id, which an agent reuses on retry). */
      reqId: string;
      /** The id the caller sees (X-Request-Id, metadata.request_id); the execute route may replace it. */
      requestId: string;
      /** Headers every answer carries, as a flat [name, value, ...] list for writeHead. */
      baseHeaders: readonly string[];
      /** The access logger, unless this path is not access-logged (probes). */
      access?: Logger;
      /** Child logger bound to this request's ids; made on first use only (requestLogger). */
      log?: Logger;
      /** Tool name for error envelopes and the access log, once known (envelope.ts). */
      tool?: string | null;
      /** Error code for the access log (envelope.ts). */
      errorCode?: string;
    }
  }
}

export {};
