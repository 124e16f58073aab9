import { Webhook } from 'standardwebhooks';

/**
 * Webhook signatures as Standard Webhooks defines them (standardwebhooks.com), made by its reference library, so a
 * receiver verifies them with a maintained library in its own language:
 *
 *   webhook-id: <event id, the same in every retry>
 *   webhook-timestamp: <unix seconds of this attempt>
 *   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>[ v1,<…>]
 *
 * One `v1` per live secret: during a rotation the Hub signs with the new and the previous secret, so a receiver
 * holding either verifies. A secret in the standard's form (`whsec_` + base64) signs with the bytes it encodes;
 * any other string (an operator's `HUB_WEBHOOK_SECRETS` entry) with its own bytes — the library's `raw` format.
 */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const SECRET_PREFIX = 'whsec_';

/** The signer for one secret; throws on a `whsec_` secret whose base64 does not decode. */
export function webhookSigner(secret: string): Webhook {
  return secret.startsWith(SECRET_PREFIX) ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
}

/** Why a `whsec_` secret is unusable (null when it is fine, or not in that form). */
export function secretProblem(secret: string): string | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return 'is not whsec_ followed by standard base64';
  const bytes = Buffer.from(encoded, 'base64').length;
  // The standard asks for keys of 24 to 64 bytes.
  return bytes < 24 || bytes > 64 ? `encodes ${bytes} bytes; Standard Webhooks keys are 24 to 64` : null;
}

/** The three headers of one delivery attempt, signed with every live secret. */
export function signedHeaders(secrets: readonly string[], id: string, timestampS: number, body: string): Record<string, string> {
  const at = new Date(timestampS * 1000);
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestampS),
    [WEBHOOK_SIGNATURE_HEADER]: secrets.map((secret) => webhookSigner(secret).sign(id, at, body)).join(' '),
  };
}
