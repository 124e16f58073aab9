import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { type TargetProblem, isForbiddenAddress, targetUrlProblem } from '../config';

/**
 * Where a webhook may be delivered. The URL itself must pass the rules in src/config/webhook-targets.ts (https, no
 * credentials, no literal non-public address; the configuration applies them to HUB_WEBHOOK_URL too); every address
 * its host resolves to is checked here, when the URL is set and again at each delivery, by the very lookup the
 * connection uses, so a name re-pointed after the check (DNS rebinding) is refused too.
 */

export { type TargetProblem, isForbiddenAddress, targetUrlProblem };

/**
 * A `lookup` for http(s).request that refuses forbidden addresses: the connection goes only to an address
 * checked here. With allowPrivate, plain DNS.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const refused = allowPrivate ? undefined : list.find((a) => isForbiddenAddress(a.address));
      if (refused || list.length === 0) {
        const e = Object.assign(new Error(`webhook target ${hostname} resolves to a forbidden address`), { code: 'EHUB_FORBIDDEN_ADDRESS' });
        return callback(e, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Checks the URL and every address its host resolves to now (when an admin sets it). */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<TargetProblem | null> {
  const problem = targetUrlProblem(raw, allowPrivate);
  if (problem !== null || allowPrivate) return problem;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return null;
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (err, addresses) => {
      if (err) return resolve(`host ${host} does not resolve`);
      resolve(addresses.some((a) => isForbiddenAddress(a.address)) ? 'resolves to a private, loopback, link-local or other non-public address' : null);
    });
  });
}
