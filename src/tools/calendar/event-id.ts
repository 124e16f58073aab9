import { type KeyObject, createHmac, createSecretKey } from 'node:crypto';
import { type Result, fail, ok } from '../../core/errors';
import { storeUnavailable } from '../../integrations/store-unavailable';
import type { Logger } from '../../logger';
import type { HubSecrets } from '../../store/hub-secrets';

/**
 * The Google event id a create with a caller's request_id gets, so that a retry — even one after the Hub crashed
 * between Google's success and its own answer, when no idempotency record exists — asks Google for the same id
 * and meets its 409 `duplicate` instead of creating a second event.
 *
 * Google's rule for client-chosen ids: characters of base32hex (a-v, 0-9), 5 to 1024 of them, unique per
 * calendar. The id is 32 such characters (160 bits of HMAC-SHA256) over (customer, end user, calendar,
 * request_id), each part length-prefixed so no two different tuples can share an input.
 *
 * Keyed, so that nobody who knows (or guesses) a customer's ids and request_ids can compute the id a retry will
 * use and pre-create an event under it — the Hub would then answer with that stranger's event, or CONFLICT.
 * The key is the Hub's `event-id-key` (hub-secrets.ts): random, made once, sealed under the encryption keys and
 * re-sealed by rotate-keys — not derived from the current encryption key, because a rotation between a first
 * attempt and its retry would then change the id and let the retry create a second event. (Trying every
 * configured key's id would not help either: the retry's insert under the new id simply succeeds — Google has
 * no 409 to offer for an id it has never seen.) The version label changed with the scheme (`hub-event-v2`).
 */

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** RFC 4648 base32hex, lower case, no padding. */
export function base32hex(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1; // keep only the bits not yet written, so the buffer never overflows
  }
  if (bits > 0) out += BASE32HEX[(buffer << (5 - bits)) & 31];
  return out;
}

export interface EventIdSource {
  customerId: string;
  userId: string | null;
  /** As the caller named it ("primary" or an id); compared case-insensitively, as Google compares calendar ids. */
  calendarId: string;
  requestId: string;
}

export function deriveEventId(key: KeyObject | Buffer, source: EventIdSource): string {
  const parts = [
    'hub-event-v2',
    source.customerId.toLowerCase(),
    source.userId === null ? '-' : `u${source.userId}`,
    source.calendarId.trim().toLowerCase(),
    source.requestId,
  ];
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(`${Buffer.byteLength(part, 'utf8')}:${part}`, 'utf8');
  return base32hex(mac.digest().subarray(0, 20));
}

/** HMAC-SHA256 over length-prefixed parts (the first names the scheme), hex, 128 bits. */
export function keyedDigest(key: KeyObject | Buffer, parts: readonly string[]): string {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(`${Buffer.byteLength(part, 'utf8')}:${part}`, 'utf8');
  return mac.digest('hex').slice(0, 32);
}

export interface EventIds {
  /**
   * The id a create with this request_id gets. Null when this replica cannot open the key (sealed with an
   * encryption key it lacks; logged as an error): the create then lets Google choose the id — no crash-safe
   * dedupe, but no outage. Fails (retryably) when the database cannot be reached.
   */
  derive(source: EventIdSource): Promise<Result<string | null>>;
  /**
   * A keyed digest of `parts` under the same key (the first part names the scheme, so no digest can equal another
   * scheme's): for other ids a stranger must not be able to compute, such as email_send's X-Hub-Send-Id, which
   * every recipient sees. Null and failure as for derive().
   */
  digest(parts: readonly string[]): Promise<Result<string | null>>;
}

export function createEventIds(secrets: HubSecrets, logger: Logger): EventIds {
  // The key as a KeyObject, made once per loaded secret: given a raw Buffer, every createHmac imports the key
  // anew (~10 us a call against ~2 us).
  const imported = new WeakMap<Buffer, KeyObject>();
  const withKey = async <T>(use: (key: KeyObject) => T): Promise<Result<T | null>> => {
    let key: Buffer | null;
    try {
      key = await secrets.get('event-id-key');
    } catch (err) {
      return fail(storeUnavailable(err, logger)); // the database is down (a retry with the same request_id is safe), or a bug
    }
    if (key === null) return ok(null);
    let keyObject = imported.get(key);
    if (keyObject === undefined) imported.set(key, (keyObject = createSecretKey(key)));
    return ok(use(keyObject));
  };
  return {
    derive: (source) => withKey((key) => deriveEventId(key, source)),
    digest: (parts) => withKey((key) => keyedDigest(key, parts)),
  };
}

/** What Google accepts as a client-chosen event id. */
export const isGoogleEventId = (id: string): boolean => /^[a-v0-9]{5,1024}$/.test(id);
