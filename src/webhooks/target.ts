import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/**
 * Webhook targets are URLs a customer chooses: the Hub must not become a way to reach what only it can reach
 * (an SSRF tool). Unless HUB_WEBHOOK_ALLOW_PRIVATE is set (tests, private deployments):
 * - https only, no user:password in the URL;
 * - no host that is, or resolves to, a loopback, private (RFC 1918, ULA), link-local (cloud metadata at
 *   169.254.169.254), CGNAT, multicast, unspecified or reserved address — every address the name resolves to is
 *   checked, when the URL is set and again at each delivery, by the very lookup the connection uses (so a name
 *   re-pointed after the check — DNS rebinding — is refused too);
 * - redirects are never followed (a 3xx is a failed delivery).
 */

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** True for an address a webhook may not be sent to (IPv4-mapped and NAT64 IPv6 are judged by their IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hexMapped) {
    const n = (parseInt(hexMapped[1]!, 16) << 16) | parseInt(hexMapped[2]!, 16);
    return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
  }
  return blocked.check(address, 'ipv6');
}

export type TargetProblem = string;

/** The URL's form: scheme, credentials, literal addresses. Null when acceptable (its DNS is checked apart). */
export function targetUrlProblem(raw: string, allowPrivate: boolean): TargetProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (raw.length > 2048) return 'is longer than 2048 characters';
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return allowPrivate ? 'must use http or https' : 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && isForbiddenAddress(host)) return 'points to a private, loopback or link-local address';
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return 'points to a local host name';
  return null;
}

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
      resolve(addresses.some((a) => isForbiddenAddress(a.address)) ? 'resolves to a private, loopback or link-local address' : null);
    });
  });
}
