import { randomUUID } from 'node:crypto';
import { aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { aSetupUrl } from '../helpers/links';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { SCOPES, TEST_CLIENT, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * A tool calling Google through the Hub's upstream layer, end to end: the Hub (pointed at the sandbox by
 * configuration), the sandbox's fault injection, and the contract's envelope the agent sees.
 */

const ANA = 'ana@acme.example';
let sb: TestSandbox;
let hub: TestHub;

beforeAll(async () => {
  sb = await startTestSandbox();
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
  hub = await buildTestHub({
    env: {
      HUB_GOOGLE_SANDBOX_URL: sb.url,
      // The Hub's OAuth client: a 401 makes the Hub try one refresh, which only a registered client may do.
      HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
      HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
      HUB_GOOGLE_RETRY_BASE_MS: '10',
      HUB_GOOGLE_RETRY_MAX_MS: '50',
      HUB_GOOGLE_MAX_RETRIES: '2',
      HUB_GOOGLE_TIMEOUT_MS: '500',
      HUB_TOOL_DEADLINE_MS: '3000',
      HUB_BREAKER_FAILURES: '3',
      HUB_BREAKER_HALF_OPEN_MS: '60000',
    },
  });
});
afterAll(async () => {
  sb.expectFaithful();
  await hub.close();
  await sb.close();
});
afterEach(() => sb.control('DELETE', '/faults'));

async function connectedCustomer(): Promise<string> {
  const customerId = randomUUID();
  const accessToken = await sb.token(ANA, [SCOPES.calendarReadonly]);
  await hub.store.save(aCredential({ customerId, accountEmail: ANA, accessToken, scopes: [SCOPES.calendarReadonly] }));
  return customerId;
}

const timezone = (customerId: string) =>
  client(hub.app)
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

test('when Google asks to wait longer than the deadline, then RATE_LIMITED scope upstream with Google\'s wait, at once', async () => {
  const customer = await connectedCustomer();
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'tooManyRequests', retry_after_s: 30 });
  const started = Date.now();
  const res = await timezone(customer).expect(429);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_s: 30, details: { scope: 'upstream' } });
  expect(res.headers['retry-after']).toBe('30');
  expect(res.body.metadata.api_calls).toBe(1);
});

test('when the token is revoked at Google, then INTEGRATION_EXPIRED (the one refresh attempt is refused too)', async () => {
  const customer = await connectedCustomer();
  await sb.control('POST', `/accounts/${ANA}/revoke`);
  const res = await timezone(customer).expect(401);
  expect(res.body.error).toMatchObject({ code: 'INTEGRATION_EXPIRED', details: { integration: 'google_calendar', setup_url: aSetupUrl(customer, 'google_calendar') } });
});

test('when Google keeps failing, then each call gives up after its retries, and the circuit then opens and fails fast without calling Google', async () => {
  const customer = await connectedCustomer();
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'backendError' });
  const first = await timezone(customer).expect(502);
  expect(first.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true });
  expect(first.body.metadata.api_calls).toBe(3);
  // 3 consecutive upstream failures open the circuit: the second call's first or second attempt trips it.
  await timezone(customer);
  const before = await requestsTo('calendar.settings.get');
  const open = await timezone(customer).expect(502);
  expect(open.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'circuit_open' } });
  expect(open.body.error.retry_after_s).toBeGreaterThan(0);
  expect(open.body.metadata.api_calls).toBe(0);
  expect(await requestsTo('calendar.settings.get')).toBe(before);
});
