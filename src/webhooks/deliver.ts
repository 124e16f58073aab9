import http from 'node:http';
import https from 'node:https';
import { guardedLookup, targetUrlProblem } from './target';

export interface DeliveryResult {
  status: number | null;
  error: string | null;
  durationMs: number;
}

const MAX_ERROR_CHARS = 300;

/**
 * One POST of a webhook: no redirects (Node's http never follows them; a 3xx counts as a failure), a total
 * timeout, the answer's body read and thrown away, and the target checked again right here — the URL's form, and
 * every address its name resolves to in the lookup the connection itself uses (target.ts).
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<DeliveryResult> {
  const t0 = performance.now();
  const done = (status: number | null, error: string | null): DeliveryResult => ({
    status,
    error: error?.slice(0, MAX_ERROR_CHARS) ?? null,
    durationMs: Math.round(performance.now() - t0),
  });
  const problem = targetUrlProblem(url, options.allowPrivate);
  if (problem !== null) return Promise.resolve(done(null, `target refused: the URL ${problem}`));
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'Hub-Webhooks/1' },
        lookup: guardedLookup(options.allowPrivate),
        signal: AbortSignal.timeout(options.timeoutMs),
        agent: false,
      },
      (res) => {
        res.on('error', () => resolve(done(res.statusCode ?? null, 'answer cut off')));
        res.on('end', () => resolve(done(res.statusCode ?? null, null)));
        res.resume();
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EHUB_FORBIDDEN_ADDRESS'
          ? `target refused: ${err.message}`
          : err.name === 'AbortError' || err.name === 'TimeoutError'
            ? `no answer within ${options.timeoutMs} ms`
            : `${err.code ?? err.name}: ${err.message}`;
      resolve(done(null, why));
    });
    req.end(body);
  });
}
