import { createHash } from 'node:crypto';

/**
 * The Google event id a create with a caller's request_id gets, so that a retry — even one after the Hub crashed
 * between Google's success and its own answer, when no idempotency record exists — asks Google for the same id
 * and meets its 409 `duplicate` instead of creating a second event.
 *
 * Google's rule for client-chosen ids: characters of base32hex (a-v, 0-9), 5 to 1024 of them, unique per
 * calendar. The id is 32 such characters (160 bits of SHA-256) over (customer, end user, calendar, request_id),
 * each part length-prefixed so no two different tuples can share an input. A version prefix in the hash input
 * lets a future scheme coexist with ids already at Google.
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

export function deriveEventId(source: EventIdSource): string {
  const parts = ['hub-event-v1', source.customerId.toLowerCase(), source.userId === null ? '-' : `u${source.userId}`, source.calendarId.trim().toLowerCase(), source.requestId];
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${Buffer.byteLength(part, 'utf8')}:${part}`, 'utf8');
  return base32hex(hash.digest().subarray(0, 20));
}

/** What Google accepts as a client-chosen event id. */
export const isGoogleEventId = (id: string): boolean => /^[a-v0-9]{5,1024}$/.test(id);
