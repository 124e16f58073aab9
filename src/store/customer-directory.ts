import { COLUMNS, type CredentialRecord, type Row, toRecord } from './credential-rows';
import type { Db } from './db';

/** A customer's display name, as an admin set it (PUT /api/admin/customers/{customer_id}). */
export interface CustomerName {
  displayName: string;
  updatedAt: Date;
  /** The admin token's `sub`, or null when it named nobody. */
  updatedBy: string | null;
}

/** One customer of a page: its name (if one was set) and every one of its connections (maybe none). */
export interface CustomerEntry {
  customerId: string;
  name: CustomerName | null;
  records: CredentialRecord[];
}

/**
 * The customers the Hub knows — those with connections or a display name — a page at a time, in customer-id order
 * (keyset pagination: a page costs the same wherever it starts), optionally filtered by a search text. Lists
 * across customers, so only a Hub admin's request reaches `page` (GET /api/admin/customers); a customer-scoped
 * caller is answered from its own rows (credential-store.ts and `nameOf`).
 */
export interface CustomerDirectory {
  /**
   * Up to `limit` customers after `after` (exclusive). With `search`: only those whose display name contains it
   * (case-insensitive) or whose id starts with it.
   */
  page(options: { after: string | null; limit: number; search?: string | null }): Promise<CustomerEntry[]>;
  nameOf(customerId: string): Promise<CustomerName | null>;
  /** Sets (or, with null, removes) the display name; answers the name now in force. */
  setName(customerId: string, displayName: string | null, actor: string | null): Promise<CustomerName | null>;
}

interface NameRow {
  customer_id: string;
  display_name: string;
  updated_at: Date | string;
  updated_by: string | null;
}

/** A row of a page: the customer's id and name, and one of its connections (all null when it has none). */
type PageRow = Row & { page_customer_id: string; display_name: string | null; name_updated_at: Date | string | null; name_updated_by: string | null };

const nameOfRow = (r: NameRow): CustomerName => ({ displayName: r.display_name, updatedAt: new Date(r.updated_at), updatedBy: r.updated_by });

const ZEROS = '00000000-0000-0000-0000-000000000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The id range a search text covers when it is the start of a customer id ("3f2a", "3f2a1c00-9"): its lowest and
 * highest completions. A range on the primary keys, so an id search is an index scan, never a cast of every row.
 */
export function idPrefixRange(search: string): [string, string] | null {
  const s = search.toLowerCase();
  if (s.length === 0 || s.length > ZEROS.length) return null;
  const lo = s + ZEROS.slice(s.length);
  const hi = s + ZEROS.slice(s.length).replace(/0/g, 'f');
  return UUID.test(lo) && UUID.test(hi) ? [lo, hi] : null;
}

/** A LIKE pattern matching `text` anywhere, its own wildcards taken literally (backslash is LIKE's escape). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

export function createCustomerDirectory(db: Db): CustomerDirectory {
  return {
    async page({ after, limit, search = null }) {
      const range = search === null ? null : idPrefixRange(search);
      const pattern = search === null ? null : containsPattern(search);
      // One round trip: the page's ids (from both tables, each read in id order from `after` and at most `limit`
      // rows: the union of two keyset scans), their names and all their rows. A search reads names whose text
      // matches (a scan of the names table, bounded by its size and the limit) and ids in the prefix's range.
      const rows = await db.query<PageRow>(
        `WITH page AS (
           SELECT customer_id FROM (
             (SELECT DISTINCT customer_id FROM integration_credentials
               WHERE ($1::uuid IS NULL OR customer_id > $1::uuid)
                 AND ($3::text IS NULL OR ($4::uuid IS NOT NULL AND customer_id BETWEEN $4::uuid AND $5::uuid))
               ORDER BY customer_id LIMIT $2)
             UNION
             (SELECT customer_id FROM customer_names
               WHERE ($1::uuid IS NULL OR customer_id > $1::uuid)
                 AND ($3::text IS NULL OR display_name ILIKE $3 OR ($4::uuid IS NOT NULL AND customer_id BETWEEN $4::uuid AND $5::uuid))
               ORDER BY customer_id LIMIT $2)
           ) ids ORDER BY customer_id LIMIT $2
         )
         SELECT p.customer_id AS page_customer_id, n.display_name, n.updated_at AS name_updated_at, n.updated_by AS name_updated_by, c.*
           FROM page p
           LEFT JOIN customer_names n ON n.customer_id = p.customer_id
           LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM integration_credentials WHERE customer_id = p.customer_id) c ON true
          ORDER BY p.customer_id, c.integration, c.user_id NULLS FIRST`,
        // A search that is no id prefix matches by name only ($4 null).
        [after, limit, pattern, range?.[0] ?? null, range?.[1] ?? null],
      );
      const byCustomer = new Map<string, CustomerEntry>();
      for (const row of rows) {
        let entry = byCustomer.get(row.page_customer_id);
        if (entry === undefined) {
          const name =
            row.display_name === null
              ? null
              : nameOfRow({
                  customer_id: row.page_customer_id,
                  display_name: row.display_name,
                  updated_at: row.name_updated_at!,
                  updated_by: row.name_updated_by,
                });
          entry = { customerId: row.page_customer_id, name, records: [] };
          byCustomer.set(row.page_customer_id, entry);
        }
        if (row.customer_id !== null) entry.records.push(toRecord(row));
      }
      return [...byCustomer.values()];
    },

    async nameOf(customerId) {
      const [row] = await db.query<NameRow>('SELECT customer_id, display_name, updated_at, updated_by FROM customer_names WHERE customer_id = $1', [
        customerId,
      ]);
      return row ? nameOfRow(row) : null;
    },

    async setName(customerId, displayName, actor) {
      if (displayName === null) {
        await db.query('DELETE FROM customer_names WHERE customer_id = $1', [customerId]);
        return null;
      }
      const [row] = await db.query<NameRow>(
        `INSERT INTO customer_names (customer_id, display_name, updated_at, updated_by) VALUES ($1, $2, now(), $3)
         ON CONFLICT (customer_id) DO UPDATE SET display_name = EXCLUDED.display_name, updated_at = now(), updated_by = EXCLUDED.updated_by
         RETURNING customer_id, display_name, updated_at, updated_by`,
        [customerId, displayName, actor],
      );
      return nameOfRow(row!);
    },
  };
}
