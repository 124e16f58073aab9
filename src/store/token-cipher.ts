import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../config';

/**
 * AES-256-GCM for OAuth tokens at rest.
 *
 * Blob layout: version(1) | iv(12) | tag(16) | ciphertext. A fresh random IV per write; the key id is stored
 * next to the blob (in the row) so any configured key can decrypt while only the first one encrypts.
 *
 * The associated data binds a ciphertext to its row and field (customer, user, integration, "access_token"),
 * so a blob copied into another customer's row — or an access token swapped with a refresh token — fails to
 * decrypt instead of being used.
 */

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptionError';
  }
}

export interface TokenCipher {
  /** Id of the key new writes use (the first configured key). */
  readonly currentKeyId: string;
  hasKey(keyId: string): boolean;
  encrypt(plaintext: string, aad: string): Buffer;
  decrypt(keyId: string, blob: Uint8Array, aad: string): string;
}

export function createTokenCipher(keys: readonly EncryptionKey[]): TokenCipher {
  const first = keys[0];
  if (!first) throw new Error('at least one encryption key is required');
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  for (const k of keys) if (k.key.length !== 32) throw new Error(`key ${k.id} must be 32 bytes`);

  return {
    currentKeyId: first.id,
    hasKey: (keyId) => byId.has(keyId),
    encrypt(plaintext, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', first.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
    },
    decrypt(keyId, blob, aad) {
      const key = byId.get(keyId);
      if (!key) throw new DecryptionError(`encryption key "${keyId}" is not configured`);
      const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
      if (bytes.length < HEADER_BYTES || bytes[0] !== VERSION) throw new DecryptionError('unrecognised ciphertext format');
      const iv = bytes.subarray(1, 1 + IV_BYTES);
      const tag = bytes.subarray(1 + IV_BYTES, HEADER_BYTES);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        // GCM authentication failed: tampered data, wrong row, or wrong key. Never say more.
        throw new DecryptionError('ciphertext failed authentication');
      }
    },
  };
}
