import { randomBytes } from 'node:crypto';
import { DecryptionError, createTokenCipher } from '../../src/store/token-cipher';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('token cipher (AES-256-GCM)', () => {
  const k1 = key('k1');
  const cipher = createTokenCipher([k1]);

  it('when a token is sealed and opened with the same associated data, then it round-trips', () => {
    const blob = cipher.encrypt('ya29.secret-token', 'row-a');
    expect(cipher.decrypt('k1', blob, 'row-a')).toBe('ya29.secret-token');
    expect(blob.includes(Buffer.from('ya29'))).toBe(false);
  });

  it('when the same token is sealed twice, then the IVs and ciphertexts differ', () => {
    const a = cipher.encrypt('same', 'row');
    const b = cipher.encrypt('same', 'row');
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  it.each([
    ['the version byte', 0],
    ['the IV', 5],
    ['the auth tag', 20],
    ['the ciphertext', 40],
  ])('when %s is tampered with, then opening fails', (_what, index) => {
    const blob = cipher.encrypt('a token long enough to reach byte forty', 'row');
    blob[index] = blob[index]! ^ 0x01;
    expect(() => cipher.decrypt('k1', blob, 'row')).toThrow(DecryptionError);
  });

  it('when a blob is opened for another row or field, then it fails authentication', () => {
    const blob = cipher.encrypt('token', JSON.stringify(['customer-a', 'access_token']));
    expect(() => cipher.decrypt('k1', blob, JSON.stringify(['customer-b', 'access_token']))).toThrow('ciphertext failed authentication');
  });

  it('when the key id is unknown or the blob truncated, then it fails without revealing anything', () => {
    const blob = cipher.encrypt('token', 'row');
    expect(() => cipher.decrypt('k9', blob, 'row')).toThrow('encryption key "k9" is not configured');
    expect(() => cipher.decrypt('k1', blob.subarray(0, 10), 'row')).toThrow('unrecognised ciphertext format');
  });

  it('when keys rotate, then the new first key encrypts and the old one still decrypts', () => {
    const k2 = key('k2');
    const rotated = createTokenCipher([k2, k1]);
    const old = cipher.encrypt('old token', 'row');
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.decrypt('k1', old, 'row')).toBe('old token');
    expect(() => cipher.decrypt('k1', rotated.encrypt('new', 'row'), 'row')).toThrow(DecryptionError);
  });
});
