import { hash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HubFailure, hubError } from '../errors';

const sha256 = (value: string) => hash('sha256', value, 'buffer');
const SCHEME = /^ServiceSecret +([^\s]+) *$/i;

/**
 * `Authorization: ServiceSecret <secret>` against HUB_SERVICE_SECRETS. Several secrets may be live at once so one
 * can be rotated without downtime. Comparing fixed-length digests with timingSafeEqual — and always against every
 * configured secret — keeps response time independent of how much of a guess was right and of which secret matched.
 */
export function serviceSecretAuth(secrets: readonly string[]): RequestHandler {
  const digests = secrets.map(sha256);
  const reject = (message: string) => new HubFailure(hubError('UNAUTHORIZED', message));

  return (req, _res, next) => {
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
    let accepted = 0;
    for (const digest of digests) accepted |= timingSafeEqual(digest, presented) ? 1 : 0;
    if (accepted === 0) {
      next(reject('Invalid service secret'));
      return;
    }
    next();
  };
}
