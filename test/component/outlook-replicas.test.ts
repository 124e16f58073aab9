import { randomUUID } from 'node:crypto';
import { services } from '../helpers/env';
import { useInProcessReplicas } from '../helpers/in-process-replicas';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { connect, connectFlowEnv, hubOAuth, sandboxConfig } from '../helpers/microsoft-oauth';
import { OUTLOOK_CALENDAR } from '../../src/providers/microsoft/catalog';

/**
 * Microsoft rotates the refresh token on every refresh; with replicas sharing PostgreSQL and Redis a burst of calls
 * for one near-expiry Outlook connection makes Microsoft see one refresh, and every replica then uses what that
 * refresh stored (the rotated refresh token with its access token, in one write).
 */

const { databaseUrl, redisUrl } = services();
const maybe = databaseUrl && redisUrl ? describe : describe.skip;

maybe('refreshing an Outlook connection across replicas', () => {
  let world: MicrosoftWorld;
  const { replica } = useInProcessReplicas(() => connectFlowEnv(world, { HUB_TOOL_DEADLINE_MS: '5000' }));

  beforeAll(async () => {
    world = await startMicrosoftWorld();
  });
  afterAll(async () => {
    await world.close();
  });

  const tokenRequests = async () =>
    ((await world.control('GET', '/requests')).body.requests as { method: string; path: string }[]).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/oauth2/v2.0/token'),
    ).length;

  test('when 20 calls on two replicas need a fresh token at once, then Microsoft sees one refresh and the rotated refresh token is stored with its access token', async () => {
    const [a, b] = [await replica(), await replica()];
    await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana });
    const grant = await connect(hubOAuth(sandboxConfig(world)).oauth, { scopes: OUTLOOK_CALENDAR.scopes });
    const saved = await a.store.save({
      customerId: randomUUID(),
      userId: null,
      integration: 'outlook_calendar',
      accountEmail: grant.email,
      accountId: grant.accountId ?? null,
      scopes: grant.scopes,
      accessToken: grant.accessToken,
      refreshToken: grant.refreshToken,
      // The Hub believes the access token ends within its refresh skew: the next use refreshes.
      tokenExpiresAt: new Date(Date.now() + 30_000),
    });
    const before = await tokenRequests();

    const tokens = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const hub = i % 2 === 0 ? a : b;
        const connected = await hub.connections.connect(
          { name: 'test_refresh', capability: 'calendar', permissions: [] },
          { customerId: saved.customerId, userId: null },
          'microsoft',
        );
        if (!connected.ok) throw new Error(connected.error.message);
        const token = await connected.value.accessToken(AbortSignal.timeout(5_000), undefined);
        if (!token.ok) throw new Error(token.error.message);
        return token.value;
      }),
    );

    expect((await tokenRequests()) - before).toBe(1);
    const row = (await a.store.getById(saved.id))!;
    const stored = a.store.openTokens(row);
    expect(row.tokenVersion).toBe(saved.tokenVersion + 1);
    expect(stored.refreshToken).not.toBe(grant.refreshToken);
    expect(new Set(tokens)).toEqual(new Set([stored.accessToken]));
    expect(stored.accessToken).not.toBe(grant.accessToken);
  });
});
