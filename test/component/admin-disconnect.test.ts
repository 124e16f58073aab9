import { randomBytes, randomUUID } from 'node:crypto';
import { mintOfflineGrant } from '@hub/google-sandbox';
import type { IntegrationId } from '../../src/core/integrations';
import { createCredentialStore } from '../../src/store/credential-store';
import { createTokenCipher } from '../../src/store/token-cipher';
import { asAdmin, asCustomer } from '../helpers/admin';
import { aCredential, CALENDAR_SCOPES, GMAIL_SCOPES } from '../helpers/factories';
import { client } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';
import { startTestSandbox, TEST_CLIENT, type TestSandbox } from '../helpers/sandbox';

/** DELETE /api/admin/customers/{customer_id}/integrations/{integration} against the Google sandbox. */

const ANA = 'ana@example.com';
const TIMEOUT_MS = 500;

describe('admin API: disconnecting an integration', () => {
  let sb: TestSandbox;
  let hub: TestHub;
  /** Every token a test stored, and every answer the Hub gave: no answer and no log line may hold a token. */
  const tokens: string[] = [];
  const answers: string[] = [];

  const disconnect = (customerId: string, integration: string, query = '', authorization = asAdmin()) =>
    client(hub.app)
      .delete(`/api/admin/customers/${customerId}/integrations/${integration}${query}`)
      .set('Authorization', authorization)
      .expect((res) => {
        answers.push(res.text);
      });
  /** A connection whose tokens are a real offline grant in the sandbox (access + refresh token). */
  const connectReal = async (
    overrides: { customerId?: string; userId?: string | null; integration?: 'google_calendar' | 'google_gmail'; email?: string } = {},
  ) => {
    const integration = overrides.integration ?? 'google_calendar';
    const scopes = integration === 'google_calendar' ? CALENDAR_SCOPES : GMAIL_SCOPES;
    // A Google account of its own per connection unless told otherwise: Google revokes per account (see below).
    const email = overrides.email ?? `ana-${randomBytes(4).toString('hex')}@example.com`;
    if (!overrides.email) await sb.createAccount({ email });
    const grant = mintOfflineGrant(sb.world, TEST_CLIENT.clientId, email, scopes);
    tokens.push(grant.accessToken, grant.refreshToken);
    const input = aCredential({
      customerId: overrides.customerId ?? randomUUID(),
      userId: overrides.userId ?? null,
      integration,
      accountEmail: email,
      scopes,
      accessToken: grant.accessToken,
      refreshToken: grant.refreshToken,
      tokenExpiresAt: grant.expiresAt,
    });
    await hub.store.save(input);
    return { ...input, grant };
  };
  const tokenWorks = async (accessToken: string) => (await fetch(`${sb.url}/tokeninfo?access_token=${accessToken}`)).status === 200;
  const refreshWorks = async (refreshToken: string) =>
    (
      await fetch(`${sb.url}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: TEST_CLIENT.clientId,
          client_secret: TEST_CLIENT.clientSecret,
        }),
      })
    ).status === 200;
  const stored = (c: { customerId: string; userId: string | null; integration: IntegrationId }) => hub.store.findExact(c.customerId, c.userId, c.integration);

  beforeAll(async () => {
    sb = await startTestSandbox();
    await sb.createAccount({ email: ANA });
    hub = await buildTestHub({
      env: {
        HUB_GOOGLE_SANDBOX_URL: sb.url,
        HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
        HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
        HUB_GOOGLE_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
  });
  afterEach(() => sb.control('DELETE', '/faults'));
  afterAll(async () => {
    await hub.close();
    await sb.close();
  });

  it('when a connected grant is disconnected, then Google revokes it, the row is gone, and a second call finds nothing', async () => {
    const c = await connectReal();
    expect(await tokenWorks(c.grant.accessToken)).toBe(true);

    const res = await disconnect(c.customerId.toUpperCase(), 'google_calendar').expect(200);
    expect(res.body).toEqual({
      customer_id: c.customerId,
      user_id: null,
      integration: 'google_calendar',
      disconnected: true,
      revoked_at_google: true,
      revoked_at_vendor: true,
    });
    expect(await tokenWorks(c.grant.accessToken)).toBe(false);
    expect(await refreshWorks(c.grant.refreshToken)).toBe(false);
    expect(await stored(c)).toBeNull();

    const again = await disconnect(c.customerId, 'google_calendar').expect(200);
    expect(again.body).toMatchObject({ disconnected: false, revoked_at_google: false });
  });

  it('when another connection uses the same Google account, then the grant is kept at Google (revoke_skipped) so that one keeps working', async () => {
    const customerId = randomUUID();
    const calendar = await connectReal({ customerId, integration: 'google_calendar', email: ANA });
    const gmail = await connectReal({ customerId, integration: 'google_gmail', email: ANA });
    const res = await disconnect(customerId, 'google_calendar').expect(200);
    expect(res.body).toMatchObject({ disconnected: true, revoked_at_google: false, revoke_skipped: 'account_in_use' });
    expect(await stored(calendar)).toBeNull();
    expect(await tokenWorks(gmail.grant.accessToken)).toBe(true);
    const last = await disconnect(customerId, 'google_gmail').expect(200);
    expect(last.body).toEqual({
      customer_id: customerId,
      user_id: null,
      integration: 'google_gmail',
      disconnected: true,
      revoked_at_google: true,
      revoked_at_vendor: true,
    });
    expect(await tokenWorks(gmail.grant.accessToken)).toBe(false);
  });

  it("when user_id is given, then only that end user's connection goes, and without it only the customer-wide one", async () => {
    const customerId = randomUUID();
    const wide = await connectReal({ customerId, integration: 'google_gmail' });
    const user = await connectReal({ customerId, userId: 'user-9', integration: 'google_gmail' });
    await hub.store.save(aCredential({ customerId, userId: 'user-10', integration: 'google_gmail' }));

    const res = await disconnect(customerId, 'google_gmail', '?user_id=user-9').expect(200);
    expect(res.body).toMatchObject({ user_id: 'user-9', disconnected: true, revoked_at_google: true, revoked_at_vendor: true });
    expect(await stored(user)).toBeNull();
    expect(await stored(wide)).not.toBeNull();
    expect(await hub.store.findExact(customerId, 'user-10', 'google_gmail')).not.toBeNull();

    // Nothing for user-11: no falling back to the customer-wide connection.
    expect((await disconnect(customerId, 'google_gmail', '?user_id=user-11').expect(200)).body.disconnected).toBe(false);
    expect(await stored(wide)).not.toBeNull();
  });

  it("when the grant was already revoked at Google, then Google's invalid_token counts as revoked and the row is deleted", async () => {
    const c = await connectReal();
    await sb.control('POST', `/accounts/${c.accountEmail}/revoke`);
    const res = await disconnect(c.customerId, 'google_calendar').expect(200);
    expect(res.body).toMatchObject({ disconnected: true, revoked_at_google: true, revoked_at_vendor: true });
    expect(await stored(c)).toBeNull();
  });

  it('when Google fails the revocation (503), then 502 EXTERNAL_API_ERROR retryable, the connection is kept, and a retry succeeds', async () => {
    const c = await connectReal();
    await sb.control('POST', '/faults', { operation: 'oauth.revoke', status: 503, times: 1 });

    const res = await disconnect(c.customerId, 'google_calendar').expect(502);
    expect(res.body.error).toEqual({
      code: 'EXTERNAL_API_ERROR',
      message: 'Google could not revoke the grant right now; the connection was kept — retry the request',
      details: { reason: 'server_error', upstream_status: 503 },
      retryable: true,
    });
    expect(await stored(c)).not.toBeNull();
    expect(await tokenWorks(c.grant.accessToken)).toBe(true);

    await disconnect(c.customerId, 'google_calendar').expect(200);
    expect(await tokenWorks(c.grant.accessToken)).toBe(false);
  });

  it('when Google does not answer in time, then 502 timeout with the row kept; the retry finds the grant dead and deletes it', async () => {
    const c = await connectReal();
    await sb.control('POST', '/faults', { operation: 'oauth.revoke', latency_ms: TIMEOUT_MS * 3, times: 1 });
    const res = await disconnect(c.customerId, 'google_calendar').expect(502); // reason timeout: Google's answer was not waited for
    expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' } });
    expect(await stored(c)).not.toBeNull();

    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 3)); // the slow revocation lands at Google meanwhile
    const retry = await disconnect(c.customerId, 'google_calendar').expect(200);
    expect(retry.body).toMatchObject({ disconnected: true, revoked_at_google: true, revoked_at_vendor: true });
  });

  it('when Google cannot be reached at all, then 502 retryable and the row is kept', async () => {
    const c = await connectReal();
    await sb.control('POST', '/faults', { operation: 'oauth.revoke', drop: true, times: 1 });
    const res = await disconnect(c.customerId, 'google_calendar').expect(502);
    expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true });
    expect(await stored(c)).not.toBeNull();
  });

  it('when the stored tokens cannot be decrypted, then the row is deleted anyway and revoked_at_google is false', async () => {
    const input = aCredential();
    tokens.push(input.accessToken, input.refreshToken!);
    // Same key id, different key: what a lost or wrongly rotated key looks like to the Hub.
    const foreign = createCredentialStore(hub.testDb.db, createTokenCipher([{ id: 'k1', key: randomBytes(32) }]));
    await foreign.save(input);

    const res = await disconnect(input.customerId, 'google_calendar').expect(200);
    expect(res.body).toMatchObject({ disconnected: true, revoked_at_google: false });
    expect(await stored(input)).toBeNull();
    expect(hub.logs.text()).toContain('disconnecting a credential that cannot be decrypted');
  });

  it("when a customer token disconnects its own customer, then 200; another customer's, then 403 and nothing happens", async () => {
    const c = await connectReal();
    const other = await disconnect(c.customerId, 'google_calendar', '', asCustomer(randomUUID())).expect(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    expect(await tokenWorks(c.grant.accessToken)).toBe(true);
    await disconnect(c.customerId, 'google_calendar', '', asCustomer(c.customerId)).expect(200);
  });

  it.each([
    [
      'an unknown integration',
      randomUUID(),
      'google_drive',
      '',
      [{ path: 'integration', message: 'must be one of google_calendar, google_gmail, outlook_calendar, outlook_mail' }],
    ],
    ['a customer id that is not a UUID', 'acme', 'google_calendar', '', [{ path: 'customer_id', message: 'must be a UUID' }]],
    ['an unknown query parameter', randomUUID(), 'google_calendar', '?userId=x', [{ path: 'query.userId', message: 'unknown field' }]],
    ['an empty user_id', randomUUID(), 'google_calendar', '?user_id=', [expect.objectContaining({ path: 'query.user_id' })]],
  ])('when given %s, then 400 VALIDATION_ERROR', async (_case, customerId, integration, query, issues) => {
    const res = await disconnect(customerId, integration, query).expect(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues } });
  });

  it('when everything above has run, then no answer and no log line contains a stored token', () => {
    expect(tokens.length).toBeGreaterThan(10);
    const logs = hub.logs.text();
    for (const token of tokens) {
      for (const answer of answers) expect(answer).not.toContain(token);
      expect(logs).not.toContain(token);
    }
    expect(logs).toContain('integration disconnected');
    sb.expectFaithful();
  });
});
