import { Webhook } from 'standardwebhooks';
import { SECRET_PREFIX, secretProblem } from '../config';

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
export { SECRET_PREFIX, secretProblem };

/** The signer for one secret; throws on a `whsec_` secret whose base64 does not decode. */
export function webhookSigner(secret: string): Webhook {
  return secret.startsWith(SECRET_PREFIX) ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
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
