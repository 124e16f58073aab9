import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../store/db';

/**
 * Service keys in PostgreSQL. A key is `hub_sk_` + 32 random bytes (base64url); only its SHA-256 is stored, and
 * the key itself is returned once, by `create`.
 */

export const SERVICE_KEY_PREFIX = 'hub_sk_';

export const digestOf = (presented: string): Buffer => hash('sha256', presented, 'buffer');

export interface ServiceKeyScope {
  /** Lower-case customer ids the key may act for; null = every customer. */
  customerIds: readonly string[] | null;
  /** The only agent_id the key may present; null = any. */
  agentId: string | null;
  /** Tool allow-list (names or `name@major`); null = every tool. */
  tools: readonly string[] | null;
}

export interface ServiceKeyRecord extends ServiceKeyScope {
  id: string;
  name: string;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface ServiceKeyStore {
  create(input: ServiceKeyScope & { name: string; expiresAt: Date | null }): Promise<{ record: ServiceKeyRecord; key: string }>;
  list(): Promise<ServiceKeyRecord[]>;
  get(id: string): Promise<ServiceKeyRecord | null>;
  /** Marks the key revoked (idempotent); null when there is no such key. */
  revoke(id: string): Promise<ServiceKeyRecord | null>;
  /** Every key not revoked, with its digest: what each replica holds in memory. */
  loadUsable(): Promise<{ digest: Buffer; record: ServiceKeyRecord }[]>;
  /** Writes the last-use times gathered in memory, one statement for all of them (never moves a time back). */
  recordUse(uses: ReadonlyMap<string, number>): Promise<void>;
}

interface Row {
  id: string;
  name: string;
  key_hash?: Buffer | Uint8Array;
  customer_ids: string[] | null;
  agent_id: string | null;
  tools: string[] | null;
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, customer_ids, agent_id, tools, expires_at, created_at, last_used_at, revoked_at';

const toRecord = (r: Row): ServiceKeyRecord => ({
  id: r.id,
  name: r.name,
  customerIds: r.customer_ids,
  agentId: r.agent_id,
  tools: r.tools,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export function createServiceKeyStore(db: Db): ServiceKeyStore {
  return {
    async create(input) {
      const key = `${SERVICE_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const rows = await db.query<Row>(
        `INSERT INTO hub_service_keys (id, name, key_hash, customer_ids, agent_id, tools, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [randomUUID(), input.name, digestOf(key), input.customerIds, input.agentId, input.tools, input.expiresAt],
      );
      return { record: toRecord(rows[0]!), key };
    },
    async list() {
      return (await db.query<Row>(`SELECT ${COLUMNS} FROM hub_service_keys ORDER BY created_at, id`)).map(toRecord);
    },
    async get(id) {
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM hub_service_keys WHERE id = $1`, [id]);
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async revoke(id) {
      const rows = await db.query<Row>(`UPDATE hub_service_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async loadUsable() {
      const rows = await db.query<Row>(`SELECT ${COLUMNS}, key_hash FROM hub_service_keys WHERE revoked_at IS NULL`);
      return rows.map((r) => ({ digest: Buffer.from(r.key_hash!), record: toRecord(r) }));
    },
    async recordUse(uses) {
      if (uses.size === 0) return;
      const ids = [...uses.keys()];
      const times = ids.map((id) => new Date(uses.get(id)!).toISOString());
      await db.query(
        `UPDATE hub_service_keys k SET last_used_at = GREATEST(k.last_used_at, u.t)
         FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::timestamptz[]) AS t) u WHERE k.id = u.id`,
        [ids, times],
      );
    },
  };
}
