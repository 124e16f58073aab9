import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../packages/client/src/webhooks';

/**
 * The client's dependency-free verifier against Standard Webhooks' reference library: what the library signs, the
 * client verifies — with a whsec_ secret, a plain one, either of two during a rotation, Headers or a plain object —
 * and it refuses what the library refuses.
 */

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const BODY = JSON.stringify({ id: 'evt-1', type: 'connection.expired', created_at: '2027-01-18T10:00:00.000Z', data: { customer_id: 'c', user_id: null } });
const now = () => Math.floor(Date.now() / 1000);

function delivery(secrets: string[], body = BODY, at = now()) {
  const signature = secrets
    .map((s) => (s.startsWith('whsec_') ? new Webhook(s) : new Webhook(s, { format: 'raw' })).sign('evt-1', new Date(at * 1000), body))
    .join(' ');
  return { 'webhook-id': 'evt-1', 'webhook-timestamp': String(at), 'webhook-signature': signature };
}

describe('verifyWebhook', () => {
  test('when the library signed with the secret, then the client verifies and parses the event', async () => {
    expect(await verifyWebhook(BODY, delivery([SECRET]), SECRET)).toMatchObject({ ok: true, id: 'evt-1', event: { type: 'connection.expired' } });
  });

  test('when two secrets signed during a rotation, then either verifies, also from a Headers object', async () => {
    const headers = new Headers(delivery([OTHER, SECRET]));
    expect(await verifyWebhook(BODY, headers, SECRET)).toMatchObject({ ok: true });
    expect(await verifyWebhook(BODY, headers, [OTHER])).toMatchObject({ ok: true });
  });

  test('when the secret is a plain string, then its bytes are the key, as the library raw format', async () => {
    expect(await verifyWebhook(BODY, delivery(['a-plain-operator-secret-0123456789']), 'a-plain-operator-secret-0123456789')).toMatchObject({ ok: true });
  });

  test('when the body, the secret, the time or the headers are wrong, then the client refuses, as the library does', async () => {
    const headers = delivery([SECRET]);
    expect(await verifyWebhook(`${BODY} `, headers, SECRET)).toEqual({ ok: false, problem: 'mismatch' });
    expect(() => new Webhook(SECRET).verify(`${BODY} `, headers)).toThrow();
    expect(await verifyWebhook(BODY, headers, OTHER)).toEqual({ ok: false, problem: 'mismatch' });
    expect(await verifyWebhook(BODY, delivery([SECRET], BODY, now() - 301), SECRET)).toEqual({ ok: false, problem: 'stale' });
    expect(await verifyWebhook(BODY, { 'webhook-id': 'evt-1' }, SECRET)).toEqual({ ok: false, problem: 'missing_headers' });
    expect(await verifyWebhook(BODY, { ...headers, 'webhook-signature': 'v2,abc' }, SECRET)).toEqual({ ok: false, problem: 'malformed' });
    expect(await verifyWebhook(BODY, { ...headers, 'webhook-timestamp': 'soon' }, SECRET)).toEqual({ ok: false, problem: 'malformed' });
  });
});
