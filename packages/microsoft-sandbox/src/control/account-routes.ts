import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { consentKey } from '../identity/state';
import { type Person, type World, findPerson } from '../world';
import { describePerson } from './describe';
import type { answer as Answer, fail as Fail, parse as Parse } from './routes';
import {
  accountSpecSchema,
  addCalendar,
  addEvent,
  addMessage,
  calendarSharingSchema,
  calendarSpecSchema,
  createPerson,
  eventSpecSchema,
  messageSpecSchema,
  setCalendarSharing,
} from './seed';

/** The control API's people: create and inspect them, seed their mailboxes, and kill their grants. */
export function mountAccounts(router: Router, w: () => World, { parse, fail, answer }: { parse: typeof Parse; fail: typeof Fail; answer: typeof Answer }) {
  router.get('/accounts', (_req, res) => res.json({ accounts: [...w().people.values()].map((p) => describePerson(w(), p)) }));
  router.post('/accounts', (req, res) => {
    const spec = parse(accountSpecSchema, req, res);
    if (spec) answer(res, createPerson(w(), spec), 201, (p) => describePerson(w(), p));
  });
  const withPerson = (h: (world: World, req: Request, res: Response, p: Person) => void) => (req: Request, res: Response) => {
    const p = findPerson(w(), String(req.params.upn));
    if (!p) return fail(res, 404, `no sandbox account ${String(req.params.upn)}`);
    h(w(), req, res, p);
  };
  router.get(
    '/accounts/:upn',
    withPerson((world, _req, res, p) => res.json(describePerson(world, p))),
  );
  router.post(
    '/accounts/:upn/events',
    withPerson((world, req, res, p) => {
      const spec = parse(eventSpecSchema, req, res);
      if (spec) answer(res, addEvent(world, p, spec), 201, (e) => ({ id: e.id }));
    }),
  );
  router.post(
    '/accounts/:upn/calendars',
    withPerson((world, req, res, p) => {
      const spec = parse(calendarSpecSchema, req, res);
      if (spec) answer(res, addCalendar(world, p, spec), 201, (c) => ({ id: c.id }));
    }),
  );
  router.post(
    '/accounts/:upn/messages',
    withPerson((world, req, res, p) => {
      const spec = parse(messageSpecSchema, req, res);
      if (spec) answer(res, addMessage(world, p, spec, new Map()), 201, (m) => ({ id: m.restId, immutable_id: m.immutableId }));
    }),
  );
  // The owner changes who sees the default calendar's free/busy (Outlook's sharing dialog, calendarPermission).
  router.put(
    '/accounts/:upn/calendar-sharing',
    withPerson((world, req, res, p) => {
      const spec = parse(calendarSharingSchema, req, res);
      if (spec) answer(res, setCalendarSharing(world, p, spec), 200, (who) => describePerson(world, who));
    }),
  );
  // An administrator renames the account (a new UPN, hence a new address): its object id stays, so its tokens and
  // its id_token's `oid` stay too (learn.microsoft.com/entra/identity/hybrid/connect/howto-troubleshoot-upn-changes:
  // "the object ID … doesn't change" when the UPN does).
  router.put(
    '/accounts/:upn/address',
    withPerson((world, req, res, p) => {
      const body = parse(z.strictObject({ upn: z.email().max(200) }), req, res);
      if (!body) return;
      const taken = findPerson(world, body.upn);
      if (taken && taken !== p) return fail(res, 409, `${body.upn} is another account's`);
      p.userPrincipalName = body.upn;
      res.json(describePerson(world, p));
    }),
  );
  // The grant-killing events the token endpoint reports (AADSTS50173, 50057, 65001).
  router.post(
    '/accounts/:upn/password-change',
    withPerson((world, _req, res, p) => {
      Object.assign(p, { tokensValidFrom: world.clock.now(), invalidatedBy: 'password' });
      res.json({ tokens_valid_from: new Date(p.tokensValidFrom).toISOString() });
    }),
  );
  router.post(
    '/accounts/:upn/revoke-sessions',
    withPerson((world, _req, res, p) => {
      Object.assign(p, { tokensValidFrom: world.clock.now(), invalidatedBy: 'revoked' });
      res.json({ tokens_valid_from: new Date(p.tokensValidFrom).toISOString() });
    }),
  );
  router.put(
    '/accounts/:upn/disabled',
    withPerson((_world, req, res, p) => {
      const body = parse(z.strictObject({ disabled: z.boolean() }), req, res);
      if (!body) return;
      p.disabled = body.disabled;
      res.json({ disabled: p.disabled });
    }),
  );
  router.post(
    '/accounts/:upn/withdraw-consent',
    withPerson((world, req, res, p) => {
      const body = parse(z.strictObject({ client_id: z.uuid() }), req, res);
      if (!body) return;
      world.identity.consents.delete(consentKey(body.client_id, p.id));
      let n = 0;
      for (const g of world.identity.refresh.values()) {
        if (g.userId !== p.id || g.clientId !== body.client_id) continue;
        g.consentWithdrawn = true;
        n++;
      }
      res.json({ refresh_tokens_affected: n });
    }),
  );
  router.post(
    '/accounts/:upn/expire-tokens',
    withPerson((world, _req, res, p) => {
      let n = 0;
      for (const t of world.identity.access.values()) {
        if (t.userId !== p.id || t.expiresAt <= world.clock.now()) continue;
        t.expiresAt = world.clock.now();
        n++;
      }
      res.json({ expired_access_tokens: n });
    }),
  );
}
