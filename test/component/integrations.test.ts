import { randomUUID } from 'node:crypto';
import { googleScope } from '../../src/integrations/catalog';
import { aSetupUrl } from '../helpers/links';
import { aCredential, anExecuteBody, GMAIL_SCOPES } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { unreachableDb } from '../helpers/db';
import { buildTestHub, type TestHub } from '../helpers/hub';

const setupUrl = (customerId: string, integration: string, userId?: string) => aSetupUrl(customerId, integration, userId ?? null);

describe('integrations', () => {
  let hub: TestHub;
  const status = (customerId: string, query = '') =>
    client(hub.app).get(`/api/internal/integrations/status/${customerId}/${query}`).set('Authorization', serviceAuth());
  const probe = (customerId: string, userId: string | null = null) =>
    client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send(anExecuteBody({ tool: 'test_calendar_probe', customer_id: customerId, user_id: userId, inputs: {} }));

  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  describe('GET /api/internal/integrations/status/{customer_id}/', () => {
    it('when nothing is connected, then every integration says not_connected with a setup_url', async () => {
      const customerId = randomUUID();
      const res = await status(customerId).expect(200);
      const notConnected = (integration: string) => ({
        connected: false,
        status: 'not_connected',
        tools_available: [],
        setup_url: setupUrl(customerId, integration),
      });
      expect(res.body).toEqual({
        customer_id: customerId,
        user_id: null,
        capabilities: { calendar: { resolves_to: null }, mail: { resolves_to: null } },
        integrations: {
          google_calendar: notConnected('google_calendar'),
          google_gmail: notConnected('google_gmail'),
          outlook_calendar: notConnected('outlook_calendar'),
          outlook_mail: notConnected('outlook_mail'),
        },
      });
    });

    it('when calendar is connected, then it shows the contract fields, short scopes and the usable tools', async () => {
      const input = aCredential({ tokenExpiresAt: new Date('2030-02-15T00:00:00Z'), lastRefreshedAt: new Date('2030-02-14T23:00:00Z') });
      await hub.store.save(input);
      const res = await status(input.customerId).expect(200);
      expect(res.body.integrations.google_calendar).toEqual({
        connected: true,
        status: 'connected',
        source: 'customer',
        scopes: ['calendar.readonly', 'calendar.events'],
        email: 'owner@example.com',
        expires_at: '2030-02-15T00:00:00.000Z',
        last_refreshed_at: '2030-02-14T23:00:00.000Z',
        // The access token expires in an hour and is refreshed by the Hub; the grant ends after 180 days unused.
        grant: { expires_at: '2030-08-13T23:00:00.000Z', health: 'ok', reason: null },
        tools_available: [
          'calendar_create_event',
          'calendar_delete_event',
          'calendar_find_optimal_times',
          'calendar_get_availability',
          'calendar_list_calendars',
          'calendar_update_event',
          'hub_current_time',
          'test_calendar_probe',
          'test_calendar_timezone',
          'test_leaky',
        ],
      });
      expect(res.body.integrations.google_gmail.status).toBe('not_connected');
    });

    it('when a grant lacks requested scopes, then status is insufficient_scopes with the tools still usable', async () => {
      const input = aCredential({ scopes: [googleScope('calendar.readonly')] });
      await hub.store.save(input);
      const res = await status(input.customerId).expect(200);
      expect(res.body.integrations.google_calendar).toMatchObject({
        connected: true,
        status: 'insufficient_scopes',
        scopes: ['calendar.readonly'],
        tools_available: [
          'calendar_find_optimal_times',
          'calendar_get_availability',
          'calendar_list_calendars',
          'hub_current_time',
          'test_calendar_timezone',
          'test_leaky',
        ],
        setup_url: setupUrl(input.customerId, 'google_calendar'),
      });
    });

    it('when a broader scope was granted, then it counts for the narrower ones it implies', async () => {
      const input = aCredential({ scopes: [googleScope('calendar')] });
      await hub.store.save(input);
      const res = await status(input.customerId).expect(200);
      expect(res.body.integrations.google_calendar).toMatchObject({
        status: 'connected',
        tools_available: [
          'calendar_create_event',
          'calendar_delete_event',
          'calendar_find_optimal_times',
          'calendar_get_availability',
          'calendar_list_calendars',
          'calendar_update_event',
          'hub_current_time',
          'test_calendar_probe',
          'test_calendar_timezone',
          'test_leaky',
        ],
      });
    });

    it('when the grant expired, then connected is false, status expired, and a setup_url to reconnect', async () => {
      const saved = await hub.store.save(aCredential({ integration: 'google_gmail', scopes: GMAIL_SCOPES }));
      await hub.store.markExpired(saved.id, 'invalid_grant');
      const res = await status(saved.customerId).expect(200);
      expect(res.body.integrations.google_gmail).toMatchObject({
        connected: false,
        status: 'expired',
        tools_available: [],
        setup_url: setupUrl(saved.customerId, 'google_gmail'),
      });
    });

    it('when asked for a user, then that user’s own connection answers, else the customer-wide one', async () => {
      const customerId = randomUUID();
      await hub.store.save(aCredential({ customerId, accountEmail: 'team@example.com' }));
      await hub.store.save(aCredential({ customerId, userId: 'alice', accountEmail: 'alice@example.com' }));
      const alice = await status(customerId, '?user_id=alice').expect(200);
      expect(alice.body.user_id).toBe('alice');
      expect(alice.body.integrations.google_calendar).toMatchObject({ source: 'user', email: 'alice@example.com' });
      expect(alice.body.integrations.google_gmail.setup_url).toEqual(setupUrl(customerId, 'google_gmail', 'alice'));
      const bob = await status(customerId, '?user_id=bob').expect(200);
      expect(bob.body.integrations.google_calendar).toMatchObject({ source: 'customer', email: 'team@example.com' });
    });

    it("when customer B asks, then customer A's connections are never shown", async () => {
      const a = aCredential();
      await hub.store.save(a);
      await hub.store.save(aCredential({ customerId: a.customerId, userId: 'shared' }));
      const b = randomUUID();
      const res = await status(b, '?user_id=shared').expect(200);
      expect(res.body.integrations.google_calendar.status).toBe('not_connected');
      expect(JSON.stringify(res.body)).not.toContain(a.customerId);
    });

    it('when the customer id is upper-case, then it is normalised', async () => {
      const input = aCredential();
      await hub.store.save(input);
      const res = await status(input.customerId.toUpperCase()).expect(200);
      expect(res.body.customer_id).toBe(input.customerId);
      expect(res.body.integrations.google_calendar.connected).toBe(true);
    });

    it.each([
      ['a non-uuid customer id', 'not-a-uuid/', [{ path: 'customer_id', message: 'must be a UUID' }]],
      ['an empty user_id', `${randomUUID()}/?user_id=`, [{ path: 'query.user_id', message: 'Too small: expected string to have >=1 characters' }]],
      ['a repeated user_id', `${randomUUID()}/?user_id=a&user_id=b`, [{ path: 'query.user_id', message: 'Invalid input: expected string, received array' }]],
      ['an unknown query parameter', `${randomUUID()}/?userId=a`, [{ path: 'query.userId', message: 'unknown field' }]],
      ['an undecodable %-escape', '%E0%A4%A/', [{ path: '(root)', message: 'malformed request (for example an invalid %-escape in the URL)' }]],
    ])('when given %s, then 400 VALIDATION_ERROR', async (_case, suffix, issues) => {
      const res = await client(hub.app).get(`/api/internal/integrations/status/${suffix}`).set('Authorization', serviceAuth()).expect(400);
      expect(res.body).toMatchObject({ success: false, tool: null, error: { code: 'VALIDATION_ERROR', details: { issues } } });
    });

    it('when tokens are stored, then no token ever appears in the answer', async () => {
      const input = aCredential();
      await hub.store.save(input);
      const res = await status(input.customerId).expect(200);
      expect(res.text).not.toContain(input.accessToken);
      expect(res.text).not.toContain(input.refreshToken!);
    });
  });

  describe('a tool that needs Google Calendar', () => {
    it('when the customer has not connected it, then 400 INTEGRATION_NOT_CONNECTED with integration and setup_url', async () => {
      const customerId = randomUUID();
      const res = await probe(customerId).expect(400);
      expect(res.body).toEqual({
        success: false,
        tool: 'test_calendar_probe',
        error: {
          code: 'INTEGRATION_NOT_CONNECTED',
          message: 'Neither Google Calendar nor Outlook Calendar is connected for this customer',
          // Every integration that would do; the first one's setup_url, as before Outlook.
          details: {
            integration: 'google_calendar',
            integrations: ['google_calendar', 'outlook_calendar'],
            setup_url: setupUrl(customerId, 'google_calendar'),
          },
          retryable: false,
        },
        metadata: { execution_time_ms: expect.any(Number), api_calls: 0, request_id: expect.any(String), tool_version: '1.0.0' },
      });
    });

    it('when the grant expired, then 401 INTEGRATION_EXPIRED with a setup_url', async () => {
      const saved = await hub.store.save(aCredential());
      await hub.store.markExpired(saved.id, 'invalid_grant');
      const res = await probe(saved.customerId).expect(401);
      expect(res.body.error).toEqual({
        code: 'INTEGRATION_EXPIRED',
        message: 'Google Calendar access has expired or was revoked; it must be connected again',
        details: { integration: 'google_calendar', setup_url: setupUrl(saved.customerId, 'google_calendar') },
        retryable: false,
      });
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('when the grant lacks the tool’s scope, then 403 INTEGRATION_PERMISSION_DENIED before any call is made', async () => {
      const input = aCredential({ scopes: [googleScope('calendar.readonly')] });
      await hub.store.save(input);
      const res = await probe(input.customerId).expect(403);
      expect(res.body.error).toEqual({
        code: 'INTEGRATION_PERMISSION_DENIED',
        message: 'Google Calendar was connected without the permissions test_calendar_probe needs',
        details: {
          integration: 'google_calendar',
          required_scopes: ['calendar.events'],
          granted_scopes: ['calendar.readonly'],
          missing_scopes: ['calendar.events'],
          setup_url: setupUrl(input.customerId, 'google_calendar'),
        },
        retryable: false,
      });
      expect(res.body.metadata.api_calls).toBe(0);
    });

    it('when connected, then the tool runs with the resolved connection; a user row takes precedence', async () => {
      const customerId = randomUUID();
      await hub.store.save(aCredential({ customerId, accountEmail: 'team@example.com' }));
      await hub.store.save(aCredential({ customerId, userId: 'alice', accountEmail: 'alice@example.com' }));
      const team = await probe(customerId).expect(200);
      expect(team.body.result).toMatchObject({ email: 'team@example.com', source: 'customer' });
      expect(team.body.metadata.api_calls).toBe(1);
      const alice = await probe(customerId, 'alice').expect(200);
      expect(alice.body.result).toMatchObject({ email: 'alice@example.com', source: 'user' });
      const carol = await probe(customerId, 'carol').expect(200);
      expect(carol.body.result.email).toBe('team@example.com');
    });

    it("when customer B calls with the same user id as A's user, then A's connection is not used", async () => {
      const a = aCredential({ userId: 'same-user' });
      await hub.store.save(a);
      const other = randomUUID();
      const res = await probe(other, 'same-user').expect(400);
      expect(res.body.error.code).toBe('INTEGRATION_NOT_CONNECTED');
      expect(res.body.error.message).toBe('Neither Google Calendar nor Outlook Calendar is connected for this user or customer');
      expect(res.body.error.details.setup_url).toEqual(setupUrl(other, 'google_calendar', 'same-user'));
    });
  });

  describe('when the credential store fails with a bug (not an outage)', () => {
    it('then 500 INTERNAL_ERROR without internals, logged with the request id', async () => {
      const bug = Object.assign(new Error('column "secret_sauce" does not exist'), { code: '42703' });
      const broken = {
        kind: 'postgres' as const,
        query: () => Promise.reject(bug),
        exec: () => Promise.reject(bug),
        transaction: () => Promise.reject(bug),
        ping: async () => {},
        close: async () => {},
      };
      const hubWithBug = await buildTestHub({ db: broken });
      const res = await client(hubWithBug.app)
        .get(`/api/internal/integrations/status/${randomUUID()}/`)
        .set('Authorization', serviceAuth())
        .set('X-Request-Id', 'bug-1')
        .expect(500);
      expect(res.body.error).toEqual({
        code: 'INTERNAL_ERROR',
        message: 'Internal error; it has been logged with this request_id',
        retryable: false,
      });
      expect(res.text).not.toContain('secret_sauce');
      expect(hubWithBug.logs.entries().find((e) => e.msg === 'unhandled error')).toMatchObject({
        request_id: 'bug-1',
        req_id: expect.any(String),
        err: { message: 'column "secret_sauce" does not exist', code: '42703' },
      });
      await hubWithBug.close();
    });
  });

  describe('when the credential store is down', () => {
    it('then credential-needing calls get 503 SERVICE_UNAVAILABLE (retryable), the rest still work', async () => {
      const down = await buildTestHub({ db: unreachableDb() });
      const res = await client(down.app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .send(anExecuteBody({ tool: 'test_calendar_probe', inputs: {} }))
        .expect(503);
      expect(res.body.error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The Hub cannot reach its credential store right now; retry shortly',
        retryable: true,
        retry_after_s: 2,
      });
      expect(res.headers['retry-after']).toBe('2');
      await client(down.app).get(`/api/internal/integrations/status/${randomUUID()}/`).set('Authorization', serviceAuth()).expect(503);
      await client(down.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200);
      await down.close();
    });
  });
});
