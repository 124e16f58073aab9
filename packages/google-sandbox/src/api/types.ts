import type { QueryValue } from '../discovery/schema-check';
import type { ApiFamily, ApiResult } from '../google-errors';
import type { Account, World } from '../world';

export type { ApiResult, ApiFamily };

/**
 * One authenticated, validated call to a Google API method. By the time a handler sees it, the bearer token
 * is valid and holds a scope the method accepts, and the query and body match the Discovery document.
 */
export interface ApiCall {
  world: World;
  /** Discovery method id, e.g. `calendar.events.insert`. */
  methodId: string;
  family: ApiFamily;
  /** Path parameters, %-decoded. */
  params: Record<string, string>;
  /** Query parameters, typed per the Discovery document (integers, booleans; repeated ones as string[]). */
  query: Record<string, QueryValue>;
  /** The JSON request body (already checked against the method's request schema), or undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked against the Discovery schema before a handler sees it; handlers read their method's fields
  body: any;
  /** For media uploads (`/upload/...`): the uploaded bytes (e.g. an RFC 2822 message). */
  media: Buffer | undefined;
  /** The account the access token belongs to. */
  account: Account;
  /** Scopes granted to the access token. */
  scopes: readonly string[];
  /** Sandbox time, ms since the epoch, fixed for the duration of the call. */
  now: number;
  /** The If-Match request header, for methods that honour conditional modification. */
  ifMatch?: string;
}

/** Handlers return values: a Google response or a Google error (see google-errors.ts); they never throw for expected failures. */
export type ApiHandler = (call: ApiCall) => ApiResult;

export const ok = (body: unknown, status = 200): ApiResult => ({ status, body });
export const noContent = (): ApiResult => ({ status: 204 });
