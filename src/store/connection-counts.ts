import type { Db } from './db';

/** Connections per integration and stored status (`connected`, `expired`…), for the `hub_connections` gauge. */
export async function countConnections(db: Db): Promise<{ integration: string; status: string; count: number }[]> {
  const rows = await db.query<{ integration: string; status: string; n: string | number }>(
    'SELECT integration, status, count(*) AS n FROM integration_credentials GROUP BY integration, status',
  );
  return rows.map((r) => ({ integration: r.integration, status: r.status, count: Number(r.n) }));
}
