import type { z } from 'zod';
import type { RecentWrites } from '../../core/recent-writes';
import type { VendorCall } from '../../core/vendor-call';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import type { Logger } from '../../logger';
import { type GraphAnswer, type GraphRequest, graphFetch, sizedGraphRequest } from './graph-request';

/**
 * What the Outlook calendar adapter is built from, and its one way to ask Graph something: `send` runs one
 * request through the connection's VendorCall (token, deadline, retries, budgets, classification) and checks the
 * answer's shape before anything reads it — an answer of the wrong shape is EXTERNAL_API_ERROR
 * `unexpected_response`, never a crash and never a half-filled result.
 */

/**
 * A per-process memo of facts about a connection (the tool layer's ToolCache has this shape): only successes are
 * kept; `load` runs once for concurrent callers of one key.
 */
export interface FactCache {
  memo<T>(key: string, ttlMs: number, load: () => Promise<Result<T>>): Promise<Result<T>>;
  forget(key: string): void;
}

export interface GraphCalendarDeps {
  call: VendorCall;
  /** Graph's version root: https://graph.microsoft.com/v1.0, or the sandbox's. */
  graphUrl: string;
  cache: FactCache;
  /** What this connection wrote lately (calendar-memory.ts): every replica's, when they share Redis. */
  recent: RecentWrites;
  connection: { credentialId: string; accountEmail: string | null; scopes: readonly string[] };
  /** The tool call's deadline: waits for Outlook's propagation end with it. */
  deadline: AbortSignal;
  now: () => number;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Every calendar request asks for immutable ids (learn.microsoft.com/graph/outlook-immutable-id: an event's
 * default id changes when it moves to another folder) and for times in UTC, so one parser reads them all.
 */
export const PREFER = 'IdType="ImmutableId", outlook.timezone="UTC"';

export const unexpectedAnswer = (operation: string): HubError =>
  hubError('EXTERNAL_API_ERROR', `Microsoft answered ${operation} with an unexpected response`, {
    retryable: false,
    details: { reason: 'unexpected_response', operation },
  });

/** A fact key: the connection (credential and account, so a reconnect to another account never reuses it) and the fact. */
export const factKey = (deps: GraphCalendarDeps, fact: string): string =>
  `msgraph:${fact}\u0000${deps.connection.credentialId}\u0000${deps.connection.accountEmail ?? ''}`;

export interface Graph {
  deps: GraphCalendarDeps;
  /** One request; the answer's body checked against `schema` (null: a body is not read, e.g. 204). */
  send<S extends z.ZodType>(operation: string, idempotent: boolean, req: GraphRequest, schema: S): Promise<Result<z.output<S>>>;
  send(operation: string, idempotent: boolean, req: GraphRequest, schema: null): Promise<Result<undefined>>;
  /** The raw request inside `call`, for adapters that must see each attempt (delete); its body is not charged to the upload budget. */
  fetch(signal: AbortSignal, token: string, req: GraphRequest): Promise<GraphAnswer>;
  parse<S extends z.ZodType>(schema: S, body: unknown, operation: string): Result<z.output<S>>;
  /** Whether `url` (an @odata.nextLink) is on the configured Graph endpoint: only such links are followed. */
  isGraphLink(url: string): boolean;
}

export function createGraph(deps: GraphCalendarDeps): Graph {
  const base = new URL(deps.graphUrl.endsWith('/') ? deps.graphUrl : `${deps.graphUrl}/`);
  const fetchIn = (signal: AbortSignal, token: string, req: GraphRequest) =>
    graphFetch(deps.graphUrl, token, { ...req, headers: { Prefer: PREFER, ...req.headers } }, signal);
  const parse = <S extends z.ZodType>(schema: S, body: unknown, operation: string): Result<z.output<S>> => {
    const parsed = schema.safeParse(body);
    if (parsed.success) return ok(parsed.data);
    deps.logger.warn(
      { operation, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), code: i.code })) },
      'unexpected Microsoft Graph response',
    );
    return fail(unexpectedAnswer(operation));
  };
  async function send(operation: string, idempotent: boolean, req: GraphRequest, schema: z.ZodType | null): Promise<Result<unknown>> {
    // Serialized once: the mailbox's upload budget is charged these very bytes before each attempt sends them.
    const sized = sizedGraphRequest(req);
    const answer = await deps.call({ operation, idempotent, uploadBytes: sized.uploadBytes }, (signal, token) => fetchIn(signal, token, sized.req));
    if (!answer.ok) return answer;
    return schema === null ? ok(undefined) : parse(schema, answer.value.body, operation);
  }
  return {
    deps,
    send: send as Graph['send'],
    fetch: fetchIn,
    parse,
    isGraphLink(url) {
      try {
        const u = new URL(url);
        return u.origin === base.origin && u.pathname.startsWith(base.pathname) && u.username === '' && u.password === '';
      } catch {
        return false;
      }
    },
  };
}

/** A path segment for a caller's id: encoded, and never a dot segment a URL parser would resolve away. */
export function idSegment(id: string): string | undefined {
  if (id.length === 0 || id.length > 1024 || /^\.+$/.test(id)) return undefined;
  return encodeURIComponent(id);
}

/** "primary" is the account's default calendar (/me/calendar); any other id is one of its calendars. */
export function calendarPath(calendarId: string): string | undefined {
  if (calendarId === 'primary') return '/me/calendar';
  const segment = idSegment(calendarId);
  return segment === undefined ? undefined : `/me/calendars/${segment}`;
}
