/**
 * bench:realcall's "Outlook beside Google": per tool, at concurrency 1, the Hub's own share of a real call on each
 * vendor — its Hub-added latency minus the forwarder floor, i.e. hub p50 − floor p50 (the direct call cancels) —
 * measured in one loop that alternates every way (Google: hub, direct, floor and lean below; Outlook: the same), so
 * both shares see the same machine at the same moments. The bar: Outlook's share within 0.2 ms of Google's.
 *
 * Each vendor's share subtracts that vendor's reference client, and the two clients cost differently per request
 * (googleapis on node-fetch; Microsoft's Graph client on fetch) and make different numbers of requests (Gmail's
 * search is a list and three reads, Graph's one list). So a fourth way per vendor, `lean`, sends the reference's
 * requests over the Hub's own transport: a vendor's `direct − lean` is what its reference costs beyond the
 * exchange the Hub itself makes, and `share + (direct − lean)` is the Hub's share with that taken out — the part of
 * a call that is the Hub's own work (and its process hop), comparable across vendors. Printed beside the bar's
 * figure, never instead of it.
 */

export interface Way {
  label: string;
  /** One call; resolves when answered. */
  call(tool: string): Promise<void>;
  /** A Hub's: CPU ms its process(es) have used so far. */
  cpuMs?: () => number;
}

export interface VendorWays {
  vendor: 'google' | 'outlook';
  hub: Way[];
  direct: Way;
  floor: Way;
  /** The reference's requests over the Hub's own transport (see above). */
  lean?: Way;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

export const TARGET_MS = 0.2;
/** CPU blocks per vendor and Hub, calls per block, and the pause before a block's CPU is read (past the audit's flush). */
const CPU_ROUNDS = 3;
const CPU_CALLS = 200;
const SETTLE_MS = 500;

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function compareShares(options: {
  tools: readonly string[];
  calls: number;
  gapMs: number;
  vendors: VendorWays[];
  /** The first Hub's own time per call by vendor since the last read (bench/hub-own-time.ts), p50 ms. */
  ownTime?: () => Promise<Partial<Record<VendorWays['vendor'], number>>>;
  out: (s: string) => void;
}): Promise<void> {
  const { tools, calls, gapMs, vendors, ownTime, out } = options;
  const settle = () => new Promise((resolve) => setTimeout(resolve, gapMs));
  const ways = vendors.flatMap((v) => [...v.hub, v.direct, v.floor, ...(v.lean ? [v.lean] : [])].map((w) => ({ key: `${v.vendor}\u0000${w.label}`, w })));
  out(
    `Outlook beside Google, concurrency 1: ${calls} calls per tool and way, the ${ways.length} ways alternated, ${gapMs} ms apart. ` +
      `Share = the Hub's own part of a call: Hub-added minus the forwarder floor (hub p50 − floor p50).\n`,
  );
  for (const tool of tools) {
    for (let i = 0; i < 30; i++) for (const { w } of ways) await w.call(tool); // warm-up: JIT, caches, connections
    await ownTime?.(); // starts over
    const lat = new Map<string, number[]>(ways.map(({ key }) => [key, []]));
    for (let i = 0; i < calls; i++) {
      for (const { key, w } of ways) {
        lat.get(key)!.push(await timed(() => w.call(tool)));
        await settle();
      }
    }
    const own = await ownTime?.();
    out(`${tool}\n`);
    const shares = new Map<string, number>(); // hub label → vendor → share
    const excess = new Map<string, number>(); // vendor → its reference's p50 beyond the Hub's transport
    for (const v of vendors) {
      const d = lat.get(`${v.vendor}\u0000${v.direct.label}`)!;
      const f = lat.get(`${v.vendor}\u0000${v.floor.label}`)!;
      out(
        `  ${v.vendor.padEnd(7)} direct p50 ${ms(pct(d, 0.5))} / p90 ${ms(pct(d, 0.9))} ms; floor +${ms(pct(f, 0.5) - pct(d, 0.5))} (p90 +${ms(pct(f, 0.9) - pct(d, 0.9))})\n`,
      );
      if (v.lean) {
        const l = lat.get(`${v.vendor}\u0000${v.lean.label}`)!;
        excess.set(v.vendor, pct(d, 0.5) - pct(l, 0.5));
        out(
          `  ${''.padEnd(7)} lean    p50 ${ms(pct(l, 0.5))} ms (the same requests over the Hub's transport): the reference client costs ${signed(pct(d, 0.5) - pct(l, 0.5))} ms beyond it\n`,
        );
      }
      for (const h of v.hub) {
        const t = lat.get(`${v.vendor}\u0000${h.label}`)!;
        const share = pct(t, 0.5) - pct(f, 0.5);
        shares.set(`${h.label}\u0000${v.vendor}`, share);
        out(
          `  ${''.padEnd(7)} ${h.label.padEnd(7)} p50 ${ms(pct(t, 0.5))} / p90 ${ms(pct(t, 0.9))} ms; Hub-added p50 +${ms(pct(t, 0.5) - pct(d, 0.5))}, ` +
            `**Hub's share p50 ${signed(share)} ms** (p90 ${signed(pct(t, 0.9) - pct(f, 0.9))})\n`,
        );
      }
    }
    // The Hub's CPU per call on each vendor, in alternated blocks of calls one at a time: what its own share is
    // made of, and far steadier than a latency on a loaded machine (/proc's 10 ms ticks over CPU_CALLS calls).
    const cpu = new Map<string, number[]>();
    for (let r = 0; r < CPU_ROUNDS; r++) {
      for (const v of vendors) {
        for (const h of v.hub) {
          if (!h.cpuMs) continue;
          const before = h.cpuMs();
          for (let i = 0; i < CPU_CALLS; i++) await h.call(tool);
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          const key = `${h.label}\u0000${v.vendor}`;
          cpu.set(key, [...(cpu.get(key) ?? []), (h.cpuMs() - before) / CPU_CALLS]);
        }
      }
    }
    const google = vendors.find((v) => v.vendor === 'google');
    const outlook = vendors.find((v) => v.vendor === 'outlook');
    if (google && outlook) {
      for (const h of outlook.hub) {
        const g = shares.get(`${h.label}\u0000google`);
        const o = shares.get(`${h.label}\u0000outlook`);
        if (g === undefined || o === undefined) continue;
        const diff = o - g;
        out(
          `  ${h.label.padEnd(7)} share: Google ${signed(g)} ms, Outlook ${signed(o)} ms, **Outlook − Google ${signed(diff)} ms** ` +
            `(target within ${TARGET_MS} ms: ${Math.abs(diff) <= TARGET_MS ? 'met' : 'NOT met'})\n`,
        );
        const eg = excess.get('google');
        const eo = excess.get('outlook');
        if (eg !== undefined && eo !== undefined)
          out(
            `  ${''.padEnd(7)} net of each reference client's cost beyond the Hub's transport (share + direct − lean): Google ${signed(g + eg)} ms, ` +
              `Outlook ${signed(o + eo)} ms, **Outlook − Google ${signed(o + eo - (g + eg))} ms**; of the raw difference, ${signed(eg - eo)} ms is the two reference clients'\n`,
          );
        if (own?.google !== undefined && own.outlook !== undefined && h === outlook.hub[0])
          out(
            `  ${''.padEnd(7)} Hub's own time inside its process (arrival to answer, minus its vendor requests; p50): Google ${ms(own.google)} ms, ` +
              `Outlook ${ms(own.outlook)} ms, **Outlook − Google ${signed(own.outlook - own.google)} ms**\n`,
          );
        const gc = cpu.get(`${h.label}\u0000google`);
        const oc = cpu.get(`${h.label}\u0000outlook`);
        if (gc && oc)
          out(
            `  ${''.padEnd(7)} Hub CPU per call (median of ${CPU_ROUNDS} blocks × ${CPU_CALLS}): Google ${ms(pct(gc, 0.5))} ms, Outlook ${ms(pct(oc, 0.5))} ms, ` +
              `Outlook − Google ${signed(pct(oc, 0.5) - pct(gc, 0.5))} ms (blocks: Google ${gc.map(ms).join(', ')}; Outlook ${oc.map(ms).join(', ')})\n`,
          );
      }
    }
  }
  out('\n');
}
