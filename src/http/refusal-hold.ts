import type { Response } from 'express';

/**
 * Holds a rate-limit refusal for `ms` before it is sent. A caller that resends at once on 429 (a flood, a retry
 * loop that ignores Retry-After) otherwise keeps the event loop busy answering it, and other customers' calls wait
 * behind those answers; held, one connection can ask only a few times a second. Resolves false when the client
 * left meanwhile (nothing is left to send).
 */
export function holdRefusal(res: Response, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(true);
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const left = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', left);
      resolve(true);
    }, ms);
    res.once('close', left);
  });
}
