import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (seed 000's signed webhook, in the shape Stripe and others use):
 *
 *   X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=<hex>…]
 *
 * One `v1` per live secret: during a rotation the Hub signs with the new and the previous secret, so a receiver
 * holding either verifies. A receiver recomputes the HMAC over the timestamp, a dot and the raw body bytes,
 * compares in constant time with each `v1`, and refuses timestamps older than its tolerance (replays).
 */
export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const DEFAULT_TOLERANCE_S = 300;

const mac = (secret: string, timestamp: number, body: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${mac(s, timestamp, body)}`)].join(',');
}

export type Verification = { ok: true; timestamp: number } | { ok: false; problem: 'malformed' | 'stale' | 'mismatch' };

/** What a receiver does (exported for receivers written in TypeScript, and for the tests). */
export function verifySignature(
  header: string | undefined,
  body: string,
  secrets: readonly string[],
  options: { nowS?: number; toleranceS?: number } = {},
): Verification {
  if (typeof header !== 'string' || header.length > 4096) return { ok: false, problem: 'malformed' };
  let timestamp: number | undefined;
  const given: Buffer[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v !== undefined && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v)) given.push(Buffer.from(v, 'hex'));
  }
  if (timestamp === undefined || given.length === 0) return { ok: false, problem: 'malformed' };
  const now = options.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceS ?? DEFAULT_TOLERANCE_S)) return { ok: false, problem: 'stale' };
  for (const secret of secrets) {
    const expected = Buffer.from(mac(secret, timestamp, body), 'hex');
    if (given.some((g) => timingSafeEqual(g, expected))) return { ok: true, timestamp };
  }
  return { ok: false, problem: 'mismatch' };
}
