import { randomUUID } from 'node:crypto';
import { MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import type { Redis } from 'ioredis';
import type { RefreshOutcome } from '../../../src/core/provider';
import { OUTLOOK_CALENDAR } from '../../../src/providers/microsoft/catalog';
import { type HeldGrant, type RotationLock, type RotationWrite, createRotatingRefresh, rotationWrite } from '../../../src/providers/microsoft/refresh-rotation';
import { openRedis } from '../../../src/store/redis';
import { services } from '../../helpers/env';
import { captureLogs } from '../../helpers/logs';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../../helpers/microsoft';
import { connect, hubOAuth, sandboxConfig } from '../../helpers/microsoft-oauth';

/**
 * Refresh-token rotation against the Microsoft sandbox, which emulates what Microsoft documents
 * (learn.microsoft.com/entra/identity-platform/refresh-tokens): "Refresh tokens replace themselves with a fresh
 * token upon every use" and "The Microsoft identity platform doesn't revoke old refresh tokens when used" — so
 * two refreshes racing with the same old token both succeed, and what decides which grant the Hub keeps is its own
 * write. The rule (refresh-rotation.ts): both tokens in one compare-and-set write, one refresh per credential across
 * replicas.
 */

let world: MicrosoftWorld;
const logs = captureLogs('debug');
const secrets: string[] = [MS_SANDBOX_DEFAULT_APP.clientSecret];
const redisUrl = services().redisUrl;
let redis: Redis | undefined;
beforeAll(async () => {
  world = await startMicrosoftWorld();
  if (redisUrl) redis = await openRedis(redisUrl, captureLogs().logger);
});
afterAll(async () => {
  await world.close();
  redis?.disconnect();
  for (const secret of secrets) expect(logs.text()).not.toContain(secret);
});

const port = () => hubOAuth(sandboxConfig(world), logs).oauth;
const signal = () => AbortSignal.timeout(10_000);
const tokenRequests = async () =>
  ((await world.control('GET', '/requests')).body.requests as { path: string }[]).filter((r) => r.path.endsWith('/oauth2/v2.0/token')).length;

async function grantFor(upn: string) {
  await world.control('PUT', '/consent', { mode: 'auto', account: upn });
  const grant = await connect(port(), { scopes: OUTLOOK_CALENDAR.scopes });
  secrets.push(grant.accessToken, grant.refreshToken!);
  return grant.refreshToken!;
}

function refreshed(outcome: RefreshOutcome) {
  if (outcome.kind !== 'refreshed') throw new Error(`expected refreshed, got ${JSON.stringify(outcome)}`);
  secrets.push(outcome.accessToken, ...(outcome.refreshToken ? [outcome.refreshToken] : []));
  return outcome;
}

test('when two refreshes race with the same old token, then Microsoft answers both, with two new refresh tokens, and every one of the three still works', async () => {
  const old = await grantFor(DEMO.ana);
  const before = await tokenRequests();
  const [a, b] = (await Promise.all([port().refresh(old, signal()), port().refresh(old, signal())])).map(refreshed);
  expect(await tokenRequests()).toBe(before + 2);
  expect(new Set([old, a!.refreshToken, b!.refreshToken]).size).toBe(3);
  for (const rt of [a!.refreshToken!, b!.refreshToken!, old]) refreshed(await port().refresh(rt, signal()));
});

describe('the write a refresh makes', () => {
  const held: HeldGrant = { refreshToken: 'rt-old', version: 7 };
  const answer = (refreshToken?: string): Extract<RefreshOutcome, { kind: 'refreshed' }> => ({
    kind: 'refreshed',
    accessToken: 'at-new',
    expiresAt: new Date(0),
    ...(refreshToken ? { refreshToken } : {}),
    scopes: ['Calendars.ReadWrite'],
  });

  it('when the vendor rotated the token, then the new one is written with the access token, only over the version read', () => {
    expect(rotationWrite(held, answer('rt-new'))).toEqual({
      accessToken: 'at-new',
      expiresAt: new Date(0),
      refreshToken: 'rt-new',
      rotated: true,
      scopes: ['Calendars.ReadWrite'],
      ifVersion: 7,
    });
  });

  it("when the vendor sent no refresh token or the same one, then the held one is kept and the grant's clock does not restart", () => {
    for (const same of [undefined, 'rt-old']) expect(rotationWrite(held, answer(same))).toMatchObject({ refreshToken: 'rt-old', rotated: false, ifVersion: 7 });
  });
});

/** A credential row shared by "replicas": tokens and a version, written only by compare-and-set. */
function sharedRow(refreshToken: string) {
  const row = { grant: { refreshToken, version: 1 } as HeldGrant, writes: [] as RotationWrite[] };
  const read = async () => ({ ...row.grant });
  const write = async (w: RotationWrite) => {
    await new Promise((r) => setImmediate(r));
    if (row.grant.version !== w.ifVersion) return false;
    row.grant = { refreshToken: w.refreshToken, version: w.ifVersion + 1 };
    row.writes.push(w);
    return true;
  };
  return { row, read, write };
}

/**
 * The cross-replica lock as the Hub's is made (src/integrations/refresh-lock.ts: SET NX PX with an owner token,
 * released by its owner only), written out here so this file does not depend on where that module lives.
 */
function redisLock(client: Redis): RotationLock {
  return {
    async acquire(key, ttlMs) {
      const owner = randomUUID();
      if ((await client.set(key, owner, 'PX', ttlMs, 'NX')) !== 'OK') return { state: 'held' };
      return {
        state: 'acquired',
        release: async () => {
          await client.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, key, owner);
        },
      };
    },
  };
}

const unavailableLock: RotationLock = { acquire: async () => ({ state: 'unavailable', err: new Error('redis down') }) };

function replica(shared: ReturnType<typeof sharedRow>, lock: RotationLock, lockKey: string) {
  return createRotatingRefresh({
    read: shared.read,
    write: shared.write,
    lock,
    lockKey,
    lockTtlMs: 5_000,
    refresh: (rt, s) => port().refresh(rt, s),
    pollMs: 5,
  });
}

(redisUrl ? it : it.skip)(
  'when three replicas refresh one credential at once under the Redis lock, then Microsoft sees one refresh and all use its tokens',
  async () => {
    const shared = sharedRow(await grantFor(DEMO.chen));
    const key = `hub:test-ms-rotation:${randomUUID()}`;
    const replicas = [0, 1, 2].map(() => replica(shared, redisLock(redis!), key));
    const before = await tokenRequests();
    const seen = await shared.read();
    const results = await Promise.all(replicas.map((r) => r(seen, signal())));
    expect(await tokenRequests()).toBe(before + 1);
    expect(results.map((r) => r.kind).sort()).toEqual(['someone_else', 'someone_else', 'written']);
    expect(shared.row.writes).toHaveLength(1);
    expect(shared.row.grant).toEqual({ refreshToken: shared.row.writes[0]!.refreshToken, version: 2 });
    expect(shared.row.writes[0]!.rotated).toBe(true);
    refreshed(await port().refresh(shared.row.grant.refreshToken!, signal()));
  },
);

it('when callers of one process refresh at once, then they share one flight', async () => {
  const shared = sharedRow(await grantFor(DEMO.ana));
  const one = replica(shared, unavailableLock, 'unused');
  const before = await tokenRequests();
  const seen = await shared.read();
  const results = await Promise.all([one(seen, signal()), one(seen, signal()), one(seen, signal())]);
  expect(await tokenRequests()).toBe(before + 1);
  expect(new Set(results).size).toBe(1);
});

it("when the lock service is down, then both replicas refresh, Microsoft answers both, one write wins and the loser's token is dropped — harmless, since Microsoft revokes neither", async () => {
  const shared = sharedRow(await grantFor(DEMO.ben));
  const [r1, r2] = [replica(shared, unavailableLock, 'k'), replica(shared, unavailableLock, 'k')];
  const before = await tokenRequests();
  const seen = await shared.read();
  const results = await Promise.all([r1(seen, signal()), r2(seen, signal())]);
  expect(await tokenRequests()).toBe(before + 2);
  expect(results.map((r) => r.kind).sort()).toEqual(['someone_else', 'written']);
  expect(shared.row.grant.version).toBe(2);
  refreshed(await port().refresh(shared.row.grant.refreshToken!, signal()));
});

it('when the stored grant is refused, then the refusal comes back and nothing is written', async () => {
  const shared = sharedRow(await grantFor(DEMO.ana));
  await world.control('POST', `/accounts/${DEMO.ana}/revoke-sessions`);
  const result = await replica(shared, unavailableLock, 'k')(await shared.read(), signal());
  expect(result).toMatchObject({ kind: 'invalid_grant', cause: 'password_changed' });
  expect(shared.row.writes).toHaveLength(0);
});

// Last: it moves the sandbox's clock 91 days on, past what the Hub's id_token check (real time) accepts.
test('when the Hub keeps using the old token instead of storing the rotated one, then the grant dies 90 days after the old one was issued', async () => {
  const old = await grantFor(DEMO.ben);
  await world.control('POST', '/clock/advance', { seconds: 45 * 86_400 });
  const rotated = refreshed(await port().refresh(old, signal())).refreshToken!;
  await world.control('POST', '/clock/advance', { seconds: 46 * 86_400 });
  expect(await port().refresh(old, signal())).toMatchObject({ kind: 'invalid_grant', cause: 'inactive' });
  refreshed(await port().refresh(rotated, signal()));
});
