import { randomUUID } from 'node:crypto';
import { verifyWebhook } from '../../packages/client/src/webhooks';
import { asAdmin } from '../helpers/admin';
import { openConnectLink } from '../helpers/connect-journey';
import { runTool } from '../helpers/connected';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { aSetupUrl } from '../helpers/links';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { REDIRECT_URI, connectFlowEnv } from '../helpers/microsoft-oauth';
import { type Received, type WebhookReceiver, eventsFor as receivedFor, startReceiver } from '../helpers/webhook-receiver';

/**
 * Outlook's connections make the same webhooks as Google's, as a customer's back-end receives them: connecting
 * Outlook Calendar through an admin's link, a partial consent, Microsoft refusing the refresh token because the
 * password changed (AADSTS50173) and an admin's disconnect each arrive signed, verified with the typed client's
 * `verifyWebhook`, naming `outlook_calendar`, Microsoft's connect route and Microsoft's reason — never Google.
 */

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

let world: MicrosoftWorld;
let hub: TestHub;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
  world = await startMicrosoftWorld();
  hub = await buildTestHub({
    env: connectFlowEnv(world, {
      HUB_MICROSOFT_TIMEOUT_MS: '5000',
      HUB_WEBHOOK_URL: `${receiver.url}/hub`,
      HUB_WEBHOOK_SECRETS: SECRET,
      HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
      HUB_WEBHOOK_RETRY_BASE_MS: '50',
      HUB_WEBHOOK_POLL_MS: '25',
    }),
  });
});
afterAll(async () => {
  await hub?.close();
  await world?.close();
  await receiver?.close();
});
beforeEach(async () => {
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana });
});

const api = () => client(hub.app);

/** An admin's connect link for Outlook Calendar, opened by the person: the Hub → Microsoft's sign-in → the Hub's callback. */
async function connectOutlookCalendar(customerId: string) {
  const link = await api()
    .post('/api/admin/connect-links')
    .set('Authorization', asAdmin())
    .send({ customer_id: customerId, integration: 'outlook_calendar' })
    .expect(201);
  const journey = await openConnectLink(hub, link.body.url as string);
  expect(journey.atGoogle.status).toBe(302); // Microsoft's answer, named for the helper's first provider
  const back = new URL(journey.atGoogle.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  return await api()
    .get(back.pathname + back.search)
    .set('Cookie', journey.cookie);
}

/** The customer's events, once `n` arrived, each verified with the client library; the parsed events. */
async function verifiedEvents(customerId: string, n: number) {
  const got: Received[] = await receivedFor(receiver, hub, customerId, '/hub', n);
  expect(got).toHaveLength(n);
  const events = [];
  for (const r of got) {
    const verified = await verifyWebhook(r.body, r.headers, SECRET);
    expect(verified).toMatchObject({ ok: true, id: r.headers['webhook-id'] });
    if (!verified.ok) throw new Error(verified.problem);
    expect(await verifyWebhook(r.body.replace('outlook_calendar', 'google_calendar'), r.headers, SECRET)).toEqual({ ok: false, problem: 'mismatch' });
    events.push(verified.event);
  }
  return events;
}

test('when an admin connects Outlook Calendar through the connect flow, then a signed connection.connected names outlook_calendar and a Microsoft setup_url', async () => {
  const customerId = randomUUID();
  const done = await connectOutlookCalendar(customerId);
  expect(done.status).toBe(200);
  const [event] = await verifiedEvents(customerId, 1);
  expect(event).toEqual({
    id: expect.any(String),
    type: 'connection.connected',
    created_at: expect.any(String),
    data: {
      customer_id: customerId,
      user_id: null,
      integration: 'outlook_calendar',
      account_email: DEMO.ana,
      status: 'connected',
      setup_url: aSetupUrl(customerId, 'outlook_calendar'),
    },
  });
  expect(new URL(event!.data.setup_url).pathname).toBe('/integrations/microsoft/connect');
});

test('when the person consents to fewer scopes than Outlook Calendar asks, then connection.insufficient_scopes names the missing one', async () => {
  // Chen has not consented to the Hub before: Microsoft adds earlier consents to a grant, so Ana's would be whole.
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.chen, grant: ['Calendars.ReadWrite', 'User.Read'] });
  const customerId = randomUUID();
  const done = await connectOutlookCalendar(customerId);
  expect(done.status).toBe(200);
  const [event] = await verifiedEvents(customerId, 1);
  expect(event).toMatchObject({
    type: 'connection.insufficient_scopes',
    data: { integration: 'outlook_calendar', status: 'insufficient_scopes', missing_scopes: ['MailboxSettings.Read'] },
  });
});

test("when Microsoft refuses the refresh token because the account's password changed (AADSTS50173), then connection.expired carries the reason password_changed", async () => {
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ben });
  const customerId = randomUUID();
  expect((await connectOutlookCalendar(customerId)).status).toBe(200);
  await world.control('POST', `/accounts/${DEMO.ben}/password-change`);
  // The access token ends too (as after its hour): Graph refuses it, the Hub refreshes, and Microsoft refuses that.
  await world.control('POST', `/accounts/${DEMO.ben}/expire-tokens`);
  await world.control('POST', '/clock/advance', { seconds: 1 });
  const call = await runTool(hub, { customerId, userId: null }, 'test_calendar_timezone', {});
  expect(call.body.error).toMatchObject({ code: 'INTEGRATION_EXPIRED', details: { reason: 'password_changed', integration: 'outlook_calendar' } });

  const events = await verifiedEvents(customerId, 2);
  expect(events.map((e) => [e.type, e.data.integration, e.data.status])).toEqual([
    ['connection.connected', 'outlook_calendar', 'connected'],
    ['connection.expired', 'outlook_calendar', 'expired'],
  ]);
  expect(events[1]!.data).toMatchObject({ account_email: DEMO.ben, reason: 'password_changed', setup_url: aSetupUrl(customerId, 'outlook_calendar') });
});

test('when an admin disconnects Outlook Calendar, then connection.disconnected arrives and claims no revocation at the vendor', async () => {
  const customerId = randomUUID();
  expect((await connectOutlookCalendar(customerId)).status).toBe(200);
  const gone = await api().delete(`/api/admin/customers/${customerId}/integrations/outlook_calendar`).set('Authorization', asAdmin()).expect(200);
  // Microsoft cannot revoke one app's grant (and Ana's account is connected for the first test's customer too).
  expect(gone.body).toMatchObject({ disconnected: true, revoked_at_vendor: false, revoke_skipped: expect.stringMatching(/^(unsupported|account_in_use)$/) });

  const events = await verifiedEvents(customerId, 2);
  expect(events.map((e) => e.type)).toEqual(['connection.connected', 'connection.disconnected']);
  // Nothing was revoked at Microsoft: the event claims no revocation, only that the Hub forgot the connection.
  expect(events[1]!.data).toEqual({
    customer_id: customerId,
    user_id: null,
    integration: 'outlook_calendar',
    account_email: DEMO.ana,
    status: 'not_connected',
    setup_url: aSetupUrl(customerId, 'outlook_calendar'),
  });
});
