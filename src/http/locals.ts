import type { ServicePrincipal } from '../access/service-keys';
import type { AdminPrincipal } from '../auth/admin-access';
import type { Logger } from '../logger';

/**
 * The Hub's per-request state, installed as `res.locals` by request-context.ts. A class with a fixed shape:
 * Express creates `res.locals` with Object.create(null), which V8 keeps in (slow) dictionary mode, and these
 * fields are read and written dozens of times per request. Express itself only uses res.locals for views.
 */
export class RequestState {
  /** Tool name for error envelopes and the access log, once known (envelope.ts). */
  tool: string | null | undefined = undefined;
  /** Error code for the access log (envelope.ts). */
  errorCode: string | undefined = undefined;
  /** Child logger bound to this request's ids; made on first use only (requestLogger). */
  log: Logger | undefined = undefined;
  /** The caller of a tool call, once readable (src/routes/internal/execute.ts): ids, not secrets, for the access line. */
  customerId: string | undefined = undefined;
  agentId: string | undefined = undefined;
  userId: string | null | undefined = undefined;
  /** The trace the call belongs to (the agent's traceparent, or the Hub's span when tracing is on). */
  traceId: string | undefined = undefined;
  /** Who called the admin API, once its token is verified (auth/admin-jwt.ts). */
  admin: AdminPrincipal | undefined = undefined;
  /** Who called the internal API: a configured service secret or a scoped service key (auth/service-secret.ts). */
  service: ServicePrincipal | undefined = undefined;
  constructor(
    /** performance.now() when the request arrived. */
    public t0: number,
    /** The Hub's own id for this HTTP request, unique (unlike request_id, which an agent reuses on retry). */
    public reqId: string,
    /** The id the caller sees (X-Request-Id, metadata.request_id); the execute route may replace it. */
    public requestId: string,
    /** Headers every answer carries, as a flat [name, value, ...] list for writeHead. */
    public baseHeaders: readonly string[],
    /** The access logger, unless this path is not access-logged (probes). */
    public access: Logger | undefined,
  ) {}
}

/** Express' type for res.locals is the Hub's RequestState (the fields are declared once, on the class). */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Locals extends RequestState {}
  }
}
