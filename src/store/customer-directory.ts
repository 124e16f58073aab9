import { COLUMNS, type CredentialRecord, type Row, toRecord } from './credential-rows';
import type { Db } from './db';

/**
 * The customers that have connections, a page at a time, in customer-id order (keyset pagination: a page costs
 * the same wherever it starts). Lists across customers, so only a Hub admin's request reaches it
 * (GET /api/admin/customers); a customer-scoped caller is answered from its own rows (credential-store.ts).
 */
export interface CustomerDirectory {
  /** Up to `limit` customers after `after` (exclusive), each with every one of its connections. */
  page(options: { after: string | null; limit: number }): Promise<{ customerId: string; records: CredentialRecord[] }[]>;
}

export function createCustomerDirectory(db: Db): CustomerDirectory {
  return {
    async page({ after, limit }) {
      // One round trip: the page's customer ids and all their rows.
      const rows = await db.query<Row>(
        `WITH page AS (
           SELECT DISTINCT customer_id FROM integration_credentials WHERE $1::uuid IS NULL OR customer_id > $1::uuid ORDER BY customer_id LIMIT $2
         )
         SELECT ${COLUMNS} FROM integration_credentials WHERE customer_id IN (SELECT customer_id FROM page)
          ORDER BY customer_id, integration, user_id NULLS FIRST`,
        [after, limit],
      );
      const byCustomer = new Map<string, CredentialRecord[]>();
      for (const row of rows) {
        const records = byCustomer.get(row.customer_id) ?? [];
        if (records.length === 0) byCustomer.set(row.customer_id, records);
        records.push(toRecord(row));
      }
      return [...byCustomer].map(([customerId, records]) => ({ customerId, records }));
    },
  };
}
