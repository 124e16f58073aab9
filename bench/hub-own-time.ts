import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';

/**
 * Loaded into a Hub process by bench:realcall (`--require`), never by the Hub itself: the Hub's own time per
 * execute call, measured inside the process from Node's HTTP diagnostics channels — from the call's arrival to
 * its answer's last byte, minus the time any request of the Hub's to a vendor was out (their union: Gmail's
 * message reads run side by side). Keyed by the vendor's host, so one Hub serving both vendors gives both.
 *
 * What the forwarder-floor share cannot give: that share subtracts each vendor's reference client (googleapis on
 * node-fetch; Microsoft's Graph client on fetch), whose own costs differ per vendor and per request count, while
 * this is the Hub's work alone. One call at a time (the bench's concurrency-1 loop): one call is tracked at once.
 *
 * SIGUSR2 writes the medians since the last signal to BENCH_OWN_TIME_FILE and starts over.
 */

const EXECUTE = '/api/internal/tools/execute/';
let arrived = 0;
let host = '';
let out: [number, number][] = []; // vendor requests of the call in progress: start, end (end 0 while out)
const open = new Map<ClientRequest, number>();
let samples = new Map<string, number[]>();

subscribe('http.server.request.start', (m) => {
  const { request } = m as { request: IncomingMessage };
  if (request.url !== EXECUTE) return;
  arrived = performance.now();
  host = '';
  out = [];
  open.clear();
});
subscribe('http.client.request.start', (m) => {
  const { request } = m as { request: ClientRequest };
  if (!arrived) return;
  host ||= String(request.getHeader('host'));
  open.set(request, out.push([performance.now(), 0]) - 1);
});
subscribe('http.client.response.finish', (m) => {
  const { request } = m as { request: ClientRequest };
  const i = open.get(request);
  if (i !== undefined) out[i]![1] = performance.now();
});
subscribe('http.server.response.finish', (m) => {
  const { request } = m as { request: IncomingMessage };
  if (!arrived || request.url !== EXECUTE) return;
  const total = performance.now() - arrived;
  arrived = 0;
  if (!host) return;
  // The union of the vendor intervals.
  let away = 0;
  let reach = 0;
  for (const [start, end] of out.sort((a, b) => a[0] - b[0])) {
    if (!end) continue;
    if (start > reach) away += end - start;
    else if (end > reach) away += end - reach;
    reach = Math.max(reach, end);
  }
  const list = samples.get(host) ?? [];
  list.push(total - away);
  samples.set(host, list);
});

process.on('SIGUSR2', () => {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const result = Object.fromEntries([...samples].map(([h, xs]) => [h, { calls: xs.length, p50: median(xs) }]));
  samples = new Map();
  if (process.env.BENCH_OWN_TIME_FILE) writeFileSync(process.env.BENCH_OWN_TIME_FILE, JSON.stringify(result));
});
