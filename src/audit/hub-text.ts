import type { PayloadMode, Redactor } from './redact';

/**
 * A receipt's error as an admin needs it to see why a call failed: the Hub's own words in clear, only the
 * customer's data in them redacted. An error message is a sentence the Hub wrote ("No event "…" on calendar "…"",
 * "The customer policy does not allow writing to …", "Google refused … (HTTP 400): …") around values that came
 * from the call or from Google. In `redacted` mode those values are replaced by their compact shape
 * (`string(N) #H`: length and keyed hash, so equal values still match across receipts): every double-quoted span, every value
 * the error's details carry (ids, refused domains, Google's message), every e-mail address, and what follows
 * "Google refused …: " (Google's own text). `full` keeps the message as the redactor does; `none` keeps nothing.
 */

/** Details that are the Hub's closed vocabulary, never the customer's data: kept in clear in `redacted` mode. */
const VOCABULARY: Record<string, RegExp> = {
  rule: /^[a-z][a-z0-9_]{0,63}$/,
  policy: /^(customer|agent)$/,
};
/**
 * Detail keys whose values are the Hub's or Google's vocabulary (reasons, the catalog's tool names and versions,
 * times the Hub computed), not the customer's data: not looked for in the message.
 */
const NOT_DATA = new Set([
  'rule',
  'policy',
  'reason',
  'scope',
  'outcome',
  'verification',
  'code',
  'integration',
  'tool_version',
  'replacement',
  'available_tools',
  'cooldown_until',
]);
/** Bounds on the work: an error's details are the Hub's own and small; these only keep a bug from being costly. */
const MAX_VALUES = 50;
const MAX_VALUE_CHARS = 500;
const MAX_MESSAGE_CHARS = 2_000;

const QUOTED = /"[^"\n]{1,500}"/g;
/** An address: a domain ending in a letters-only label, so a tool's `name@1.0.0` is not one. */
const EMAIL = /[^\s@"'<>(),;:]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b/g;
/** Google's own text after the Hub's "Google refused <operation> …: ". */
const GOOGLE_TAIL = /^(Google refused [^:]*?): (.+)$/s;

function valuesOf(details: unknown, out: string[], depth = 0): void {
  if (out.length >= MAX_VALUES || depth > 4) return;
  if (typeof details === 'string') {
    if (details.length >= 3 && details.length <= MAX_VALUE_CHARS) out.push(details);
    return;
  }
  if (Array.isArray(details)) {
    for (const item of details.slice(0, MAX_VALUES)) valuesOf(item, out, depth + 1);
    return;
  }
  if (details !== null && typeof details === 'object') {
    for (const [k, v] of Object.entries(details).slice(0, MAX_VALUES)) if (!NOT_DATA.has(k)) valuesOf(v, out, depth + 1);
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The error message a receipt keeps, per the payload mode (see above). */
export function receiptErrorMessage(message: string, details: unknown, mode: PayloadMode, redact: Redactor): string | null {
  if (mode !== 'redacted') return redact(message) as string | null;
  const text = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  const marker = (s: string) => redact(s) as string;
  const tail = GOOGLE_TAIL.exec(text);
  const [head, google] = tail ? [tail[1]!, tail[2]!] : [text, null];
  const values: string[] = [];
  valuesOf(details, values);
  // One pass over the Hub's part, longest value first, so a marker is never searched again.
  const alternatives = [...new Set(values)].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp([QUOTED.source, EMAIL.source, ...alternatives].join('|'), 'g');
  const cleared = head.replace(pattern, (m) => (m.startsWith('"') && m.endsWith('"') && m.length >= 2 ? `"${marker(m.slice(1, -1))}"` : marker(m)));
  return google === null ? cleared : `${cleared}: ${marker(google)}`;
}

/** The error's details a receipt keeps: redacted as any payload, with the Hub's vocabulary (rule, policy) in clear. */
export function receiptErrorDetails(details: unknown, mode: PayloadMode, redact: Redactor): unknown {
  const redacted = redact(details);
  if (mode !== 'redacted' || details === null || typeof details !== 'object' || Array.isArray(details)) return redacted;
  if (redacted === null || typeof redacted !== 'object' || Array.isArray(redacted)) return redacted;
  const kept: Record<string, unknown> = { ...(redacted as Record<string, unknown>) };
  for (const [key, allowed] of Object.entries(VOCABULARY)) {
    const value = (details as Record<string, unknown>)[key];
    if (typeof value === 'string' && allowed.test(value)) kept[key] = value;
  }
  return kept;
}
