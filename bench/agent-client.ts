import { Agent, request } from 'node:http';

/**
 * bench:realcall's agent: what posts the execute calls to a Hub. By default node:http with a keep-alive agent — as
 * light as a load generator gets (~0.2 ms of CPU a call here, against ~0.55 ms for Node's fetch measured side by
 * side), so that on a machine whose cores the client shares with the Hub and the sandbox, the client's own cost
 * does not pass for the Hub's. `fetch: true` (BENCH_AGENT_CLIENT=fetch) is Node's fetch, as earlier runs used.
 */
export function agentClient(options: { secret: string; fetch: boolean }) {
  const headers = { authorization: `ServiceSecret ${options.secret}`, 'content-type': 'application/json' };
  const pool = new Agent({ keepAlive: true, maxSockets: 256 });

  const viaHttp = (url: URL, payload: string) =>
    new Promise<unknown>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent: pool,
          headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  const viaFetch = async (url: URL, payload: string) => (await fetch(url, { method: 'POST', headers, body: payload })).json();

  return {
    /** POSTs `payload` (JSON) to the Hub at `hubUrl`'s execute route; resolves with the parsed answer. */
    execute: (hubUrl: string, payload: string): Promise<unknown> => {
      const url = new URL('/api/internal/tools/execute/', hubUrl);
      return options.fetch ? viaFetch(url, payload) : viaHttp(url, payload);
    },
    close: () => pool.destroy(),
  };
}
