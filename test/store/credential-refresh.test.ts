import { randomBytes } from 'node:crypto';
import { createCredentialStore } from '../../src/store/credential-store';
import { createKeyRotation } from '../../src/store/key-rotation';
import { createTokenCipher } from '../../src/store/token-cipher';
import { drivers, openTestDb, type TestDb } from '../helpers/db';
import { aCredential, anAccessToken, aRefreshToken, CALENDAR_SCOPES } from '../helpers/factories';

/** The store's side of a token refresh: persisting its outcome only while nobody else wrote the row. */

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe.each(drivers())('credential refresh writes on %s', (driver) => {
  let t: TestDb;
  const store = (keys = [k1]) => createCredentialStore(t.db, createTokenCipher(keys));

  beforeAll(async () => {
    t = await openTestDb(driver);
  });
  afterAll(() => t.drop());

  it('when a refresh is persisted, then the new tokens, expiry and last_refreshed_at are stored and the refresh token kept', async () => {
    const input = aCredential({ lastRefreshedAt: null });
    const saved = await store().save(input);
    expect(await store().getById(saved.id)).toMatchObject({ id: saved.id, lastRefreshedAt: null });
    const accessToken = anAccessToken();
    const expiresAt = new Date(Date.now() + 3_600_000);
    const updated = await store().updateTokens(saved, { accessToken, expiresAt });
    expect(updated).toMatchObject({ id: saved.id, status: 'connected', tokenExpiresAt: expiresAt, lastError: null, scopes: CALENDAR_SCOPES });
    expect(updated!.lastRefreshedAt).toBeInstanceOf(Date);
    expect(store().openTokens(updated!)).toEqual({ accessToken, refreshToken: input.refreshToken });
    expect(store().openAccessToken(updated!)).toBe(accessToken);
  });

  it('when Google rotated the refresh token, then the new one is stored; the row is re-sealed under the current key', async () => {
    const saved = await store([k1]).save(aCredential());
    const refreshToken = aRefreshToken();
    const updated = await store([k2, k1]).updateTokens(saved, { accessToken: anAccessToken(), refreshToken, expiresAt: null });
    expect(updated!.sealed.keyId).toBe('k2');
    expect(store([k2]).openTokens(updated!).refreshToken).toBe(refreshToken);
  });

  it('when the row was re-connected after it was read, then the refresh does not overwrite it (the reconnect wins)', async () => {
    const input = aCredential();
    const read = await store().save(input);
    const reconnected = await store().save({ ...input, accessToken: anAccessToken(), refreshToken: aRefreshToken() });
    expect(await store().updateTokens(read, { accessToken: anAccessToken(), expiresAt: null })).toBeNull();
    expect(store().openTokens((await store().getById(read.id))!)).toEqual(store().openTokens(reconnected));
  });

  it('when the row was deleted or expired meanwhile, then the refresh writes nothing', async () => {
    const gone = await store().save(aCredential());
    await store().remove(gone.customerId, null, 'google_calendar');
    expect(await store().updateTokens(gone, { accessToken: anAccessToken(), expiresAt: null })).toBeNull();
    expect(await store().getById(gone.id)).toBeNull();

    const expired = await store().save(aCredential());
    await store().markExpired(expired.id, 'invalid_grant');
    expect(await store().updateTokens(expired, { accessToken: anAccessToken(), expiresAt: null })).toBeNull();
    expect(await store().getById(expired.id)).toMatchObject({ status: 'expired' });
  });

  it('when invalid_grant races a reconnect, then the guarded markExpired leaves the reconnected row alone', async () => {
    const input = aCredential();
    const read = await store().save(input);
    await store().save({ ...input, refreshToken: aRefreshToken() });
    expect(await store().markExpired(read.id, 'invalid_grant', read)).toBe(false);
    expect(await store().getById(read.id)).toMatchObject({ status: 'connected', lastError: null });
    const current = (await store().getById(read.id))!;
    expect(await store().markExpired(read.id, 'invalid_grant: Token has been expired or revoked.', current)).toBe(true);
    expect(await store().getById(read.id)).toMatchObject({ status: 'expired', lastError: 'invalid_grant: Token has been expired or revoked.' });
  });

  it('when a key rotation only re-sealed the row after it was read, then the refresh still applies (same token version)', async () => {
    const read = await store([k1]).save(aCredential());
    expect((await createKeyRotation(t.db, createTokenCipher([k2, k1])).reencryptAll()).reencrypted).toBeGreaterThan(0);
    const resealed = (await store([k2, k1]).getById(read.id))!;
    expect(resealed.sealed.keyId).toBe('k2');
    expect(resealed.tokenVersion).toBe(read.tokenVersion);
    const accessToken = anAccessToken();
    const updated = await store([k2, k1]).updateTokens(read, { accessToken, expiresAt: null });
    expect(updated).toMatchObject({ tokenVersion: read.tokenVersion + 1, sealed: { keyId: 'k2' } });
    expect(store([k2]).openTokens(updated!).accessToken).toBe(accessToken);
    // …and a stale read (the version before that refresh) no longer marks it expired.
    expect(await store([k2]).markExpired(read.id, 'invalid_grant', read, 'revoked')).toBe(false);
  });

  it('when a connection is saved again, then its token version moves on; keeping the stored refresh token keeps its grant dates', async () => {
    const grantedAt = new Date(Date.now() - 86_400_000);
    const refreshTokenExpiresAt = new Date(Date.now() + 3 * 86_400_000);
    const input = aCredential({ grantedAt, refreshTokenExpiresAt });
    const first = await store().save(input);
    expect(first).toMatchObject({ grantedAt, refreshTokenExpiresAt, expiryReason: null });
    const kept = await store().save({ ...input, refreshToken: undefined, accessToken: anAccessToken(), grantedAt: new Date() });
    expect(kept).toMatchObject({ tokenVersion: first.tokenVersion + 1, grantedAt, refreshTokenExpiresAt });
    expect(store().openTokens(kept).refreshToken).toBe(input.refreshToken);
    const fresh = await store().save({ ...input, refreshToken: aRefreshToken(), grantedAt: undefined, refreshTokenExpiresAt: undefined });
    expect(fresh.tokenVersion).toBe(kept.tokenVersion + 1);
    expect(fresh.refreshTokenExpiresAt).toBeNull();
    expect(fresh.grantedAt!.getTime()).toBeGreaterThan(grantedAt.getTime());
  });

  it('when a refresh is refused with a cause, then the row keeps it until a refresh or reconnect clears it', async () => {
    const read = await store().save(aCredential());
    expect(await store().markExpired(read.id, 'admin_policy_enforced: blocked', read, 'admin_policy_enforced')).toBe(true);
    expect(await store().getById(read.id)).toMatchObject({
      status: 'expired',
      expiryReason: 'admin_policy_enforced',
      lastError: 'admin_policy_enforced: blocked',
    });
    const again = await store().save({ ...aCredential(), customerId: read.customerId });
    expect(again).toMatchObject({ status: 'connected', expiryReason: null, lastError: null });
  });

  it('when Google sends a refresh token end with a refresh, then it is stored; without one the stored date stays', async () => {
    const read = await store().save(aCredential());
    const ends = new Date(Date.now() + 3_600_000);
    const once = await store().updateTokens(read, { accessToken: anAccessToken(), expiresAt: null, refreshTokenExpiresAt: ends });
    expect(once!.refreshTokenExpiresAt).toEqual(ends);
    const twice = await store().updateTokens(once!, { accessToken: anAccessToken(), expiresAt: null });
    expect(twice!.refreshTokenExpiresAt).toEqual(ends);
  });
});
