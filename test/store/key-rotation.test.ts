import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rotateKeys } from '../../src/cli/rotate-keys';
import type { ConnectLink } from '../../src/integrations/connect-links';
import { createOAuthStates } from '../../src/integrations/oauth-states';
import type { Db } from '../../src/store/db';
import { createHubSecrets } from '../../src/store/hub-secrets';
import { createKeyRotation } from '../../src/store/key-rotation';
import { migrate } from '../../src/store/migrate';
import { openPglite } from '../../src/store/pglite';
import { createTokenCipher } from '../../src/store/token-cipher';
import { type DriverKind, drivers, openTestDb, type TestDb } from '../helpers/db';
import { testConfig } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

// The rotate-keys runs on PGlite start WASM Postgres twice and migrate: seconds each on a loaded machine.
jest.setTimeout(60_000);

/**
 * Rotation of what is sealed besides tokens — the PKCE verifier of a person's pending connect attempt, and the
 * Hub's own secrets — and what `rotate-keys` tells the operator before an old key may go.
 */

const key = (id: string) => ({ id, key: randomBytes(32) });
const [k1, k2, lost] = [key('k1'), key('k2'), key('lost')];
const LIMITS = { perLink: 10, perAddress: 100 };
const aLink = (): ConnectLink => ({
  linkId: randomUUID(),
  customerId: randomUUID(),
  userId: null,
  integration: 'google_calendar',
  returnUrl: null,
  origin: 'setup',
  replace: false,
  expiresAt: new Date(Date.now() + 900_000),
});
const begin = async (db: Db, keys: { id: string; key: Buffer }[]) => {
  const begun = await createOAuthStates(db, createTokenCipher(keys), LIMITS).begin(aLink(), '198.51.100.1');
  if (!begun.ok) throw new Error(begun.problem);
  return begun.begun;
};

describe.each(drivers())('rotating sealed connect attempts and Hub secrets on %s', (driver) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(driver);
  });
  afterAll(() => t.drop());

  it('when a person is between the Hub and Google during rotation, then the attempt is re-sealed and completes with only the new key', async () => {
    const begun = await begin(t.db, [k1]);
    expect(await createKeyRotation(t.db, createTokenCipher([k2, k1])).resealOther()).toMatchObject({ pendingConnects: 1 });
    const consumed = await createOAuthStates(t.db, createTokenCipher([k2]), LIMITS).consume(begun.state);
    expect(consumed).toMatchObject({ ok: true, pending: { codeVerifier: begun.codeVerifier } });
  });

  it('when the Hub secret is re-sealed by rotation, then it stays the same bytes once the old key is removed', async () => {
    const before = await createHubSecrets(t.db, createTokenCipher([k1]), captureLogs().logger).get('event-id-key');
    expect(await createKeyRotation(t.db, createTokenCipher([k2, k1])).resealOther()).toEqual({ pendingConnects: 0, secrets: 1, replacedSecrets: 0 });
    const after = await createHubSecrets(t.db, createTokenCipher([k2]), captureLogs().logger).get('event-id-key');
    expect(after!.equals(before!)).toBe(true);
    expect((await createKeyRotation(t.db, createTokenCipher([k2])).otherUsage()).secrets).toEqual([{ keyId: 'k2', rows: 1 }]);
  });
});

describe.each(drivers())('npm run rotate-keys on %s', (driver: DriverKind) => {
  /** Runs the command against a database seeded by `seed` (PostgreSQL schema, or a PGlite directory). */
  async function run(seed: (db: Db) => Promise<void>, keys: string): Promise<{ clean: boolean; lines: string[] }> {
    let env: Record<string, string>;
    let cleanup: () => Promise<unknown>;
    if (driver === 'postgres') {
      const t = await openTestDb('postgres');
      await seed(t.db);
      env = { DATABASE_URL: t.url! };
      cleanup = () => t.drop();
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'hub-rotate-'));
      const db = await openPglite(dir);
      await migrate(db, captureLogs().logger);
      await seed(db);
      await db.close();
      env = { HUB_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    const lines: string[] = [];
    try {
      const clean = await rotateKeys(testConfig({ ...env, HUB_ENCRYPTION_KEYS: keys, HUB_CONNECT_LINK_TTL_S: '7200' }), (l) => lines.push(l));
      return { clean, lines };
    } finally {
      await cleanup();
    }
  }
  const b64 = (k: { key: Buffer }) => k.key.toString('base64');

  it('when attempts and a secret are under the old key, then it re-seals them and says when the old key may go (after the longest link lifetime)', async () => {
    const { clean, lines } = await run(
      async (db) => {
        await begin(db, [k1]);
        await createHubSecrets(db, createTokenCipher([k1]), captureLogs().logger).get('event-id-key');
      },
      `k2:${b64(k2)},k1:${b64(k1)}`,
    );
    expect(clean).toBe(true);
    expect(lines).toEqual([
      're-encrypted 0 credential row(s) under key "k2"',
      're-sealed 1 pending connect attempt(s) and 1 Hub secret(s) under key "k2"',
      'no stored data uses older keys; remove them from HUB_ENCRYPTION_KEYS once every replica has run with "k2" first for 2 h ' +
        '(the longest connect-link lifetime: links handed out before are signed with an older key)',
    ]);
  });

  it('when an attempt is sealed with a key it cannot open, then it reports it with when it lapses and does not say any key can go', async () => {
    const before = Date.now();
    const { lines } = await run((db) => begin(db, [lost]).then(() => {}), `k2:${b64(k2)},k1:${b64(k1)}`);
    expect(lines[0]).toBe('re-encrypted 0 credential row(s) under key "k2"');
    const reported = /^ {2}1 pending connect attempt\(s\) still sealed with key "lost" \(the last lapses at (.+)\)$/.exec(lines[1]!);
    expect(reported).not.toBeNull();
    expect(Date.parse(reported![1]!) - before).toBeGreaterThan(590_000);
    expect(lines.at(-1)).toBe('keep the older keys in HUB_ENCRYPTION_KEYS until these are gone (run this again; pending attempts lapse by themselves)');
  });
});
