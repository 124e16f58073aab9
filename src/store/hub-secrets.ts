import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger';
import type { Db } from './db';
import { DecryptionError, type TokenCipher } from './token-cipher';

/**
 * Secrets the Hub generates for itself (table hub_secrets): 32 random bytes per name, made once by whichever
 * replica needs one first (INSERT … ON CONFLICT DO NOTHING, then read back, so every replica gets the same
 * bytes), sealed under the encryption keys like a token and re-sealed by `rotate-keys`. Unlike a key derived
 * from the current encryption key, such a secret survives key rotations unchanged — which is the point for
 * the calendar event-id key: a retry must derive the id its first attempt used, whatever rotated in between.
 */

export type SecretName = 'event-id-key' | 'audit-key' | 'webhook-key';

export interface HubSecrets {
  /**
   * The secret's bytes, loaded once per process; null when it is sealed with a key this process does not have
   * (logged as an error; looked at again after a minute). Rejects when the database cannot be reached (the next
   * call tries again).
   */
  get(name: SecretName): Promise<Buffer | null>;
}

export const secretAad = (name: string) => `hub-secret-v1:${name}`;
const UNREADABLE_RECHECK_MS = 60_000;

interface SecretRow {
  key_id: string;
  secret_enc: Uint8Array;
}

/**
 * A secret no configured key opens is never replaced here: this replica may simply not know a newer key yet
 * (a rolling restart), and replacing the secret would change it for every replica. `rotate-keys` reports it;
 * `rotate-keys --replace-unreadable-secrets` replaces it, deliberately.
 */
export function createHubSecrets(db: Db, cipher: TokenCipher, logger: Logger, now: () => number = Date.now): HubSecrets {
  const loaded = new Map<SecretName, { value: Promise<Buffer | null>; until: number }>();

  async function load(name: SecretName): Promise<Buffer | null> {
    await db.query('INSERT INTO hub_secrets (name, key_id, secret_enc) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
      name,
      cipher.currentKeyId,
      sealNew(cipher, name),
    ]);
    const [row] = await db.query<SecretRow>('SELECT key_id, secret_enc FROM hub_secrets WHERE name = $1', [name]);
    try {
      return Buffer.from(cipher.decrypt(row!.key_id, row!.secret_enc, secretAad(name)), 'base64');
    } catch (err) {
      if (!(err instanceof DecryptionError)) throw err;
      logger.error(
        { purpose: name, key_id: row!.key_id }, // not `secret`: the log scrubber redacts any field named so
        'a Hub secret is sealed with an encryption key this Hub does not have; add the key to HUB_ENCRYPTION_KEYS, or run `npm run rotate-keys -- --replace-unreadable-secrets`',
      );
      return null;
    }
  }

  return {
    get(name) {
      const cached = loaded.get(name);
      if (cached !== undefined && cached.until > now()) return cached.value;
      const value = load(name);
      loaded.set(name, { value, until: Number.POSITIVE_INFINITY });
      value.then(
        (secret) => {
          if (secret === null) loaded.set(name, { value, until: now() + UNREADABLE_RECHECK_MS });
        },
        () => loaded.delete(name), // a failed load (database down) is tried again by the next call
      );
      return value;
    },
  };
}

/** 32 fresh random bytes, sealed under the current key for `name`. */
export const sealNew = (cipher: TokenCipher, name: string) => cipher.encrypt(randomBytes(32).toString('base64'), secretAad(name));
