import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * A schema of the run's own on a PostgreSQL server, and the connection string that selects it. A bench's Hubs
 * seal their secrets (the audit key among them) with a key made for the run: on a database a previous run left
 * behind they could not unseal its audit key, and would measure a Hub that writes no receipts.
 */
export async function ownSchema(url: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: scoped.toString(),
    drop: async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}
