import type { Logger } from '../logger';

/**
 * The Hub's per-request state, installed as `res.locals` by request-context.ts. A class with a fixed shape:
 * Express creates `res.locals` with Object.create(null), which V8 keeps in (slow) dictionary mode, and these
 * fields are read and written dozens of times per request. Express itself only uses res.locals for views.
 */
export class RequestState {
  tool: string | null | undefined = undefined;
  errorCode: string | undefined = undefined;
  log: Logger | undefined = undefined;
  constructor(
    public t0: number,
    public reqId: string,
    public requestId: string,
    public baseHeaders: readonly string[],
    public access: Logger | undefined,
  ) {}
}

/** The fields of RequestState, as Express' Locals type sees them. */
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
