import { hash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HubFailure, hubError } from '../core/errors';
import type { ServiceKeys, ServicePrincipal } from '../access/service-keys';
import { SERVICE_KEY_PREFIX } from '../access/service-key-store';

const sha256 = (value: string) => hash('sha256', value, 'buffer');
const SCHEME = /^ServiceSecret +([^\s]+) *$/i;

/**
 * `Authorization: ServiceSecret <secret>` against HUB_SERVICE_SECRETS. Several secrets may be live at once so one
 * can be rotated without downtime. Comparing fixed-length digests with timingSafeEqual — and always against every
 * configured secret — keeps response time independent of how much of a guess was right and of which secret matched.
 * A value that is none of them and has the service-key form is looked up among the scoped service keys made
 * through the admin API (src/access/service-keys.ts: in memory, by digest). The caller is stored on
 * res.locals.service: a configured secret may act for anyone, a key only within its scope.
 */
export function serviceSecretAuth(secrets: readonly string[], keys?: ServiceKeys, now: () => number = Date.now): RequestHandler {
  const digests = secrets.map(sha256);
  // Each secret's principal, made once: receipts name which configured secret made a call.
  const principals: ServicePrincipal[] = digests.map((d) => ({ kind: 'secret', fingerprint: d.toString('hex').slice(0, 12) }));
  const reject = (message: string) => new HubFailure(hubError('UNAUTHORIZED', message));

  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || header === '') {
      next(reject('Missing Authorization header; send "Authorization: ServiceSecret <secret>"'));
      return;
    }
    const match = SCHEME.exec(header);
    if (!match) {
      next(reject('Malformed Authorization header; expected the ServiceSecret scheme: "ServiceSecret <secret>"'));
      return;
    }
    const presented = sha256(match[1]!);
    let accepted = -1;
    for (let i = 0; i < digests.length; i++) if (timingSafeEqual(digests[i]!, presented)) accepted = i;
    if (accepted >= 0) {
      res.locals.service = principals[accepted];
      next();
      return;
    }
    if (keys === undefined || !match[1]!.startsWith(SERVICE_KEY_PREFIX)) {
      next(reject('Invalid service secret'));
      return;
    }
    const accept = (key: Awaited<ReturnType<ServiceKeys['find']>>) => {
      if (key === undefined) return next(reject('Invalid service secret'));
      if (key.expiresAtMs !== null && key.expiresAtMs <= now()) return next(reject('This service key has expired'));
      keys.used(key.id);
      res.locals.service = { kind: 'key', key };
      next();
    };
    const found = keys.find(presented.toString('hex'));
    if (!(found instanceof Promise)) {
      accept(found);
      return;
    }
    found.then(accept, () => next(new HubFailure(hubError('SERVICE_UNAVAILABLE', 'Service keys cannot be read right now; retry shortly', { retryAfterS: 2 }))));
  };
}
