/**
 * bench:realcall's Outlook throughput beside Google's: per tool, rounds of many calls at once through the Hub and
 * straight to each sandbox, alternated, giving hub/direct (calls per second) and the Hub's CPU per call beyond the
 * direct client's, for each vendor side by side.
 *
 * Straight to Outlook, at most 4 calls are in flight: Graph allows 4 concurrent requests per app and mailbox
 * (learn.microsoft.com/graph/throttling-limits#outlook-service-limits) and answers more with 429s, so a direct
 * client that sent 20 at once would measure Microsoft's refusals, not a call. The agents still send `concurrency`
 * at once to the Hub, which holds the rest of them in turn (src/providers/microsoft/resilience.ts).
 */

export interface Saturated {
  perSecond: number;
  /** CPU ms per call of the measured process(es). */
  cpuMs: number;
}

export interface ThroughputWays {
  vendor: 'google' | 'outlook';
  hub: (tool: string) => Promise<void>;
  direct: (tool: string) => Promise<void>;
  /** Calls in flight at once straight to the vendor. */
  directConcurrency: number;
  hubCpuMs: () => number;
}

/** Outlook's concurrent requests per app and mailbox (limits.ts). */
export const OUTLOOK_DIRECT_CONCURRENCY = 4;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => x.toFixed(2);

export async function compareThroughput(options: {
  tools: readonly string[];
  rounds: number;
  calls: number;
  concurrency: number;
  vendors: ThroughputWays[];
  saturate: (fn: () => Promise<void>, total: number, concurrency: number, cpu: () => number) => Promise<Saturated>;
  directCpuMs: () => number;
  out: (s: string) => void;
}): Promise<void> {
  const { tools, rounds, calls, concurrency, vendors, saturate, directCpuMs, out } = options;
  out(
    `Outlook beside Google, throughput: ${rounds} rounds × ${calls} calls per tool and way, alternated; agents send ${concurrency} at once ` +
      `(straight to Outlook at most ${OUTLOOK_DIRECT_CONCURRENCY}, Graph's limit per mailbox).\n`,
  );
  for (const tool of tools) {
    const seen = new Map(vendors.map((v) => [v.vendor, [] as { ratio: number; beyond: number; rate: number }[]]));
    for (let r = 0; r < rounds; r++) {
      for (const v of vendors) {
        const hub = await saturate(() => v.hub(tool), calls, concurrency, v.hubCpuMs);
        const direct = await saturate(() => v.direct(tool), calls, v.directConcurrency, directCpuMs);
        seen.get(v.vendor)!.push({ ratio: hub.perSecond / direct.perSecond, beyond: hub.cpuMs - direct.cpuMs, rate: hub.perSecond });
      }
    }
    out(`${tool}\n`);
    for (const v of vendors) {
      const rs = seen.get(v.vendor)!;
      out(
        `  ${v.vendor.padEnd(7)} hub ${median(rs.map((x) => x.rate)).toFixed(0)} calls/s, **hub/direct ${median(rs.map((x) => x.ratio)).toFixed(2)}** ` +
          `(rounds ${rs.map((x) => x.ratio.toFixed(2)).join(', ')}); Hub CPU per call beyond direct ${ms(median(rs.map((x) => x.beyond)))} ms ` +
          `(rounds ${rs.map((x) => ms(x.beyond)).join(', ')})\n`,
      );
    }
  }
  out('\n');
}
