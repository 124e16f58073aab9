import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../packages/client/src/webhooks';
import { asAdmin, asCustomer } from '../helpers/admin';
import { backToHub, connectThroughGoogle, openConnectLink } from '../helpers/connect-journey';
import { runTool, sandboxHubEnv } from '../helpers/connected';
import { testEnv } from '../helpers/env';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { connectLinkFor } from '../helpers/links';
import { useTestSandbox } from '../helpers/sandbox';
import { type Received, type WebhookReceiver, eventsFor as receivedFor, startReceiver } from '../helpers/webhook-receiver';

/**
 * Webhooks as a customer's back-end receives them: a connection made, lacking scopes, expired (Google refused
 * the refresh token) and removed each arrive as a signed event that the receiver verifies with its secret; a
 * receiver answering 500 gets the same event (same id) again; the delivery log shows every attempt; a secret
 * rotation signs with both secrets; and targets that would turn the Hub into an SSRF tool are refused.
 */

/** The operator's two secrets during a rotation: one in Standard Webhooks' whsec_ form, one plain string (signs with its bytes). */
const HUB_SECRETS = [`whsec_${Buffer.alloc(32, 3).toString('base64')}`, 'hub-webhook-secret-previous-0123456789abcde'];

const ANA = 'ana@acme.example';
const sb = useTestSandbox();
let hub: TestHub;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
  hub = await buildTestHub({
    env: sandboxHubEnv(sb, {
      HUB_WEBHOOK_URL: `${receiver.url}/hub`,
      HUB_WEBHOOK_SECRETS: HUB_SECRETS.join(','),
      HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
      HUB_WEBHOOK_RETRY_BASE_MS: '50',
      HUB_WEBHOOK_POLL_MS: '25',
    }),
  });
});
afterAll(async () => {
  await hub.close();
  await receiver.close();
});
beforeEach(async () => {
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
  await sb.control('PUT', '/consent', { mode: 'auto', account: ANA });
});

const api = () => client(hub.app);
/** The events received for a customer at a path, once `n` of them arrived (waits for the dispatcher). */
const eventsFor = (customerId: string, path: string, n: number) => receivedFor(receiver, hub, customerId, path, n);
/** Whether Standard Webhooks' reference library verifies the delivery with one of the secrets. */
const verified = (r: Received, secrets: string[], body = r.body) =>
  secrets.some((secret) => {
    try {
      (secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' })).verify(body, r.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  });

describe('events and signatures', () => {
  test('when a connection is made, expires and is removed, then each arrives signed, verifiable with either secret, with status and setup_url', async () => {
    const customerId = randomUUID();
    await connectThroughGoogle(hub, connectLinkFor({ customerId, integration: 'google_calendar' }));
    await sb.control('POST', `/accounts/${ANA}/revoke`);
    await sb.control('POST', `/accounts/${ANA}/expire-tokens`);
    const call = await runTool(hub, { customerId, userId: null }, 'test_calendar_timezone', {});
    expect(call.body.error.code).toBe('INTEGRATION_EXPIRED');
    await api().delete(`/api/admin/customers/${customerId}/integrations/google_calendar`).set('Authorization', asAdmin()).expect(200);

    const got = await eventsFor(customerId, '/hub', 3);
    const events = got.map((r) => JSON.parse(r.body));
    expect(events.map((e) => [e.type, e.data.status])).toEqual([
      ['connection.connected', 'connected'],
      ['connection.expired', 'expired'],
      ['connection.disconnected', 'not_connected'],
    ]);
    expect(events[1].data.reason).toBe('revoked'); // Google's refusal says no more than invalid_grant
    for (const e of events) {
      expect(e).toMatchObject({
        id: expect.any(String),
        created_at: expect.any(String),
        data: { customer_id: customerId, user_id: null, integration: 'google_calendar', account_email: ANA },
      });
      expect(e.data.setup_url).toMatch(/^https:\/\/hub\.test\.example\/integrations\/google\/connect\?token=/);
    }
    for (const r of got) {
      expect(r.headers['webhook-id']).toBe(JSON.parse(r.body).id);
      expect(verified(r, [HUB_SECRETS[0]!])).toBe(true);
      expect(verified(r, [HUB_SECRETS[1]!])).toBe(true);
      expect(verified(r, ['some-other-secret-0123456789abcdef0123'])).toBe(false);
      expect(verified(r, HUB_SECRETS, r.body.replace('google_calendar', 'google_gmail'))).toBe(false);
      expect(await verifyWebhook(r.body, r.headers, HUB_SECRETS)).toMatchObject({ ok: true, id: JSON.parse(r.body).id });
      expect(await verifyWebhook(r.body.replace('google_calendar', 'google_gmail'), r.headers, HUB_SECRETS)).toEqual({
        ok: false,
        problem: 'mismatch',
      });
    }
    const stale = await verifyWebhook(got[0]!.body, got[0]!.headers, HUB_SECRETS, { nowS: Math.floor(Date.now() / 1000) + 3600 });
    expect(stale).toEqual({ ok: false, problem: 'stale' });
  });

  test('when the person grants fewer scopes than asked, then connection.insufficient_scopes names the missing ones', async () => {
    await sb.control('PUT', '/consent', { mode: 'auto', account: ANA, grant: ['https://www.googleapis.com/auth/calendar.readonly'] });
    const customerId = randomUUID();
    const journey = await openConnectLink(hub, connectLinkFor({ customerId, integration: 'google_calendar' }));
    await backToHub(hub, journey).expect(200);
    const [r] = await eventsFor(customerId, '/hub', 1);
    expect(JSON.parse(r!.body)).toMatchObject({
      type: 'connection.insufficient_scopes',
      data: { status: 'insufficient_scopes', missing_scopes: ['calendar.events'] },
    });
  });
});

describe('the outbox', () => {
  const outbox = async (customerId: string) =>
    (
      await hub.testDb.db.query<{ event_type: string }>(`SELECT event_type FROM webhook_outbox WHERE customer_id = $1 AND target = 'hub' ORDER BY id`, [
        customerId,
      ])
    ).map((r) => r.event_type);

  test('when a connection change is answered, then its webhook is already in the outbox: written in the same transaction as the change, not after it', async () => {
    const customerId = randomUUID();
    await connectThroughGoogle(hub, connectLinkFor({ customerId, integration: 'google_calendar' }));
    expect(await outbox(customerId)).toEqual(['connection.connected']);
    await sb.control('POST', `/accounts/${ANA}/revoke`);
    await sb.control('POST', `/accounts/${ANA}/expire-tokens`);
    expect((await runTool(hub, { customerId, userId: null }, 'test_calendar_timezone', {})).body.error.code).toBe('INTEGRATION_EXPIRED');
    expect(await outbox(customerId)).toEqual(['connection.connected', 'connection.expired']);
    await api().delete(`/api/admin/customers/${customerId}/integrations/google_calendar`).set('Authorization', asAdmin()).expect(200);
    expect(await outbox(customerId)).toEqual(['connection.connected', 'connection.expired', 'connection.disconnected']);
  });
});

describe('delivery', () => {
  test('when the receiver answers 500, then the same event is delivered again and the delivery log shows both attempts', async () => {
    const customerId = randomUUID();
    receiver.statuses.set(customerId, [500]); // this customer's first delivery only
    await connectThroughGoogle(hub, connectLinkFor({ customerId, integration: 'google_calendar' }));
    const got = await eventsFor(customerId, '/hub', 2);
    expect(got).toHaveLength(2);
    expect(got[0]!.body).toBe(got[1]!.body);
    expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
    let log;
    for (let i = 0; i < 40; i++) {
      log = (await api().get(`/api/admin/customers/${customerId}/webhook-deliveries`).set('Authorization', asAdmin()).expect(200)).body;
      if (log.deliveries[0]?.state === 'delivered') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ type: 'connection.connected', target: 'hub', state: 'delivered', attempts: 2 });
    expect(log.deliveries[0].log.map((a: { status: number }) => a.status)).toEqual([500, 200]);
    expect(log.deliveries[0].log[0].error).toBe('HTTP 500');
  });

  test('when a customer sets its own endpoint, then it gets its events signed with its own secret, sees only its own deliveries, and a rotation signs with both secrets', async () => {
    const customerId = randomUUID();
    const put = await api()
      .put(`/api/admin/customers/${customerId}/webhook`)
      .set('Authorization', asCustomer(customerId, { claims: { sub: 'carol@customer.example' } }))
      .send({ url: `${receiver.url}/customer` })
      .expect(201);
    const secret = put.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(put.body.updated_by).toBe('carol@customer.example');
    const again = await api()
      .put(`/api/admin/customers/${customerId}/webhook`)
      .set('Authorization', asAdmin())
      .send({ url: `${receiver.url}/customer` })
      .expect(200);
    expect(again.body.secret).toBeUndefined();

    await connectThroughGoogle(hub, connectLinkFor({ customerId, integration: 'google_calendar' }));
    const [own] = await eventsFor(customerId, '/customer', 1);
    expect(verified(own!, [secret])).toBe(true);
    expect(verified(own!, HUB_SECRETS)).toBe(false);
    await eventsFor(customerId, '/hub', 1);

    const rotated = await api().post(`/api/admin/customers/${customerId}/webhook/rotate-secret`).set('Authorization', asCustomer(customerId)).expect(200);
    expect(rotated.body.secret).not.toBe(secret);
    expect(rotated.body.previous_secret_valid_until).not.toBeNull();
    await api().delete(`/api/admin/customers/${customerId}/integrations/google_calendar`).set('Authorization', asAdmin()).expect(200);
    const afterRotation = (await eventsFor(customerId, '/customer', 2))[1]!;
    expect(verified(afterRotation, [secret])).toBe(true);
    expect(verified(afterRotation, [rotated.body.secret])).toBe(true);

    await hub.webhooks.deliverDue();
    const seenByCustomer = (await api().get(`/api/admin/customers/${customerId}/webhook-deliveries`).set('Authorization', asCustomer(customerId)).expect(200))
      .body;
    expect(seenByCustomer.deliveries.every((d: { target: string }) => d.target === 'customer')).toBe(true);
    const seenByAdmin = (await api().get(`/api/admin/customers/${customerId}/webhook-deliveries`).set('Authorization', asAdmin()).expect(200)).body;
    expect(new Set(seenByAdmin.deliveries.map((d: { target: string }) => d.target))).toEqual(new Set(['hub', 'customer']));
    await api().get(`/api/admin/customers/${customerId}/webhook-deliveries`).set('Authorization', asCustomer(randomUUID())).expect(403);
    expect((await api().get(`/api/admin/customers/${customerId}/webhook`).set('Authorization', asAdmin()).expect(200)).body.url).toBe(
      `${receiver.url}/customer`,
    );
    expect((await api().delete(`/api/admin/customers/${customerId}/webhook`).set('Authorization', asAdmin()).expect(200)).body.deleted).toBe(true);
    await api().get(`/api/admin/customers/${customerId}/webhook`).set('Authorization', asAdmin()).expect(404);
  });
});

describe('not an SSRF tool', () => {
  let strict: TestHub;
  beforeAll(async () => {
    strict = await buildTestHub();
  });
  afterAll(() => strict.close());

  test.each([
    ['plain http', 'http://hooks.example.com/in'],
    ['loopback', 'https://127.0.0.1/in'],
    ['loopback by name', 'https://localhost:8443/in'],
    ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data/'],
    ['a private network', 'https://10.1.2.3/in'],
    ['IPv6 loopback', 'https://[::1]/in'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in'],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/in'],
    ['not a URL', 'hooks'],
  ])('when the URL is %s, then it is refused with VALIDATION_ERROR', async (_what, url) => {
    const customerId = randomUUID();
    const res = await client(strict.app).put(`/api/admin/customers/${customerId}/webhook`).set('Authorization', asAdmin()).send({ url }).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(await strict.testDb.db.query('SELECT 1 FROM webhook_endpoints WHERE customer_id = $1', [customerId])).toEqual([]);
  });

  test('when HUB_WEBHOOK_URL points at a private address or lacks a secret, then the configuration is refused', () => {
    expect(() => loadConfig(testEnv({ HUB_WEBHOOK_URL: 'https://192.168.1.10/hook', HUB_WEBHOOK_SECRETS: HUB_SECRETS[0] }))).toThrow(
      /HUB_WEBHOOK_URL: points to a private/,
    );
    expect(() => loadConfig(testEnv({ HUB_WEBHOOK_URL: 'https://hooks.example.com/hook' }))).toThrow(/HUB_WEBHOOK_SECRETS: required/);
  });
});
