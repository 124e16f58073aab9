import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rotateKeys } from '../../src/cli/rotate-keys';
import { createCredentialStore } from '../../src/store/credential-store';
import { createKeyRotation } from '../../src/store/key-rotation';
import { migrate } from '../../src/store/migrate';
import { openPglite } from '../../src/store/pglite';
import { createTokenCipher } from '../../src/store/token-cipher';
import { drivers, openTestDb, type TestDb } from '../helpers/db';
import { testConfig } from '../helpers/env';
import { captureLogs } from '../helpers/logs';
import { aCredential, anAccessToken, aRefreshToken, GMAIL_SCOPES } from '../helpers/factories';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe.each(drivers())('credential store on %s', (driver) => {
  let t: TestDb;
  const store = () => createCredentialStore(t.db, createTokenCipher([k1]));

  beforeAll(async () => {
    t = await openTestDb(driver);
  });
  afterAll(() => t.drop());

  it('when a credential is saved, then it resolves with its metadata and tokens open only on request', async () => {
    const input = aCredential();
    const saved = await store().save(input);
    const found = await store().resolve(input.customerId, null, 'google_calendar');
    expect(found).toMatchObject({
      id: saved.id,
      customerId: input.customerId,
      userId: null,
      integration: 'google_calendar',
      accountEmail: 'owner@example.com',
      scopes: [...input.scopes],
      status: 'connected',
      lastError: null,
    });
    expect(found!.tokenExpiresAt!.getTime()).toBe(input.tokenExpiresAt!.getTime());
    expect(found!.sealed.keyId).toBe('k1');
    expect(store().openTokens(found!)).toEqual({ accessToken: input.accessToken, refreshToken: input.refreshToken });
  });

  it('when tokens are at rest, then the table holds no plaintext and a fresh IV per write', async () => {
    const input = aCredential();
    await store().save(input);
    await store().save(input);
    const rows = await t.db.query<{ a: Uint8Array; r: Uint8Array }>(
      'SELECT access_token_enc AS a, refresh_token_enc AS r FROM integration_credentials WHERE customer_id = $1',
      [input.customerId],
    );
    expect(rows).toHaveLength(1);
    const raw = Buffer.concat([Buffer.from(rows[0]!.a), Buffer.from(rows[0]!.r)]);
    expect(raw.includes(Buffer.from(input.accessToken))).toBe(false);
    expect(raw.includes(Buffer.from(input.refreshToken!))).toBe(false);
    expect(raw.includes(Buffer.from('ya29'))).toBe(false);
  });

  it('when an end user has a row, then it takes precedence; other users fall back to the customer-wide row', async () => {
    const customerId = randomUUID();
    await store().save(aCredential({ customerId, accountEmail: 'team@example.com' }));
    await store().save(aCredential({ customerId, userId: 'user-1', accountEmail: 'one@example.com' }));
    expect((await store().resolve(customerId, 'user-1', 'google_calendar'))!.accountEmail).toBe('one@example.com');
    expect((await store().resolve(customerId, 'user-2', 'google_calendar'))!.accountEmail).toBe('team@example.com');
    expect((await store().resolve(customerId, null, 'google_calendar'))!.accountEmail).toBe('team@example.com');
    const all = await store().resolveAll(customerId, 'user-1');
    expect(all.get('google_calendar')!.accountEmail).toBe('one@example.com');
    expect(all.has('google_gmail')).toBe(false);
  });

  it('when only a user row exists, then the customer-wide lookup finds nothing', async () => {
    const customerId = randomUUID();
    await store().save(aCredential({ customerId, userId: 'only-user' }));
    expect(await store().resolve(customerId, null, 'google_calendar')).toBeNull();
    expect(await store().resolve(customerId, 'someone-else', 'google_calendar')).toBeNull();
  });

  it("when two customers have rows, then neither customer's lookups ever return the other's", async () => {
    const a = randomUUID();
    const b = randomUUID();
    await store().save(aCredential({ customerId: a, accountEmail: 'a@example.com' }));
    await store().save(aCredential({ customerId: a, userId: 'shared-user-id', accountEmail: 'a-user@example.com' }));
    await store().save(aCredential({ customerId: b, integration: 'google_gmail', scopes: GMAIL_SCOPES, accountEmail: 'b@example.com' }));
    await store().save(aCredential({ customerId: b, userId: 'shared-user-id', integration: 'google_gmail', scopes: GMAIL_SCOPES }));

    expect(await store().resolve(b, null, 'google_calendar')).toBeNull();
    expect(await store().resolve(b, 'shared-user-id', 'google_calendar')).toBeNull();
    expect(await store().resolve(a, 'shared-user-id', 'google_gmail')).toBeNull();
    expect([...(await store().resolveAll(b, 'shared-user-id')).values()].every((r) => r.customerId === b)).toBe(true);
    expect((await store().listForCustomer(a)).map((r) => r.accountEmail)).toEqual(['a@example.com', 'a-user@example.com']);
    expect(await store().remove(b, null, 'google_calendar')).toBe(false);
    expect(await store().resolve(a, null, 'google_calendar')).not.toBeNull();
  });

  it('when a ciphertext is copied into another row, then it cannot be opened there', async () => {
    const victim = aCredential();
    const attacker = aCredential();
    await store().save(victim);
    await store().save(attacker);
    await t.db.query(
      `UPDATE integration_credentials SET access_token_enc = (SELECT access_token_enc FROM integration_credentials WHERE customer_id = $1)
        WHERE customer_id = $2`,
      [victim.customerId, attacker.customerId],
    );
    const row = await store().resolve(attacker.customerId, null, 'google_calendar');
    expect(() => store().openTokens(row!)).toThrow('ciphertext failed authentication');
  });

  it('when a connection is saved again, then the row is replaced; without a new refresh token the old one is kept', async () => {
    const first = aCredential();
    const saved = await store().save(first);
    await store().markExpired(saved.id, 'invalid_grant');
    expect((await store().resolve(first.customerId, null, 'google_calendar'))!.status).toBe('expired');

    const newAccess = anAccessToken();
    const again = await store().save({ ...first, accessToken: newAccess, refreshToken: undefined, scopes: ['x'] });
    expect(again.id).toBe(saved.id);
    expect(again).toMatchObject({ status: 'connected', lastError: null, scopes: ['x'] });
    expect(store().openTokens(again)).toEqual({ accessToken: newAccess, refreshToken: first.refreshToken });

    const rotated = aRefreshToken();
    const third = await store().save({ ...first, refreshToken: rotated });
    expect(store().openTokens(third).refreshToken).toBe(rotated);
  });

  it('when an expired row is marked, then the reason and time are recorded', async () => {
    const saved = await store().save(aCredential());
    await store().markExpired(saved.id, 'invalid_grant: Token has been expired or revoked.');
    const row = await store().resolve(saved.customerId, null, 'google_calendar');
    expect(row).toMatchObject({ status: 'expired', lastError: 'invalid_grant: Token has been expired or revoked.' });
    expect(row!.lastErrorAt).toBeInstanceOf(Date);
  });

  it('when a row is removed, then it is gone and removing again reports nothing removed', async () => {
    const input = aCredential({ userId: 'u-9' });
    await store().save(input);
    expect(await store().remove(input.customerId, 'u-9', 'google_calendar')).toBe(true);
    expect(await store().remove(input.customerId, 'u-9', 'google_calendar')).toBe(false);
    expect(await store().resolve(input.customerId, 'u-9', 'google_calendar')).toBeNull();
  });

  describe('a change and what commits with it (its webhook outbox rows)', () => {
    const marks = () => t.db.query<{ what: string }>('SELECT what FROM committed_with');
    const mark = (what: string) => async (tx: { query: (sql: string, params?: unknown[]) => Promise<unknown> }) => {
      await tx.query('INSERT INTO committed_with VALUES ($1)', [what]);
    };
    const refuse = async () => {
      throw new Error('the outbox refused the row');
    };
    beforeEach(() => t.db.exec('DROP TABLE IF EXISTS committed_with; CREATE TABLE committed_with (what text)'));

    it('when what commits with a save, a removal or an expiry fails, then the change is rolled back with it', async () => {
      const input = aCredential({ refreshToken: aRefreshToken() });
      await expect(store().save(input, refuse)).rejects.toThrow('the outbox refused the row');
      expect(await store().findExact(input.customerId, null, 'google_calendar')).toBeNull();
      const saved = await store().save(input);
      await expect(store().save({ ...input, refreshToken: undefined, accessToken: anAccessToken() }, refuse)).rejects.toThrow();
      expect((await store().getById(saved.id))!.tokenVersion).toBe(saved.tokenVersion); // the grant-keeping save too
      await expect(store().markExpired(saved.id, 'invalid_grant', saved, undefined, refuse)).rejects.toThrow();
      expect((await store().getById(saved.id))!.status).toBe('connected');
      await expect(store().remove(input.customerId, null, 'google_calendar', refuse)).rejects.toThrow();
      expect(await store().getById(saved.id)).not.toBeNull();
    });

    it('when the change is made, then what commits with it is there; when it changes no row, then nothing is written', async () => {
      const saved = await store().save(aCredential(), mark('saved'));
      expect(await store().markExpired(saved.id, 'invalid_grant', saved, undefined, mark('expired'))).toBe(true);
      expect(await store().remove(saved.customerId, null, 'google_calendar', mark('removed'))).toBe(true);
      expect(await store().remove(saved.customerId, null, 'google_calendar', mark('removed again'))).toBe(false);
      expect(await store().markExpired(saved.id, 'invalid_grant', saved, undefined, mark('expired when gone'))).toBe(false);
      expect((await marks()).map((r) => r.what)).toEqual(['saved', 'expired', 'removed']);
    });
  });

  it('when the customer-wide row and a user row exist, then the database refuses a duplicate of either', async () => {
    const input = aCredential();
    await store().save(input);
    await expect(
      t.db.query(`INSERT INTO integration_credentials (customer_id, integration, status, key_id) VALUES ($1, 'google_calendar', 'connected', 'k1')`, [
        input.customerId,
      ]),
    ).rejects.toThrow(/duplicate key|unique/);
  });
});

describe.each(drivers())('key rotation on %s', (driver) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(driver);
  });
  afterAll(() => t.drop());

  it('when the new key is put first, then rotation re-seals every row and old keys are no longer needed', async () => {
    const oldStore = createCredentialStore(t.db, createTokenCipher([k1]));
    const inputs = Array.from({ length: 7 }, (_, i) => aCredential({ userId: i % 2 ? `u${i}` : null }));
    for (const input of inputs) await oldStore.save(input);

    const rotating = createKeyRotation(t.db, createTokenCipher([k2, k1]));
    const result = await rotating.reencryptAll(3); // several batches
    expect(result).toEqual({ reencrypted: 7, failed: [] });
    expect(await rotating.keyUsage()).toEqual([{ keyId: 'k2', rows: 7 }]);

    const newOnly = createCredentialStore(t.db, createTokenCipher([k2]));
    for (const input of inputs) {
      const row = await newOnly.resolve(input.customerId, input.userId, 'google_calendar');
      expect(newOnly.openTokens(row!)).toEqual({ accessToken: input.accessToken, refreshToken: input.refreshToken });
    }
    expect(await rotating.reencryptAll()).toEqual({ reencrypted: 0, failed: [] });
  });

  it('when a row is sealed with a key that is gone, then rotation reports it and leaves it untouched', async () => {
    const lost = { id: 'lost', key: randomBytes(32) };
    const saved = await createCredentialStore(t.db, createTokenCipher([lost])).save(aCredential());
    const result = await createKeyRotation(t.db, createTokenCipher([k2])).reencryptAll();
    expect(result).toEqual({ reencrypted: 0, failed: [{ id: saved.id, reason: 'encryption key "lost" is not configured' }] });
    await t.db.query('DELETE FROM integration_credentials WHERE id = $1', [saved.id]);
  });

  it('when the rotate-keys command runs, then it re-seals under the first configured key and says so', async () => {
    // The command opens the configured database itself: this test's PostgreSQL schema, or a PGlite directory.
    let env: Record<string, string>;
    let cleanup = async () => {};
    if (driver === 'postgres') {
      await createCredentialStore(t.db, createTokenCipher([k1])).save(aCredential());
      env = { DATABASE_URL: t.url! };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'hub-rotate-'));
      const db = await openPglite(dir);
      await migrate(db, captureLogs().logger);
      await createCredentialStore(db, createTokenCipher([k1])).save(aCredential());
      await db.close();
      env = { HUB_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    const lines: string[] = [];
    const keys = `k2:${k2.key.toString('base64')},k1:${k1.key.toString('base64')}`;
    const clean = await rotateKeys(testConfig({ ...env, HUB_ENCRYPTION_KEYS: keys }), (l) => lines.push(l));
    await cleanup();
    expect(clean).toBe(true);
    expect(lines).toEqual([
      're-encrypted 1 credential row(s) under key "k2"',
      'no stored data uses older keys; remove them from HUB_ENCRYPTION_KEYS once every replica has run with "k2" first for 1 h ' +
        '(the longest connect-link lifetime: links handed out before are signed with an older key)',
    ]);
  }, 60_000); // two PGlite (WASM) starts and a migration: seconds each on a loaded machine
});
