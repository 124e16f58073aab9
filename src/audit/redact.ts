import { createHmac, createSecretKey } from 'node:crypto';
import type { PayloadMode } from '../config';
import { redactUrl } from '../http/request-context';
import { CONTENT_KEY, CREDENTIAL_KEY, type HashRule, MAX_KEYS, REMOVED, type Shaper, compactShaper } from './shape';

/**
 * What a receipt keeps of a call's input, output and error details (HUB_AUDIT_PAYLOADS):
 *
 * - `none`: nothing.
 * - `redacted` (default): the compact shape (shape.ts) — keys, types, string lengths, numbers and booleans, arrays
 *   summarised by count and item shape, and a keyed hash (HMAC-SHA256 under the Hub's audit key, 64 bits) of the
 *   strings whose equality matters, so equal values can be matched across receipts without being readable.
 *   Message contents (subject, body, snippet, description…) keep only their length.
 * - `full`: the values as they were.
 *
 * In every mode, values under a key that names a credential (token, secret, password, authorization…) are
 * removed, and URLs lose their credential-like query parameters (a setup_url's signed link token). Every mode is
 * bounded: at most MAX_KEYS keys an object and a budget of values walked, and a payload larger than its bound
 * once serialised (MAX_SHAPE_CHARS compact, MAX_PAYLOAD_CHARS full) is replaced by a marker — so no receipt is
 * larger than a fixed size whatever the caller sent.
 */
export type { PayloadMode };

export { CONTENT_KEY, CREDENTIAL_KEY, REMOVED };
const URL_LIKE = /^https?:\/\//i;
/** Deeper than this, a payload is cut: no tool answers that deep, and the walk must stay bounded. */
export const MAX_DEPTH = 32;
/** `full` mode: the largest payload kept, serialised. */
export const MAX_PAYLOAD_CHARS = 64 * 1024;
/**
 * Values one payload's redaction visits at most: a hostile body (a 1 MB flood of unknown keys) must not cost the
 * process more than a bounded walk. Inputs are the caller's (hostile by default) and a valid one holds far fewer
 * than 1,000 values, so inputs get 1,000.
 */
export const MAX_INPUT_NODES = 1_000;
/** Outputs come from the Hub's own tools (100 messages of a search): a larger budget, still bounded. */
export const MAX_NODES = 4_000;

/** `hashed` narrows which strings keep a hash in `redacted` mode (shape.ts, HashRule); the other modes ignore it. */
export type Redactor = (value: unknown, maxNodes?: number, hashed?: HashRule) => unknown;

/** The keyed hash of a string: 64 bits of HMAC-SHA256, hex. The last few are remembered (an answer repeats its input). */
export function keyedHash(key: Buffer): (s: string) => string {
  const secret = createSecretKey(key); // once: a raw Buffer key makes a new KeyObject on every createHmac
  const recent = new Map<string, string>();
  return (s) => {
    let h = recent.get(s);
    if (h === undefined) {
      h = createHmac('sha256', secret).update(s).digest('hex').slice(0, 16);
      if (s.length <= 1_024) {
        if (recent.size >= 64) recent.delete(recent.keys().next().value!);
        recent.set(s, h);
      }
    }
    return h;
  };
}

export function createRedactor(mode: PayloadMode, key: Buffer): Redactor {
  if (mode === 'none') return () => null;
  if (mode === 'redacted') {
    const shaper: Shaper = compactShaper(keyedHash(key));
    return (value, maxNodes = MAX_NODES, hashed) => (value === undefined ? null : shaper(value, maxNodes, hashed));
  }
  return fullRedactor();
}

/** `full`: the values, with credentials removed and URLs cleaned; bounded in keys, values and size. */
function fullRedactor(): Redactor {
  let budget = 0;
  // The serialised size, estimated during the walk: no second pass over the result to bound it.
  let size = 0;
  const walk = (v: unknown, depth: number): unknown => {
    if (--budget < 0) return '‹cut›';
    if (typeof v === 'string') {
      const out = URL_LIKE.test(v) ? redactUrl(v) : v;
      size += out.length + 2;
      return out;
    }
    if (v === null || typeof v !== 'object') {
      const kept = typeof v === 'number' || typeof v === 'boolean' ? v : null;
      size += String(kept).length + 1;
      return kept;
    }
    size += 2;
    if (depth >= MAX_DEPTH) return '‹cut: too deep›';
    if (Array.isArray(v)) return v.slice(0, Math.max(0, budget)).map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    let keys = 0;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (budget < 0 || ++keys > MAX_KEYS) {
        out['‹cut›'] = true;
        break;
      }
      size += k.length + 3;
      const item = (v as Record<string, unknown>)[k];
      out[k] = CREDENTIAL_KEY.test(k) ? REMOVED : walk(item, depth + 1);
    }
    return out;
  };
  return (value, maxNodes = MAX_NODES) => {
    if (value === undefined) return null;
    budget = maxNodes;
    size = 0;
    const redacted = walk(value, 0);
    return size > MAX_PAYLOAD_CHARS ? { '‹cut›': `payload of about ${size} characters exceeds ${MAX_PAYLOAD_CHARS}` } : redacted;
  };
}
