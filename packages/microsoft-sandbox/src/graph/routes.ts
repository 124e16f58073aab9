import express, { Router } from 'express';
import type { World } from '../world';
import { mountCalendar } from './calendar';
import { type GraphOptions, type Handler, graphRoute, requestIds } from './context';
import { GE, sendGraphError } from './errors';
import { mountMail } from './mail';
import { mountSchedule } from './schedule';
import { mountUsers } from './users';

/** Microsoft Graph v1.0 at its own paths: `/v1.0/me/...` and `/v1.0/users/{id|userPrincipalName}/...`. */
export function graphRoutes(getWorld: () => World, options: GraphOptions): Router {
  const outer = Router();
  outer.use('/v1.0', requestIds(getWorld));
  // The body's bytes as received, for the upload budget (throttle.ts): a chunked body carries no Content-Length.
  outer.use(
    '/v1.0',
    express.json({
      limit: '4mb',
      type: () => true,
      verify: (req, _res, buf) => {
        (req as { rawBodyBytes?: number }).rawBodyBytes = buf.length;
      },
    }),
  );
  const mailbox = Router({ mergeParams: true });
  const route = (op: string, needs: readonly string[], h: Handler) => graphRoute(getWorld, options, op, needs, h);
  mountUsers(mailbox, route);
  mountCalendar(mailbox, route);
  mountSchedule(mailbox, route);
  mountMail(mailbox, route);
  outer.use('/v1.0/me', mailbox);
  outer.use('/v1.0/users/:user', mailbox);
  outer.use('/v1.0', (req, res) => sendGraphError(res, GE.unsupported(req.path.split('/').filter(Boolean).pop() ?? ''), getWorld().clock.now()));
  return outer;
}
