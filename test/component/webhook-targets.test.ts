import { randomUUID } from 'node:crypto';
import { guardedLookup, isForbiddenAddress } from '../../src/webhooks/target';
import { asAdmin } from '../helpers/admin';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * Webhook targets are public unicast, whichever way an address is written: every IPv6 form that embeds an IPv4
 * address is judged by the IPv4 it leads to (or refused outright: NAT64's local-use prefix), as an admin sets the
 * URL (PUT …/webhook) and again as a delivery connects (the lookup the connection uses). Literal addresses need
 * no DNS, so each form is checked exactly as written, after the WHATWG URL parser has rewritten it.
 */

// 10.0.0.1 = 0a00:0001, 127.0.0.1 = 7f00:0001, 169.254.169.254 = a9fe:a9fe, 192.168.1.1 = c0a8:0101,
// 8.8.8.8 = 0808:0808; a Teredo client address is stored inverted (10.0.0.1 → f5ff:fffe, 8.8.8.8 → f7f7:f7f7).
const FORBIDDEN: [string, string][] = [
  ['IPv4-mapped, dotted', 'https://[::ffff:127.0.0.1]/in'],
  ['IPv4-mapped, hex', 'https://[::ffff:7f00:1]/in'],
  ['IPv4-mapped, uncompressed', 'https://[0:0:0:0:0:ffff:127.0.0.1]/in'],
  ['IPv4-mapped, zero-padded hex', 'https://[0000:0000:0000:0000:0000:ffff:7f00:0001]/in'],
  ['IPv4-mapped, upper case (cloud metadata)', 'https://[::FFFF:A9FE:A9FE]/in'],
  ['IPv4-mapped, private', 'https://[::ffff:10.0.0.1]/in'],
  ['IPv4-mapped, RFC 1918 192.168', 'https://[::ffff:192.168.1.1]/in'],
  ['IPv4-mapped, CGNAT', 'https://[::ffff:100.64.0.1]/in'],
  ['IPv4-mapped, multicast', 'https://[::ffff:224.0.0.1]/in'],
  ['IPv4-mapped, broadcast', 'https://[::ffff:255.255.255.255]/in'],
  ['IPv4-mapped, unspecified', 'https://[::ffff:0.0.0.0]/in'],
  ['IPv4-translated (SIIT), dotted', 'https://[::ffff:0:10.0.0.1]/in'],
  ['IPv4-translated (SIIT), hex', 'https://[::ffff:0:a00:1]/in'],
  ['IPv4-translated (SIIT), loopback', 'https://[::ffff:0:127.0.0.1]/in'],
  ['IPv4-compatible, dotted', 'https://[::127.0.0.1]/in'],
  ['IPv4-compatible, hex', 'https://[::7f00:1]/in'],
  ['IPv4-compatible, private', 'https://[::10.0.0.1]/in'],
  ['IPv4-compatible, cloud metadata hex', 'https://[::a9fe:a9fe]/in'],
  ['NAT64 well-known, dotted', 'https://[64:ff9b::10.0.0.1]/in'],
  ['NAT64 well-known, hex', 'https://[64:ff9b::a00:1]/in'],
  ['NAT64 well-known, loopback', 'https://[64:ff9b::127.0.0.1]/in'],
  ['NAT64 well-known, cloud metadata', 'https://[64:ff9b::a9fe:a9fe]/in'],
  ['NAT64 well-known, uncompressed', 'https://[64:ff9b:0:0:0:0:c0a8:101]/in'],
  ['NAT64 local-use, private', 'https://[64:ff9b:1::a00:1]/in'],
  ['NAT64 local-use, even a public IPv4', 'https://[64:ff9b:1::8.8.8.8]/in'],
  ['NAT64 local-use, other layout', 'https://[64:ff9b:1:abcd::1]/in'],
  ['6to4, private', 'https://[2002:a00:1::]/in'],
  ['6to4, loopback', 'https://[2002:7f00:1::1]/in'],
  ['6to4, cloud metadata', 'https://[2002:a9fe:a9fe::]/in'],
  ['6to4, RFC 1918 with a subnet', 'https://[2002:c0a8:101:1::1]/in'],
  ['6to4, unspecified', 'https://[2002::]/in'],
  ['Teredo, public server, private client', 'https://[2001:0:808:808::f5ff:fffe]/in'],
  ['Teredo, private server, public client', 'https://[2001:0:a00:1::f7f7:f7f7]/in'],
  ['Teredo, loopback client', 'https://[2001:0:808:808:0:0:80ff:fffe]/in'],
  ['IPv6 loopback', 'https://[::1]/in'],
  ['IPv6 unspecified', 'https://[::]/in'],
  ['IPv6 link-local', 'https://[fe80::1]/in'],
  ['IPv6 unique local', 'https://[fd12:3456::1]/in'],
  ['IPv6 unique local, fc00', 'https://[fc00::1]/in'],
  ['IPv6 site-local (deprecated)', 'https://[fec0::1]/in'],
  ['IPv6 multicast', 'https://[ff02::1]/in'],
  ['IPv6 documentation', 'https://[2001:db8::1]/in'],
  ['IPv6 documentation (3fff::/20)', 'https://[3fff::1]/in'],
  ['IPv6 discard-only', 'https://[100::1]/in'],
  ['IPv6 benchmarking', 'https://[2001:2::1]/in'],
  ['IPv6 outside global unicast', 'https://[4000::1]/in'],
  ['IPv4 in hex, as the URL parser reads it', 'https://0x7f.1/in'],
  ['IPv4 as one decimal number', 'https://2130706433/in'],
  ['IPv4 in octal', 'https://0177.0.0.1/in'],
  ['IPv4 shortened', 'https://10.1/in'],
  ['IPv4 cloud metadata', 'https://169.254.169.254/in'],
];

const PUBLIC: [string, string][] = [
  ['IPv4', 'https://8.8.8.8/in'],
  ['IPv6 global unicast', 'https://[2606:4700::1111]/in'],
  ['IPv4-mapped public, dotted', 'https://[::ffff:8.8.8.8]/in'],
  ['IPv4-mapped public, hex', 'https://[::ffff:808:808]/in'],
  ['IPv4-translated public', 'https://[::ffff:0:8.8.8.8]/in'],
  ['NAT64 well-known, public', 'https://[64:ff9b::8.8.8.8]/in'],
  ['6to4, public', 'https://[2002:808:808::1]/in'],
  ['Teredo, public server and client', 'https://[2001:0:808:808::f7f7:f7f7]/in'],
];

const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');
const lookup = (host: string) =>
  new Promise<{ err: NodeJS.ErrnoException | null; address: string }>((resolve) =>
    guardedLookup(false)(host, {}, (err, address) => resolve({ err, address: address as string })),
  );

let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub();
});
afterAll(() => hub.close());

const putWebhook = (customerId: string, url: string) =>
  client(hub.app).put(`/api/admin/customers/${customerId}/webhook`).set('Authorization', asAdmin()).send({ url });

test('the table holds at least 40 forbidden forms', () => {
  expect(FORBIDDEN.length).toBeGreaterThanOrEqual(40);
});

describe.each(FORBIDDEN)('%s (%s)', (_what, url) => {
  test('when an admin sets it, then VALIDATION_ERROR and nothing is stored', async () => {
    const customerId = randomUUID();
    const res = await putWebhook(customerId, url).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.details)).toMatch(/points to a private, loopback, link-local or other non-public address/);
    expect(await hub.testDb.db.query('SELECT 1 FROM webhook_endpoints WHERE customer_id = $1', [customerId])).toEqual([]);
  });

  test('when a delivery connects to it, then the lookup refuses it', async () => {
    expect(isForbiddenAddress(hostOf(url))).toBe(true);
    expect((await lookup(hostOf(url))).err?.code).toBe('EHUB_FORBIDDEN_ADDRESS');
  });
});

describe.each(PUBLIC)('%s (%s)', (_what, url) => {
  test('when an admin sets it, then it is stored, and a delivery may connect to it', async () => {
    await putWebhook(randomUUID(), url).expect(201);
    const { err, address } = await lookup(hostOf(url));
    expect(err).toBeNull();
    expect(address).toBe(hostOf(url));
  });
});
