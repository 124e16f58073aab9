import type { Db } from '../store/db';

/**
 * The console's Overview, aggregated from the audit trail in the database: every replica's calls, not one
 * process's counters (GET /metrics is per process and has no history). Each window is a fixed number of buckets,
 * so an answer's size is bounded whatever the traffic; the scans are bounded by the window through the
 * started_at index (or the customer's own index when one customer is asked for).
 */

export type OverviewWindow = '1h' | '24h';

/** 60 one-minute buckets, or 96 quarter-hours. */
export const WINDOWS: Record<OverviewWindow, { spanS: number; bucketS: number }> = {
  '1h': { spanS: 3_600, bucketS: 60 },
  '24h': { spanS: 86_400, bucketS: 900 },
};

/** Series shown per chart: the busiest tools and the most frequent error codes (the rest are summed as "other"). */
export const MAX_SERIES = 6;

export interface Overview {
  window: OverviewWindow;
  bucket_s: number;
  from: string;
  to: string;
  customer_id: string | null;
  /** One entry per bucket, oldest first, empty buckets included: the bucket's start, calls and failed calls. */
  buckets: { t: string; calls: number; errors: number }[];
  /** Failed calls per bucket by error code (same order as `buckets`), the most frequent codes first. */
  errors_by_code: { code: string; total: number; per_bucket: number[] }[];
  /** Per tool: calls and latency over the window, and p95 per bucket (null where the tool had no call). */
  latency_by_tool: { tool: string; calls: number; p50_ms: number; p95_ms: number; p95_per_bucket: (number | null)[] }[];
  connections_by_status: { integration: string; status: string; count: number }[];
}

export async function overview(db: Db, options: { window: OverviewWindow; customerId: string | null; now: Date }): Promise<Overview> {
  const { spanS, bucketS } = WINDOWS[options.window];
  // Buckets aligned to the bucket size, the last one holding "now": stable from one refresh to the next.
  const endS = Math.floor(options.now.getTime() / 1000 / bucketS) * bucketS + bucketS;
  const startS = endS - spanS;
  const n = spanS / bucketS;
  // Every statement takes exactly the parameters it names (PostgreSQL refuses extra ones).
  const params: unknown[] = [new Date(startS * 1000)];
  const scope = options.customerId === null ? '' : ` AND customer_id = $${params.push(options.customerId)}`;
  const where = `started_at >= $1${scope}`;
  const slotted = [...params, startS, bucketS];
  const slot = `floor((extract(epoch FROM started_at) - $${params.length + 1}) / $${params.length + 2})::int`;

  const [totals, codes, tools, connections] = await Promise.all([
    db.query<{ slot: number; calls: string | number; errors: string | number }>(
      `SELECT ${slot} AS slot, count(*) AS calls, count(*) FILTER (WHERE outcome <> 'ok') AS errors FROM audit_receipts WHERE ${where} GROUP BY 1`,
      slotted,
    ),
    db.query<{ slot: number; code: string; n: string | number }>(
      `SELECT ${slot} AS slot, outcome AS code, count(*) AS n FROM audit_receipts WHERE ${where} AND outcome <> 'ok' GROUP BY 1, 2`,
      slotted,
    ),
    db.query<{ tool: string; calls: string | number; p50: number; p95: number }>(
      `SELECT coalesce(tool, '(unknown)') AS tool, count(*) AS calls, percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
         FROM audit_receipts WHERE ${where} GROUP BY 1 ORDER BY calls DESC, tool LIMIT ${MAX_SERIES}`,
      params,
    ),
    db.query<{ integration: string; status: string; n: string | number }>(
      `SELECT integration, status, count(*) AS n FROM integration_credentials${options.customerId === null ? '' : ' WHERE customer_id = $1'} GROUP BY 1, 2 ORDER BY 1, 2`,
      options.customerId === null ? [] : [options.customerId],
    ),
  ]);

  // p95 per bucket for the charted tools only: `tool` is the caller's text when the tool was unknown, so grouping
  // every name would let one customer's made-up names grow the statement for every admin looking.
  const toolBuckets = await db.query<{ slot: number; tool: string; p95: number }>(
    `SELECT ${slot} AS slot, coalesce(tool, '(unknown)') AS tool, percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
       FROM audit_receipts WHERE ${where} AND coalesce(tool, '(unknown)') = ANY($${slotted.length + 1}::text[]) GROUP BY 1, 2`,
    [...slotted, tools.map((t) => t.tool)],
  );

  const inRange = (s: number) => s >= 0 && s < n;
  const buckets = Array.from({ length: n }, (_, i) => ({ t: new Date((startS + i * bucketS) * 1000).toISOString(), calls: 0, errors: 0 }));
  for (const r of totals) if (inRange(r.slot)) Object.assign(buckets[r.slot]!, { calls: Number(r.calls), errors: Number(r.errors) });

  const byCode = new Map<string, number[]>();
  for (const r of codes) {
    if (!inRange(r.slot)) continue;
    const series = byCode.get(r.code) ?? byCode.set(r.code, new Array<number>(n).fill(0)).get(r.code)!;
    series[r.slot] = Number(r.n);
  }
  const ranked = [...byCode]
    .map(([code, perBucket]) => ({ code, total: perBucket.reduce((a, b) => a + b, 0), per_bucket: perBucket }))
    .sort((a, b) => b.total - a.total || a.code.localeCompare(b.code));
  const errorsByCode = ranked.slice(0, MAX_SERIES);
  if (ranked.length > MAX_SERIES) {
    const rest = ranked.slice(MAX_SERIES);
    errorsByCode.push({
      code: 'other',
      total: rest.reduce((a, r) => a + r.total, 0),
      per_bucket: buckets.map((_, i) => rest.reduce((a, r) => a + r.per_bucket[i]!, 0)),
    });
  }

  const round = (ms: number) => Math.round(Number(ms) * 10) / 10;
  const latency = tools.map((t) => ({
    tool: t.tool,
    calls: Number(t.calls),
    p50_ms: round(t.p50),
    p95_ms: round(t.p95),
    p95_per_bucket: new Array<number | null>(n).fill(null),
  }));
  const byTool = new Map(latency.map((l) => [l.tool, l]));
  for (const r of toolBuckets)
    if (inRange(r.slot)) {
      const l = byTool.get(r.tool);
      if (l) l.p95_per_bucket[r.slot] = round(r.p95);
    }

  return {
    window: options.window,
    bucket_s: bucketS,
    from: new Date(startS * 1000).toISOString(),
    to: new Date(endS * 1000).toISOString(),
    customer_id: options.customerId,
    buckets,
    errors_by_code: errorsByCode,
    latency_by_tool: latency,
    connections_by_status: connections.map((c) => ({ integration: c.integration, status: c.status, count: Number(c.n) })),
  };
}
