import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { familyOf, sendResult } from './api/dispatch';
import { type ApiRoute, matchRoute } from './discovery/routes';
import { type ApiFamily, type ApiResult, errors, googleError } from './google-errors';
import { usageLimitErrors } from './quotas';
import type { World } from './world';

/**
 * Fault injection: make chosen requests fail the way Google fails — an error status with Google's body, added
 * latency, a dropped connection — every time, N times, or with a probability (drawn from the seeded random
 * source, so a seeded run fails the same way twice).
 *
 * `apply_first`: the method runs and its effects stay, then the answer is replaced by the fault. Google does
 * this: Gmail has answered 500 to messages.send after the mail went out (googleapis/google-api-python-client
 * #1474 "Gmail API throws error while sending email, but still sends email"; kevinburke/multi-emailer#1, a 500
 * backendError on a send that "may have succeeded"), and a connection lost after the request was written leaves
 * the client equally blind (taylorwilsdon/google_workspace_mcp#1062). API methods only (not OAuth endpoints).
 */

export const PRESETS = [
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'tooManyRequests',
  'backendError',
  'unavailable',
  // Usage limits (quotas.ts): Calendar's read-only account, Gmail's limits that name when they lift.
  'quotaExceeded',
  'userRateLimitRetryAfter',
  'mailSendingLimit',
  'tooManyConcurrentRequests',
] as const;

/** When `retry_after_s` is not given: Gmail's per-user limit is typically ~15 min out (twentyhq/twenty#17850), sending limits hours. */
const DEFAULT_LIFTS_AFTER_S = { userRateLimitRetryAfter: 900, mailSendingLimit: 3600 } as const;

export const faultSpecSchema = z
  .strictObject({
    /** A Discovery method id (`calendar.events.insert`) or OAuth operation (`oauth.token`). */
    operation: z.string().min(1).optional(),
    /** HTTP method, any when absent. */
    method: z.string().toUpperCase().optional(),
    /** Path glob: `*` within a segment, `**` across segments. */
    path: z.string().startsWith('/').optional(),
    preset: z.enum(PRESETS).optional(),
    status: z.number().int().min(400).max(599).optional(),
    /** A Google error body to send with `status`; a Google-shaped one is generated when absent. */
    body: z.unknown().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** Retry-After for status faults and tooManyRequests; for the usage-limit presets, when the limit lifts. */
    retry_after_s: z.number().int().min(0).max(86_400).optional(),
    latency_ms: z.number().int().min(0).max(120_000).optional(),
    /** Destroy the socket without answering (a network failure, as the client sees it). */
    drop: z.boolean().optional(),
    /** Run the method first (its effects stay), then answer with the fault or drop the connection. */
    apply_first: z.boolean().optional(),
    times: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).optional(),
  })
  .refine((f) => f.operation || f.path, { message: 'give operation or path' })
  .refine((f) => f.preset || f.status || f.latency_ms !== undefined || f.drop, { message: 'give preset, status, latency_ms or drop' })
  .refine((f) => !(f.preset && f.status), { message: 'give preset or status, not both' })
  .refine((f) => !f.apply_first || f.preset || f.status || f.drop, { message: 'apply_first needs preset, status or drop' })
  .refine((f) => !f.apply_first || !f.operation?.startsWith('oauth.'), { message: 'apply_first applies to API methods only' });

export type FaultSpec = z.infer<typeof faultSpecSchema>;

export interface FaultRule extends FaultSpec {
  id: string;
  hits: number;
  pattern: RegExp | undefined;
}

export interface FaultState {
  rules: FaultRule[];
}

export const createFaultState = (): FaultState => ({ rules: [] });

function glob(path: string): RegExp {
  const source = path
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

export function addFault(world: World, spec: FaultSpec): FaultRule {
  const rule: FaultRule = { ...spec, id: `fault-${world.random.hex(8)}`, hits: 0, pattern: spec.path ? glob(spec.path) : undefined };
  world.faults.rules.push(rule);
  return rule;
}

export const describeFault = ({ pattern: _pattern, ...rule }: FaultRule) => rule;

/** Presets answer in the API's own shape (Calendar's legacy errors carry no `status`). */
export function faultResponse(rule: FaultRule, family: ApiFamily | undefined, now: number): ApiResult | undefined {
  const liftsAt = (preset: keyof typeof DEFAULT_LIFTS_AFTER_S) => now + (rule.retry_after_s ?? DEFAULT_LIFTS_AFTER_S[preset]) * 1000;
  switch (rule.preset) {
    case 'rateLimitExceeded':
      return errors.rateLimitExceeded(family);
    case 'userRateLimitExceeded':
      return errors.userRateLimitExceeded(family);
    case 'tooManyRequests':
      return errors.tooManyRequests(rule.retry_after_s);
    case 'backendError':
      return errors.backendError(500);
    case 'unavailable':
      return errors.backendError(503);
    case 'quotaExceeded':
      return usageLimitErrors.calendarQuotaExceeded();
    case 'userRateLimitRetryAfter':
      return usageLimitErrors.userRateLimitRetryAfter(liftsAt('userRateLimitRetryAfter'));
    case 'mailSendingLimit':
      return usageLimitErrors.mailSendingLimit(liftsAt('mailSendingLimit'));
    case 'tooManyConcurrentRequests':
      return usageLimitErrors.tooManyConcurrent();
    case undefined:
      break;
  }
  if (!rule.status) return undefined;
  const result: ApiResult =
    rule.body !== undefined ? { status: rule.status, body: rule.body } : googleError(rule.status, 'Injected fault', { reason: 'backendError' });
  const headers = { ...result.headers, ...rule.headers, ...(rule.retry_after_s !== undefined ? { 'Retry-After': String(rule.retry_after_s) } : {}) };
  return { ...result, headers };
}

const OAUTH_OPERATIONS: Record<string, string> = {
  '/token': 'oauth.token',
  '/revoke': 'oauth.revoke',
  '/tokeninfo': 'oauth.tokeninfo',
  '/o/oauth2/v2/auth': 'oauth.authorize',
};

/** Runs before Google's front end: the first live rule matching the request decides its fate. */
export function faultInjector(getWorld: () => World, routes: ApiRoute[]): RequestHandler {
  return async (req, res, next) => {
    const world = getWorld();
    if (world.faults.rules.length === 0) return next();
    const m = matchRoute(routes, req.method, req.path);
    const route = m && m !== 'method-not-allowed' ? m.route : undefined;
    const operation = route ? route.method.id : OAUTH_OPERATIONS[req.path];
    const family = route ? familyOf(route.doc) : undefined;
    const rule = world.faults.rules.find(
      (r) =>
        (r.times === undefined || r.hits < r.times) &&
        (!r.apply_first || route !== undefined) &&
        (!r.method || r.method === req.method) &&
        (!r.operation || r.operation === operation) &&
        (!r.pattern || r.pattern.test(req.path)),
    );
    if (!rule || (rule.probability !== undefined && world.random.next() >= rule.probability)) return next();
    rule.hits++;
    res.locals.fault = rule.id;
    res.locals.operation = operation ?? null;
    if (rule.latency_ms) await new Promise((resolve) => setTimeout(resolve, rule.latency_ms));
    if (rule.apply_first) {
      res.locals.faultAfter = rule; // the dispatcher runs the method, then answers with this (faultAfterApply)
      res.locals.faultAt = world.clock.now();
      return next();
    }
    if (rule.drop) {
      res.locals.status = 0;
      req.socket.destroy();
      return;
    }
    const result = faultResponse(rule, family, world.clock.now());
    if (!result) return next(); // latency only: then answer normally
    if (res.headersSent || req.socket.destroyed) return;
    sendResult(res, result);
  };
}

/**
 * For the dispatcher, once the method has run: the answer an `apply_first` fault puts in place of its result —
 * or true when the connection was dropped instead — or undefined when no such fault matched the request.
 */
export function faultAfterApply(req: Request, res: Response, family: ApiFamily): ApiResult | true | undefined {
  const rule = res.locals.faultAfter as FaultRule | undefined;
  if (!rule) return undefined;
  if (rule.drop) {
    res.locals.status = 0;
    req.socket.destroy();
    return true;
  }
  return faultResponse(rule, family, res.locals.faultAt as number);
}
