import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db';
import { type PolicyRules, policyRulesSchema } from './policy-rules';

/**
 * Policies in PostgreSQL: one per customer (agent_id null) and per (customer, agent). Every write sets a new
 * random etag; a write names the etag it saw (If-Match), or none to create — so two admins editing at once
 * cannot overwrite each other silently (RFC 9110 §13.1.1). The check and the write are one statement.
 */

export interface StoredPolicy {
  customerId: string;
  agentId: string | null;
  rules: PolicyRules;
  etag: string;
  updatedAt: Date;
}

/** `any`: If-Match: * (whatever is there); null: no If-Match (create only). */
export type Precondition = { etags: readonly string[] } | 'any' | null;
export type WriteOutcome = { ok: true; policy: StoredPolicy } | { ok: false; problem: 'exists' | 'precondition' };
export type DeleteOutcome = { ok: true } | { ok: false; problem: 'absent' | 'precondition' };

export interface PolicyStore {
  get(customerId: string, agentId: string | null): Promise<StoredPolicy | null>;
  /** Every customer with at least one policy (its own or an agent's). */
  customersWithPolicies(): Promise<string[]>;
  /** The customer's policy and every agent policy of the customer. */
  forCustomer(customerId: string): Promise<StoredPolicy[]>;
  put(customerId: string, agentId: string | null, rules: PolicyRules, precondition: Precondition): Promise<WriteOutcome>;
  delete(customerId: string, agentId: string | null, precondition: Precondition): Promise<DeleteOutcome>;
}

interface Row {
  customer_id: string;
  agent_id: string | null;
  rules: unknown;
  etag: string;
  updated_at: Date;
}

// What the database holds was validated on write; parsing it again keeps a hand-edited row from becoming a bug.
const toPolicy = (r: Row): StoredPolicy => ({
  customerId: r.customer_id,
  agentId: r.agent_id,
  rules: policyRulesSchema.parse(typeof r.rules === 'string' ? JSON.parse(r.rules) : r.rules),
  etag: r.etag,
  updatedAt: r.updated_at,
});

const newEtag = () => randomBytes(12).toString('base64url');
const SAME_ROW = 'customer_id = $1 AND agent_id IS NOT DISTINCT FROM $2::uuid';
const etagCondition = (p: Precondition, param: string) => (p === 'any' || p === null ? '' : ` AND etag = ANY(${param}::text[])`);

export function createPolicyStore(db: Db): PolicyStore {
  return {
    async get(customerId, agentId) {
      const rows = await db.query<Row>(`SELECT * FROM hub_policies WHERE ${SAME_ROW}`, [customerId, agentId]);
      return rows[0] ? toPolicy(rows[0]) : null;
    },
    async customersWithPolicies() {
      return (await db.query<{ customer_id: string }>('SELECT DISTINCT customer_id FROM hub_policies')).map((r) => r.customer_id);
    },
    async forCustomer(customerId) {
      return (await db.query<Row>('SELECT * FROM hub_policies WHERE customer_id = $1', [customerId])).map(toPolicy);
    },
    async put(customerId, agentId, rules, precondition) {
      const json = JSON.stringify(rules);
      if (precondition === null) {
        const rows = await db.query<Row>(
          'INSERT INTO hub_policies (customer_id, agent_id, rules, etag) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT DO NOTHING RETURNING *',
          [customerId, agentId, json, newEtag()],
        );
        return rows[0] ? { ok: true, policy: toPolicy(rows[0]) } : { ok: false, problem: 'exists' };
      }
      const params: unknown[] = [customerId, agentId, json, newEtag()];
      if (precondition !== 'any') params.push(precondition.etags);
      const rows = await db.query<Row>(
        `UPDATE hub_policies SET rules = $3::jsonb, etag = $4, updated_at = now() WHERE ${SAME_ROW}${etagCondition(precondition, '$5')} RETURNING *`,
        params,
      );
      return rows[0] ? { ok: true, policy: toPolicy(rows[0]) } : { ok: false, problem: 'precondition' };
    },
    async delete(customerId, agentId, precondition) {
      const params: unknown[] = [customerId, agentId];
      if (precondition !== null && precondition !== 'any') params.push(precondition.etags);
      const rows = await db.query(`DELETE FROM hub_policies WHERE ${SAME_ROW}${etagCondition(precondition, '$3')} RETURNING etag`, params);
      if (rows.length > 0) return { ok: true };
      // RFC 9110 §13.1.1: If-Match naming etags is false when there is nothing at all.
      return { ok: false, problem: precondition === null || precondition === 'any' ? 'absent' : 'precondition' };
    },
  };
}
