import { randomUUID } from 'node:crypto';
import { connectToSandbox, runTool, sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { aSetupUrl } from '../helpers/links';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { SCOPES, TEST_CLIENT, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * A tool calling Google through the Hub's upstream layer, end to end: the Hub (pointed at the sandbox by
 * configuration), the sandbox's fault injection, and the contract's envelope the agent sees. Each test uses
 * accounts of its own: cool-downs and circuits are per account and per connection.
 */

let sb: TestSandbox;
let hub: TestHub;

const HUB_ENV = {
  HUB_GOOGLE_RETRY_BASE_MS: '10',
  HUB_GOOGLE_RETRY_MAX_MS: '50',
  HUB_GOOGLE_MAX_RETRIES: '2',
  HUB_GOOGLE_TIMEOUT_MS: '500',
  HUB_TOOL_DEADLINE_MS: '3000',
  HUB_BREAKER_FAILURES: '3',
  HUB_BREAKER_HALF_OPEN_MS: '60000',
};

beforeAll(async () => {
  sb = await startTestSandbox();
  hub = await buildTestHub({
    env: {
      HUB_GOOGLE_SANDBOX_URL: sb.url,
      // The Hub's OAuth client: a 401 makes the Hub try one refresh, which only a registered client may do.
      HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
      HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
      ...HUB_ENV,
    },
  });
});
afterAll(async () => {
  sb.expectFaithful();
  await hub.close();
  await sb.close();
});
afterEach(() => sb.control('DELETE', '/faults'));

const accounts = new Map<string, string>();

/** A customer connected (Calendar) to a sandbox account of its own. */
async function connectedCustomer(on: TestHub = hub): Promise<string> {
  const email = `${randomUUID().slice(0, 8)}@acme.example`;
  await sb.createAccount({ email, time_zone: 'Europe/Madrid' });
  const customerId = randomUUID();
  const accessToken = await sb.token(email, [SCOPES.calendarReadonly]);
  await on.store.save(aCredential({ customerId, accountEmail: email, accessToken, scopes: [SCOPES.calendarReadonly] }));
  accounts.set(customerId, email);
  return customerId;
}

const timezone = (customerId: string, on: TestHub = hub) =>
  client(on.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({ tool: 'test_calendar_timezone', agent_id: randomUUID(), customer_id: customerId, inputs: {} });

const requestsTo = async (operation: string) =>
  ((await sb.control('GET', '/requests')).body.requests as { operation: string }[]).filter((r) => r.operation === operation).length;

test('when Google answers, then the tool result comes back with one api call', async () => {
  const res = await timezone(await connectedCustomer()).expect(200);
  expect(res.body.result).toEqual({ time_zone: 'Europe/Madrid' });
  expect(res.body.metadata.api_calls).toBe(1);
});

test('when Google fails twice with 503, then the Hub retries and succeeds, counting three api calls', async () => {
  const customer = await connectedCustomer();
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'unavailable', times: 2 });
  const res = await timezone(customer).expect(200);
  expect(res.body.metadata.api_calls).toBe(3);
});

test("when Google keeps failing with 500, then EXTERNAL_API_ERROR carries Google's reason (backendError) as for a 4xx", async () => {
  const customer = await connectedCustomer();
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'backendError' });
  const res = await timezone(customer).expect(502);
  expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 500, reason: 'backendError' } });
});

test("when Google asks to wait longer than the deadline, then RATE_LIMITED scope upstream with Google's wait at once, and the account cools down until then", async () => {
  const customer = await connectedCustomer();
  const other = await connectedCustomer();
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'tooManyRequests', retry_after_s: 30, times: 1 });
  const started = Date.now();
  const res = await timezone(customer).expect(429);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_s: 30, details: { scope: 'upstream' } });
  expect(res.headers['retry-after']).toBe('30');
  expect(res.body.metadata.api_calls).toBe(1);

  // Google is no longer refusing, but the Hub keeps its word for the account: answered here, no request.
  const before = await requestsTo('calendar.settings.get');
  const again = await timezone(customer).expect(429);
  expect(again.body.error).toMatchObject({
    code: 'RATE_LIMITED',
    retryable: true,
    details: { scope: 'upstream', reason: 'rateLimitExceeded', cooldown_until: expect.any(String) },
  });
  expect(again.body.error.retry_after_s).toBeGreaterThan(25);
  expect(again.body.error.retry_after_s).toBeLessThanOrEqual(30);
  expect(again.body.metadata.api_calls).toBe(0);
  expect(await requestsTo('calendar.settings.get')).toBe(before);
  // Another account is not affected.
  await timezone(other).expect(200);
});

test('when the token is revoked at Google, then INTEGRATION_EXPIRED (the one refresh attempt is refused too)', async () => {
  const customer = await connectedCustomer();
  await sb.control('POST', `/accounts/${accounts.get(customer)}/revoke`);
  const res = await timezone(customer).expect(401);
  expect(res.body.error).toMatchObject({
    code: 'INTEGRATION_EXPIRED',
    details: { integration: 'google_calendar', setup_url: aSetupUrl(customer, 'google_calendar') },
  });
});

describe('circuit breakers', () => {
  test("when one customer's message always answers 500, then only that connection's circuit opens (each call once, retries included); another customer's Gmail still works", async () => {
    await sb.createAccount({ email: 'poison@acme.example', messages: [{ from: 'x@example.com', to: ['poison@acme.example'], subject: 'bad', text: 'b' }] });
    await sb.createAccount({ email: 'fine@acme.example', messages: [{ from: 'x@example.com', to: ['fine@acme.example'], subject: 'ok', text: 'o' }] });
    const poisoned = await connectToSandbox(hub, sb, { email: 'poison@acme.example', integration: 'google_gmail' });
    const fine = await connectToSandbox(hub, sb, { email: 'fine@acme.example', integration: 'google_gmail' });
    const badId = [...sb.world.gmail.mailboxes.get('poison@acme.example')!.messages.keys()][0]!;
    const goodId = [...sb.world.gmail.mailboxes.get('fine@acme.example')!.messages.keys()][0]!;
    await sb.control('POST', '/faults', { path: `/gmail/v1/users/me/messages/${badId}`, preset: 'backendError' });

    for (let i = 0; i < 3; i++) {
      const failed = await runTool(hub, poisoned, 'email_read', { message_id: badId }).expect(502);
      expect(failed.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', details: { upstream_status: 500, reason: 'backendError' } });
      expect(failed.body.metadata.api_calls).toBe(3); // one call: its first attempt and two retries
    }
    const requests = await sandboxRequestsFrom(sb);
    const open = await runTool(hub, poisoned, 'email_search', { query: '' }).expect(502);
    expect(open.body.error).toMatchObject({
      code: 'EXTERNAL_API_ERROR',
      retryable: true,
      details: { reason: 'circuit_open', scope: 'connection', integration: 'google_gmail' },
    });
    expect(open.body.error.retry_after_s).toBeGreaterThan(0);
    expect(open.body.metadata.api_calls).toBe(0);
    expect(await requests()).toEqual([]);

    const read = await runTool(hub, fine, 'email_read', { message_id: goodId }).expect(200);
    expect(read.body.result.subject).toBe('ok');
  });

  test('when Google fails for many connections, then the integration-wide circuit opens for every customer, without calling Google', async () => {
    const own = await buildTestHub({
      env: sandboxHubEnv(sb, {
        ...HUB_ENV,
        HUB_GLOBAL_BREAKER_MIN_CALLS: '4',
        HUB_GLOBAL_BREAKER_MIN_CONNECTIONS: '3',
        HUB_GLOBAL_BREAKER_FAILURE_PERCENT: '50',
      }),
    });
    try {
      await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'unavailable' });
      for (let i = 0; i < 4; i++) {
        const res = await timezone(await connectedCustomer(own), own).expect(502);
        expect(res.body.error.details).toMatchObject({ upstream_status: 503 });
      }
      const before = await requestsTo('calendar.settings.get');
      const res = await timezone(await connectedCustomer(own), own).expect(502);
      expect(res.body.error).toMatchObject({
        code: 'EXTERNAL_API_ERROR',
        retryable: true,
        details: { reason: 'circuit_open', scope: 'integration', integration: 'google_calendar' },
      });
      expect(res.body.metadata.api_calls).toBe(0);
      expect(await requestsTo('calendar.settings.get')).toBe(before);
      expect(own.logs.entries().some((e) => e.msg === 'circuit breaker state changed' && e.scope === 'integration' && e.state === 'open')).toBe(true);
    } finally {
      await own.close();
    }
  });
});
