/**
 * Verifying the Hub's webhooks, as Standard Webhooks defines them: `webhook-signature` holds one or more
 * space-separated `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`; the key is the
 * bytes a `whsec_<base64>` secret encodes (or, for any other string, its UTF-8 bytes). Uses WebCrypto only, so it
 * runs in Node ≥ 20, Deno, Bun, browsers and edge runtimes. Any Standard Webhooks library verifies the same
 * deliveries; this one is here so a TypeScript receiver needs nothing else.
 */

/** What the Hub sends on a connection change. */
export interface WebhookEvent {
  id: string;
  type: 'connection.connected' | 'connection.insufficient_scopes' | 'connection.expired' | 'connection.disconnected';
  created_at: string;
  data: {
    customer_id: string;
    user_id: string | null;
    integration: string;
    account_email: string | null;
    status: string;
    setup_url: string;
    missing_scopes?: string[];
    /** connection.expired: why the vendor ended the grant (e.g. `password_changed`, `revoked`, `inactive`), as the status endpoint's `grant.reason`. */
    reason?: string;
  };
}

export type WebhookVerification =
  { ok: true; event: WebhookEvent; id: string; timestamp: number } | { ok: false; problem: 'missing_headers' | 'malformed' | 'stale' | 'mismatch' };

export interface VerifyWebhookOptions {
  /** Largest distance between the delivery's timestamp and now, in seconds (default 300: the standard's). */
  toleranceS?: number;
  /** Now, in unix seconds (tests). */
  nowS?: number;
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

const PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const entry = Object.entries(headers as Record<string, string | string[] | undefined>).find(([k]) => k.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(PREFIX)) return encoder.encode(secret);
  const binary = atob(secret.slice(PREFIX.length));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function base64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Compares without stopping at the first difference, so timing says nothing of how much matched. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * Verifies one delivery: `body` is the raw request body exactly as received (before any JSON parsing), `headers`
 * the request's headers (a plain object or a `Headers`), `secrets` the endpoint's secret — or, during a rotation,
 * both. Failures are values; only a verified body is parsed.
 */
export async function verifyWebhook(
  body: string,
  headers: Headers,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookVerification> {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) return { ok: false, problem: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestampText) || signatures.length > 4096) return { ok: false, problem: 'malformed' };
  const timestamp = Number(timestampText);
  const now = options.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceS ?? 300)) return { ok: false, problem: 'stale' };
  const given = signatures
    .split(' ')
    .map((s) => s.split(','))
    .filter((parts): parts is [string, string] => parts.length === 2 && parts[0] === 'v1')
    .map(([, signature]) => signature);
  if (given.length === 0) return { ok: false, problem: 'malformed' };
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const key = await crypto.subtle.importKey('raw', keyBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const expected = base64(await crypto.subtle.sign('HMAC', key, signed));
    if (given.some((signature) => sameText(signature, expected))) return { ok: true, event: JSON.parse(body) as WebhookEvent, id, timestamp };
  }
  return { ok: false, problem: 'mismatch' };
}
