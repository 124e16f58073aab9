import { createHmac, createSecretKey } from 'node:crypto';
import { redactUrl } from '../http/request-context';

/**
 * What a receipt keeps of a call's input, output and error details (HUB_AUDIT_PAYLOADS):
 *
 * - `none`: nothing.
 * - `redacted` (default): the shape — objects, arrays, numbers, booleans, nulls — with every string replaced by
 *   `"‹redacted len=N hmac=H›"`: its length and a keyed hash (HMAC-SHA256 under the Hub's audit key, 96 bits), so
 *   equal values can be matched across receipts without being readable. Message contents (subject, body, snippet,
 *   description…) keep only their length: not even a hash, which would confirm a guessed subject.
 * - `full`: the values as they were.
 *
 * In every mode, values under a key that names a credential (token, secret, password, authorization…) are
 * removed, and URLs lose their credential-like query parameters (a setup_url's signed link token).
 * The result is also bounded: a payload larger than MAX_PAYLOAD_CHARS once serialised is replaced by a marker.
 */
export type PayloadMode = 'none' | 'redacted' | 'full';

const CREDENTIAL_KEY = /token|secret|passw|authori[sz]ation|api[_-]?key|credential|cookie|signature/i;
const CONTENT_KEY = /^(subject|body|body_text|body_html|html|text|snippet|raw|content|description|summary|title|notes)$/i;
const URL_LIKE = /^https?:\/\//i;
/** Deeper than this, a payload is cut: no tool answers that deep, and the walk must stay bounded. */
const MAX_DEPTH = 32;
export const MAX_PAYLOAD_CHARS = 64 * 1024;
/**
 * Values one payload's redaction visits at most: a receipt keeps 64 KB anyway, and a hostile body (a 1 MB flood of
 * unknown keys, each string an HMAC) must not cost the process more than a bounded walk — the fuzz run measured
 * the unbounded walk at ~1.5 ms of CPU per hostile request, billed after the answer but to every customer, and a
 * 4,000-value budget still at ~4 ms (an HMAC per string) plus the database's cost of a 150 KB row. Inputs are
 * the caller's (hostile by default) and a valid one holds far fewer than 1,000 values, so inputs get 1,000.
 */
export const MAX_INPUT_NODES = 1_000;
/** Outputs come from the Hub's own tools (100 messages of a search): a larger budget, still bounded. */
export const MAX_NODES = 4_000;

export const REMOVED = '‹removed›';

export type Redactor = (value: unknown, maxNodes?: number) => unknown;

export function createRedactor(mode: PayloadMode, key: Buffer): Redactor {
  const secret = createSecretKey(key); // once: a raw Buffer key makes a new KeyObject on every createHmac
  // The last few hashes, by value: an answer often repeats its input (an echo, an event id, an address), and each
  // HMAC costs ~2 us. Bounded, and only ever keyed by strings this process hashed.
  const recent = new Map<string, string>();
  const hash = (s: string) => {
    let h = recent.get(s);
    if (h === undefined) {
      h = createHmac('sha256', secret).update(s).digest('hex').slice(0, 24);
      if (s.length <= 1_024) {
        if (recent.size >= 64) recent.delete(recent.keys().next().value!);
        recent.set(s, h);
      }
    }
    return h;
  };
  let budget = 0;
  // The serialised size, estimated during the walk (within a few characters a value of JSON.stringify's length):
  // no second pass over the result to bound it.
  let size = 0;
  const str = (s: string, content: boolean): string => {
    const out = mode === 'full' ? (URL_LIKE.test(s) ? redactUrl(s) : s) : content ? `‹redacted len=${s.length}›` : `‹redacted len=${s.length} hmac=${hash(s)}›`;
    size += out.length + 2;
    return out;
  };
  const walk = (v: unknown, content: boolean, depth: number): unknown => {
    if (--budget < 0) return '‹cut›';
    if (typeof v === 'string') return str(v, content);
    if (v === null || typeof v !== 'object') {
      const kept = typeof v === 'number' || typeof v === 'boolean' ? v : null;
      size += String(kept).length + 1;
      return kept;
    }
    size += 2;
    if (depth >= MAX_DEPTH) return '‹cut: too deep›';
    if (Array.isArray(v)) return v.slice(0, Math.max(0, budget)).map((item) => walk(item, content, depth + 1));
    const out: Record<string, unknown> = {};
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (budget < 0) {
        out['‹cut›'] = true;
        break;
      }
      size += k.length + 3;
      const item = (v as Record<string, unknown>)[k];
      out[k] = CREDENTIAL_KEY.test(k) ? REMOVED : walk(item, content || CONTENT_KEY.test(k), depth + 1);
    }
    return out;
  };
  return (value, maxNodes = MAX_NODES) => {
    if (mode === 'none' || value === undefined) return null;
    budget = maxNodes;
    size = 0;
    const redacted = walk(value, false, 0);
    return size > MAX_PAYLOAD_CHARS ? { '‹cut›': `payload of about ${size} characters exceeds ${MAX_PAYLOAD_CHARS}` } : redacted;
  };
}
