import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { bearerToken, familyOf, sendResult } from './api/dispatch';
import { type ApiRoute, matchRoute } from './discovery/routes';
import { type ApiResult, googleError } from './google-errors';
import { resolveAccessToken } from './oauth/tokens';
import { type World, accountKey, findAccount } from './world';

/**
 * Gmail's per-user limits, as Gmail enforces them on every client of a mailbox:
 *
 * - **Concurrency**: a per-user concurrent request limit shared by all clients (Gmail "Resolve errors",
 *   https://developers.google.com/workspace/gmail/api/guides/handle-errors: "a per-user concurrent request
 *   limit"). Beyond it Gmail answers 429 "Too many concurrent requests for user." reason rateLimitExceeded
 *   (googleapis/google-api-dotnet-client#1982, elie222/inbox-zero#1880). Google publishes no figure; public
 *   measurements saw 100 parallel requests refused and 25 accepted (amd/gaia#2720), so the default is 25.
 * - **Quota units**: each request costs its method's units and a user may spend 6,000 per minute, measured over a
 *   sliding minute (Gmail "Usage limits", https://developers.google.com/workspace/gmail/api/reference/quota: "Per
 *   minute per user per project: 6,000 quota units"; Calendar's quota page states the sliding window). Beyond it
 *   Gmail answers 429 "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' …" with
 *   reason rateLimitExceeded, domain usageLimits (mxngls/gmail-cleaner#5, Nylas "Gmail Quota exceeded error").
 *
 * A request is in flight from its arrival until its answer is sent (added latency included); refused requests
 * cost nothing. Time is the sandbox clock, so `POST /_sandbox/clock` refills the budget. Limits are settable
 * per world (`PUT /_sandbox/quotas`) and reset with it.
 */

/** Google's per-method costs (the quota page), by method id without `gmail.users.`; anything else costs 5. */
const UNIT_COSTS: Readonly<Record<string, number>> = {
  getProfile: 1,
  'labels.get': 1,
  'labels.list': 1,
  'labels.create': 5,
  'labels.update': 5,
  'labels.patch': 5,
  'labels.delete': 5,
  'history.list': 2,
  'messages.get': 5,
  'messages.list': 5,
  'messages.modify': 5,
  'messages.trash': 5,
  'messages.untrash': 5,
  'messages.attachments.get': 5,
  'messages.delete': 10,
  'messages.insert': 25,
  'messages.import': 25,
  'messages.batchModify': 50,
  'messages.batchDelete': 50,
  'messages.send': 100,
  'drafts.get': 5,
  'drafts.list': 5,
  'drafts.create': 10,
  'drafts.delete': 10,
  'drafts.update': 15,
  'drafts.send': 100,
  'threads.get': 10,
  'threads.list': 10,
  'threads.modify': 10,
  'threads.trash': 10,
  'threads.untrash': 10,
  'threads.delete': 20,
};
const WINDOW_MS = 60_000;

export interface GmailQuotaSettings {
  /** Requests in flight per user; 0 = no limit. */
  maxConcurrentPerUser: number;
  /** Quota units per user per sliding minute; 0 = no limit. */
  unitsPerUserPerMinute: number;
  /** Per-method overrides of Google's costs (`messages.get` → 5). */
  unitCosts: Record<string, number>;
}

export interface QuotaState {
  gmail: GmailQuotaSettings;
  inFlight: Map<string, number>;
  /** Per user: what each accepted request cost and when (sandbox time), oldest first, pruned to the last minute. */
  spent: Map<string, { log: { at: number; units: number }[]; total: number }>;
}

export const createQuotaState = (): QuotaState => ({
  gmail: { maxConcurrentPerUser: 25, unitsPerUserPerMinute: 6000, unitCosts: {} },
  inFlight: new Map(),
  spent: new Map(),
});

export function unitCost(methodId: string, overrides: Readonly<Record<string, number>> = {}): number {
  const method = methodId.replace(/^gmail\.users\./, '');
  return overrides[method] ?? UNIT_COSTS[method] ?? 5;
}

/** Google's usage-limit answers, for the limits here and the fault presets (faults.ts). */
export const usageLimitErrors = {
  /** Gmail, beyond the per-user concurrency limit. */
  tooManyConcurrent: (): ApiResult => googleError(429, 'Too many concurrent requests for user.', { reason: 'rateLimitExceeded', domain: 'global' }),
  /**
   * Gmail, beyond the per-user quota units per minute: 403 (not 429), domain usageLimits — as callers of
   * gmail.googleapis.com log it (mxngls/gmail-cleaner#5, elie222/inbox-zero#480, GAM-team/got-your-back#287 and
   * #309: "Google really shouldn't be returning 403 errors for quota issues"). A client that retries only 429s
   * meets it as a permission error.
   */
  unitsExhausted: (): ApiResult =>
    googleError(
      403,
      "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'gmail.googleapis.com' for consumer 'project_number:000000000000'.",
      { reason: 'rateLimitExceeded', domain: 'usageLimits' },
    ),
  /**
   * Gmail's per-user rate limit naming when it lifts, as measured in production: 403, the time only in the
   * top-level message, two spaces after the first sentence (public reports: bettergov/foiamail#36,
   * twentyhq/twenty#17850; the 403 body as logged by callers of gmail.googleapis.com).
   */
  userRateLimitRetryAfter: (at: number): ApiResult =>
    googleError(
      403,
      `User-rate limit exceeded.  Retry after ${new Date(at).toISOString()}`,
      { message: 'User-rate limit exceeded.', reason: 'rateLimitExceeded', domain: 'usageLimits' },
      { family: 'gmail' },
    ),
  /**
   * Gmail's daily sending limit: 429 "User-rate limit exceeded" "(Mail sending)" with the time to retry, possibly
   * for hours (Gmail "Resolve errors", Mail sending limits). The body's exact wording beyond those phrases is
   * not published; it follows the per-user limit's shape above.
   */
  mailSendingLimit: (at: number): ApiResult =>
    googleError(
      429,
      `User-rate limit exceeded.  Retry after ${new Date(at).toISOString()} (Mail sending)`,
      { message: 'User-rate limit exceeded.', reason: 'rateLimitExceeded', domain: 'usageLimits' },
      { family: 'gmail' },
    ),
  /**
   * Calendar's "Calendar usage limits exceeded." (403 quotaExceeded, legacy body without `status`): the user hit a
   * Calendar limit — typically invitations to external guests — and the calendar is read-only for hours (Calendar
   * "Handle API errors", https://developers.google.com/workspace/calendar/api/guides/errors; "Avoid Calendar use
   * limits", https://support.google.com/a/answer/2905486).
   */
  calendarQuotaExceeded: (): ApiResult =>
    googleError(403, 'Calendar usage limits exceeded.', { reason: 'quotaExceeded', domain: 'usageLimits' }, { family: 'calendar' }),
};

/** Units `user` spent in the minute up to `now`, forgetting what is older. */
function spentInWindow(state: QuotaState, user: string, now: number): number {
  const spent = state.spent.get(user);
  if (!spent) return 0;
  let expired = 0;
  while (expired < spent.log.length && spent.log[expired]!.at <= now - WINDOW_MS) spent.total -= spent.log[expired++]!.units;
  spent.log.splice(0, expired);
  if (spent.log.length === 0) state.spent.delete(user);
  return spent.total;
}

/** Admits a Gmail request of `user` or answers Google's refusal; an admitted one must be released when answered. */
export function admitGmail(world: World, user: string, methodId: string): ApiResult | undefined {
  const state = world.quotas;
  const { maxConcurrentPerUser: maxConcurrent, unitsPerUserPerMinute: budget } = state.gmail;
  const inFlight = state.inFlight.get(user) ?? 0;
  if (maxConcurrent > 0 && inFlight >= maxConcurrent) return usageLimitErrors.tooManyConcurrent();
  const now = world.clock.now();
  const cost = unitCost(methodId, state.gmail.unitCosts);
  if (budget > 0 && spentInWindow(state, user, now) + cost > budget) return usageLimitErrors.unitsExhausted();
  state.inFlight.set(user, inFlight + 1);
  const spent = state.spent.get(user) ?? { log: [], total: 0 };
  spent.log.push({ at: now, units: cost });
  spent.total += cost;
  state.spent.set(user, spent);
  return undefined;
}

export function releaseGmail(world: World, user: string): void {
  const left = (world.quotas.inFlight.get(user) ?? 1) - 1;
  if (left > 0) world.quotas.inFlight.set(user, left);
  else world.quotas.inFlight.delete(user);
}

/**
 * Runs before fault injection and Google's front end, so a slow answer (added latency) keeps its request in
 * flight. Requests without a live token pass through: the front end answers them 401.
 */
export function quotaGate(getWorld: () => World, routes: ApiRoute[]): RequestHandler {
  return (req, res, next) => {
    const match = matchRoute(routes, req.method, req.path);
    if (!match || match === 'method-not-allowed' || familyOf(match.route.doc) !== 'gmail') return next();
    const world = getWorld();
    const token = bearerToken(req);
    const record = token ? resolveAccessToken(world, token) : undefined;
    const account = record && findAccount(world, record.email);
    if (!account) return next();
    const user = accountKey(account.email);
    const refusal = admitGmail(world, user, match.route.method.id);
    if (refusal) {
      res.locals.operation = match.route.method.id;
      res.locals.account = account.email;
      return sendResult(res, refusal);
    }
    res.once('close', () => releaseGmail(world, user));
    next();
  };
}

const quotasSchema = z.strictObject({
  gmail_max_concurrent_per_user: z.number().int().min(0).max(10_000).optional(),
  gmail_units_per_user_per_minute: z.number().int().min(0).max(100_000_000).optional(),
  /** Per-method overrides, e.g. `{"messages.get": 5}`; replaces earlier overrides. */
  gmail_unit_costs: z.record(z.string().regex(/^[A-Za-z][A-Za-z.]{0,63}$/), z.number().int().min(0).max(100_000)).optional(),
});

const describeQuotas = (world: World) => ({
  gmail_max_concurrent_per_user: world.quotas.gmail.maxConcurrentPerUser,
  gmail_units_per_user_per_minute: world.quotas.gmail.unitsPerUserPerMinute,
  gmail_unit_costs: world.quotas.gmail.unitCosts,
});

/** `GET|PUT /_sandbox/quotas` — the limits above (0 turns one off). */
export function quotaControl(router: Router, world: () => World, invalid: (res: Parameters<RequestHandler>[1], message: string) => void): void {
  router.get('/quotas', (_req, res) => res.json(describeQuotas(world())));
  router.put('/quotas', (req, res) => {
    const parsed = quotasSchema.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    const q = world().quotas.gmail;
    if (parsed.data.gmail_max_concurrent_per_user !== undefined) q.maxConcurrentPerUser = parsed.data.gmail_max_concurrent_per_user;
    if (parsed.data.gmail_units_per_user_per_minute !== undefined) q.unitsPerUserPerMinute = parsed.data.gmail_units_per_user_per_minute;
    if (parsed.data.gmail_unit_costs !== undefined) q.unitCosts = { ...parsed.data.gmail_unit_costs };
    res.json(describeQuotas(world()));
  });
}
