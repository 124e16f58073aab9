import { randomBytes } from 'node:crypto';
import { type Db, isDatabaseUnavailable } from '../../src/store/db';
import { createHubSecrets } from '../../src/store/hub-secrets';
import { createKeyRotation } from '../../src/store/key-rotation';
import { createTokenCipher } from '../../src/store/token-cipher';
import { drivers, openTestDb, type TestDb } from '../helpers/db';
import { captureLogs } from '../helpers/logs';

const key = (id: string) => ({ id, key: randomBytes(32) });
const [k1, k2] = [key('k1'), key('k2')];

describe.each(drivers())('Hub secrets on %s', (driver) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb(driver);
  });
  afterEach(() => t.drop());
  const secrets = (keys = [k1], logs = captureLogs()) => createHubSecrets(t.db, createTokenCipher(keys), logs.logger);

  it('when replicas ask for the same secret at once on a fresh database, then all get the same 32 bytes, stored once and sealed', async () => {
    const got = await Promise.all([secrets().get('event-id-key'), secrets().get('event-id-key'), secrets().get('event-id-key')]);
    expect(got[0]).toHaveLength(32);
    expect(got.every((g) => g!.equals(got[0]!))).toBe(true);
    const rows = await t.db.query<{ key_id: string; secret_enc: Uint8Array }>('SELECT key_id, secret_enc FROM hub_secrets');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_id).toBe('k1');
    expect(Buffer.from(rows[0]!.secret_enc).includes(got[0]!.toString('base64'))).toBe(false); // sealed, not stored in the clear
  });

  it('when a new key is put first, then the secret is unchanged (it is not derived from the current key)', async () => {
    const first = await secrets([k1]).get('event-id-key');
    expect((await secrets([k2, k1]).get('event-id-key'))!.equals(first!)).toBe(true);
  });

  it('when the database fails, then get rejects with a database-unavailable error, and the next call loads the secret', async () => {
    let down = true;
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const flaky: Db = { ...t.db, query: (sql, params) => (down ? Promise.reject(refused) : t.db.query(sql, params)) };
    const shared = createHubSecrets(flaky, createTokenCipher([k1]), captureLogs().logger);
    const failed = await shared.get('event-id-key').catch((err: unknown) => err);
    expect(isDatabaseUnavailable(failed)).toBe(true);
    down = false;
    expect(await shared.get('event-id-key')).toHaveLength(32);
  });

  it('when it is sealed with a key this replica lacks, then get answers null with an error log, and never replaces it', async () => {
    const first = await secrets([k2, k1]).get('event-id-key'); // sealed under k2 by a replica that knows it
    const logs = captureLogs();
    expect(await secrets([k1], logs).get('event-id-key')).toBeNull(); // a replica not yet restarted with k2
    expect(logs.entries()).toEqual([expect.objectContaining({ level: 50, purpose: 'event-id-key', key_id: 'k2' })]);
    expect((await secrets([k2]).get('event-id-key'))!.equals(first!)).toBe(true);
  });

  it('when rotate-keys is told to replace unreadable secrets, then one sealed with a lost key gets new bytes under the current key', async () => {
    const lost = await secrets([key('lost')]).get('event-id-key');
    expect(await createKeyRotation(t.db, createTokenCipher([k2])).resealOther({ replaceUnreadableSecrets: false })).toEqual({
      pendingConnects: 0,
      secrets: 0,
      replacedSecrets: 0,
    });
    expect(await createKeyRotation(t.db, createTokenCipher([k2])).resealOther({ replaceUnreadableSecrets: true })).toEqual({
      pendingConnects: 0,
      secrets: 0,
      replacedSecrets: 1,
    });
    const fresh = await secrets([k2]).get('event-id-key');
    expect(fresh).toHaveLength(32);
    expect(fresh!.equals(lost!)).toBe(false);
  });
});
