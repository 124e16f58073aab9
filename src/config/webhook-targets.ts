import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Webhook targets are URLs a customer (or, with HUB_WEBHOOK_URL, the operator) chooses: the Hub must not become a
 * way to reach what only it can reach (an SSRF tool). Unless HUB_WEBHOOK_ALLOW_PRIVATE is set (tests, private
 * deployments):
 * - https only, no user:password in the URL;
 * - no host that is, or resolves to, anything but a public unicast address — loopback, private (RFC 1918, ULA),
 *   link-local (cloud metadata at 169.254.169.254), CGNAT, multicast, unspecified, documentation or reserved, also
 *   when embedded in IPv6 (NAT64, 6to4, Teredo, IPv4-mapped or -compatible) — every address the name resolves to is
 *   checked, when the URL is set and again at each delivery, by the very lookup the connection uses (so a name
 *   re-pointed after the check — DNS rebinding — is refused too: src/webhooks/target.ts);
 * - redirects are never followed (a 3xx is a failed delivery).
 * The rules on the URL itself live here, with the configuration that applies them to HUB_WEBHOOK_URL.
 */

// What embeds an IPv4 address in IPv6, and where (RFC 4291 §2.5.5, RFC 6052, RFC 6145, RFC 3056, RFC 4380).
const MAPPED = ipaddr.parseCIDR('::ffff:0:0/96'); // ::ffff:a.b.c.d, however spelled (::ffff:a00:1 by the URL parser)
const TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96'); // ::ffff:0:a.b.c.d (SIIT)
const COMPATIBLE = ipaddr.parseCIDR('::/96'); // ::a.b.c.d (deprecated; :: and ::1 decode to 0.0.0.x)
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96'); // the well-known prefix: the IPv4 is the last 32 bits
const NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48'); // local-use: the network picks where the IPv4 sits
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16'); // 2002:AABB:CCDD::/48 routes to a.b.c.d
const TEREDO = ipaddr.parseCIDR('2001::/32'); // server IPv4 in bits 32-63, client IPv4 inverted in the last 32
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const v4 = (high: number, low: number) => ipaddr.IPv4.parse([high >> 8, high & 255, low >> 8, low & 255].join('.'));

/** The IPv4 addresses an IPv6 address leads to; null when it embeds none; 'refuse' when it cannot be told. */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4[] | 'refuse' | null {
  const p = a.parts;
  if (a.match(MAPPED) || a.match(TRANSLATED) || a.match(COMPATIBLE) || a.match(NAT64)) return [v4(p[6]!, p[7]!)];
  if (a.match(NAT64_LOCAL)) return 'refuse';
  if (a.match(SIX_TO_FOUR)) return [v4(p[1]!, p[2]!)];
  if (a.match(TEREDO)) return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  return null;
}

/**
 * True for an address a webhook may not be sent to: anything but public unicast. An IPv6 address that embeds
 * IPv4 (mapped, compatible, SIIT, NAT64, 6to4, Teredo) is judged by every IPv4 it leads to, since that is where
 * a translator or relay delivers it; NAT64's local-use prefix is refused outright. ipaddr.js names the special
 * ranges (RFC 6890's registries); a public IPv6 address must also lie in 2000::/3, the global unicast space.
 */
export function isForbiddenAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded === 'refuse') return true;
  if (embedded !== null) return embedded.some((a) => a.range() !== 'unicast');
  return v6.range() !== 'unicast' || !v6.match(GLOBAL_UNICAST);
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
  if (isIP(host) !== 0 && isForbiddenAddress(host)) return 'points to a private, loopback, link-local or other non-public address';
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return 'points to a local host name';
  return null;
}
