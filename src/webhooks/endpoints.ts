import { createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../store/db';
import type { HubSecrets } from '../store/hub-secrets';

/**
 * A customer's own webhook receiver (set through the admin API). Its signing secret is never stored: it is
 * HMAC(webhook-key, customer_id, nonce), the key being the Hub's `webhook-key` (hub_secrets: made once, sealed
 * under the encryption keys, re-sealed by rotate-keys) and the nonce random per endpoint. Setting a new URL keeps
 * the secret; a rotation draws a new nonce and the previous one keeps signing for the overlap, so the customer
 * can switch their receiver over without losing a delivery; deleting the endpoint forgets the nonce for good.
 */

export interface Endpoint {
  customerId: string;
  url: string;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string | null;
  previousUntil: Date | null;
  nonce: string;
  previousNonce: string | null;
}

interface EndpointRow {
  customer_id: string;
  url: string;
  created_at: Date;
  updated_at: Date;
  updated_by: string | null;
  previous_until: Date | null;
  secret_nonce: string;
  previous_nonce: string | null;
}

const toEndpoint = (r: EndpointRow): Endpoint => ({
  customerId: r.customer_id,
  url: r.url,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  updatedBy: r.updated_by,
  previousUntil: r.previous_until === null ? null : new Date(r.previous_until),
  nonce: r.secret_nonce,
  previousNonce: r.previous_nonce,
});

const newNonce = () => randomBytes(16).toString('base64url');

export interface Endpoints {
  get(customerId: string): Promise<Endpoint | null>;
  /** Creates or re-points the endpoint; `created` says whether a secret was made (it is returned only then). */
  put(customerId: string, url: string, actor: string | null): Promise<{ endpoint: Endpoint; created: boolean }>;
  rotate(customerId: string, actor: string | null, overlapS: number): Promise<Endpoint | null>;
  remove(customerId: string): Promise<boolean>;
  /** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
  secretsOf(endpoint: Endpoint, now?: number): Promise<string[]>;
  secretOf(endpoint: Endpoint): Promise<string>;
}

export function createEndpoints(db: Db, secrets: HubSecrets): Endpoints {
  const derive = async (customerId: string, nonce: string) => {
    const key = await secrets.get('webhook-key');
    if (key === null) throw new Error('the webhook key is sealed with an encryption key this Hub does not have');
    // Standard Webhooks' form: whsec_ + standard base64 of the 32 key bytes, which its libraries decode and sign with.
    return `whsec_${createHmac('sha256', key).update(`hub-webhook-secret-v1\n${customerId}\n${nonce}`).digest('base64')}`;
  };
  const columns = 'customer_id, url, created_at, updated_at, updated_by, previous_until, secret_nonce, previous_nonce';
  return {
    async get(customerId) {
      const [row] = await db.query<EndpointRow>(`SELECT ${columns} FROM webhook_endpoints WHERE customer_id = $1`, [customerId]);
      return row ? toEndpoint(row) : null;
    },
    async put(customerId, url, actor) {
      const [row] = await db.query<EndpointRow & { inserted: boolean }>(
        `INSERT INTO webhook_endpoints (customer_id, url, secret_nonce, updated_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (customer_id) DO UPDATE SET url = EXCLUDED.url, updated_at = now(), updated_by = EXCLUDED.updated_by
         RETURNING ${columns}, (xmax = 0) AS inserted`,
        [customerId, url, newNonce(), actor],
      );
      return { endpoint: toEndpoint(row!), created: row!.inserted };
    },
    async rotate(customerId, actor, overlapS) {
      const [row] = await db.query<EndpointRow>(
        `UPDATE webhook_endpoints SET previous_nonce = secret_nonce, secret_nonce = $2, previous_until = now() + make_interval(secs => $3),
           updated_at = now(), updated_by = $4 WHERE customer_id = $1 RETURNING ${columns}`,
        [customerId, newNonce(), overlapS, actor],
      );
      return row ? toEndpoint(row) : null;
    },
    async remove(customerId) {
      const rows = await db.query('DELETE FROM webhook_endpoints WHERE customer_id = $1 RETURNING customer_id', [customerId]);
      return rows.length > 0;
    },
    async secretsOf(endpoint, now = Date.now()) {
      const current = await derive(endpoint.customerId, endpoint.nonce);
      const previous = endpoint.previousNonce !== null && endpoint.previousUntil !== null && endpoint.previousUntil.getTime() > now;
      return previous ? [current, await derive(endpoint.customerId, endpoint.previousNonce!)] : [current];
    },
    secretOf: (endpoint) => derive(endpoint.customerId, endpoint.nonce),
  };
}
