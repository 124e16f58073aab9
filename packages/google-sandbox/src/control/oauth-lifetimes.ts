import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { AccountOAuthPolicy } from '../oauth/state';
import { type World, findAccount } from '../world';

/**
 * Control API for how refresh tokens die (behaviour and sources: oauth/lifetimes.ts):
 *
 *   GET|PUT /_sandbox/oauth                  {publishing_status?: "production"|"testing", refresh_token_limit?}
 *   GET|PUT /_sandbox/accounts/{email}/oauth {time_limited_access_s?, reauth_after_s?, admin_blocked?} (null clears)
 */

export interface ControlHelpers {
  parse<T extends z.ZodType>(schema: T, req: Request, res: Response): z.infer<T> | undefined;
  fail(res: Response, status: number, message: string): void;
}

const lifetimesSchema = z.strictObject({
  publishing_status: z.enum(['production', 'testing']).optional(),
  refresh_token_limit: z.number().int().min(1).max(10_000).optional(),
});

const seconds = z
  .number()
  .int()
  .min(1)
  .max(10 * 365 * 86_400)
  .nullable()
  .optional();
const accountPolicySchema = z.strictObject({
  time_limited_access_s: seconds,
  reauth_after_s: seconds,
  admin_blocked: z.boolean().optional(),
});

const describeLifetimes = (world: World) => ({
  publishing_status: world.oauth.lifetimes.publishingStatus,
  refresh_token_limit: world.oauth.lifetimes.refreshTokenLimit,
});

const describePolicy = (p: AccountOAuthPolicy) => ({
  time_limited_access_s: p.timeLimitedAccessS ?? null,
  reauth_after_s: p.reauthAfterS ?? null,
  admin_blocked: p.adminBlocked ?? false,
});

/** A field of the PUT body: absent keeps the current value, null clears it. */
const next = <T>(given: T | null | undefined, current: T | undefined): T | undefined => (given === undefined ? current : (given ?? undefined));

export function mountOAuthLifetimes(router: Router, w: () => World, { parse, fail }: ControlHelpers): void {
  router.get('/oauth', (_req, res) => res.json(describeLifetimes(w())));
  router.put('/oauth', (req, res) => {
    const body = parse(lifetimesSchema, req, res);
    if (!body) return;
    const l = w().oauth.lifetimes;
    if (body.publishing_status !== undefined) l.publishingStatus = body.publishing_status;
    if (body.refresh_token_limit !== undefined) l.refreshTokenLimit = body.refresh_token_limit;
    res.json(describeLifetimes(w()));
  });

  const account = (req: Request, res: Response) => {
    const found = findAccount(w(), String(req.params.email));
    if (!found) fail(res, 404, `no sandbox account ${String(req.params.email)}`);
    return found;
  };
  router.get('/accounts/:email/oauth', (req, res) => {
    const found = account(req, res);
    if (found) res.json(describePolicy(w().oauth.accountPolicies.get(found.email) ?? {}));
  });
  router.put('/accounts/:email/oauth', (req, res) => {
    const found = account(req, res);
    const body = found && parse(accountPolicySchema, req, res);
    if (!found || !body) return;
    const current = w().oauth.accountPolicies.get(found.email) ?? {};
    const timeLimitedAccessS = next(body.time_limited_access_s, current.timeLimitedAccessS);
    const reauthAfterS = next(body.reauth_after_s, current.reauthAfterS);
    const policy: AccountOAuthPolicy = {
      ...(timeLimitedAccessS !== undefined ? { timeLimitedAccessS } : {}),
      ...(reauthAfterS !== undefined ? { reauthAfterS } : {}),
      ...((body.admin_blocked ?? current.adminBlocked) ? { adminBlocked: true } : {}),
    };
    w().oauth.accountPolicies.set(found.email, policy);
    res.json(describePolicy(policy));
  });
}
