import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RequestHandler, Response } from 'express';
import { plainPage, writeDocument } from '../../console/html';
import { logAccess } from '../../http/request-context';

/** dist/docs/api.html, written by `npm run build` from openapi.yaml: above src/routes (tests) and dist/src/routes. */
export function findApiReference(from = __dirname): string | null {
  for (let dir = from, i = 0; i < 5; i++, dir = dirname(dir)) {
    const candidate = join(dir, 'dist', 'docs', 'api.html');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

interface Page {
  html: Buffer;
  gzip: Buffer;
  headers: readonly string[];
}

/**
 * The page's own CSP: its inline scripts by hash (Redocly inlines its bundle and the embedded spec) and nothing
 * else from anywhere; styles inline because Redoc's styled-components write `<style>` elements at run time —
 * a style can neither run code nor send data under `default-src 'none'`, `connect-src 'none'`.
 */
function pageOf(html: Buffer): Page {
  const text = html.toString('utf8');
  const hashes = [...text.matchAll(/<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/g)]
    .filter((m) => m[1]!.length > 0)
    .map((m) => `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
  const csp = [
    "default-src 'none'",
    `script-src ${[...new Set(hashes)].join(' ')}`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const headers = ['Content-Security-Policy', csp, 'X-Frame-Options', 'DENY', 'X-Content-Type-Options', 'nosniff', 'Referrer-Policy', 'no-referrer'];
  return { html, gzip: gzipSync(html), headers };
}

function send(res: Response, page: Page, gzip: boolean): void {
  const body = gzip ? page.gzip : page.html;
  res.writeHead(200, [
    ...page.headers,
    'Cache-Control',
    'no-store',
    'Vary',
    'Accept-Encoding',
    'X-Request-Id',
    res.locals.requestId,
    'Content-Type',
    'text/html; charset=utf-8',
    ...(gzip ? ['Content-Encoding', 'gzip'] : []),
    'Content-Length',
    String(body.length),
  ]);
  res.end(body);
  logAccess(res);
}

/**
 * GET /docs — the HTML API reference rendered from openapi.yaml, for people (agents read /openapi.yaml). Read and
 * compressed on the first request, not at start: most Hubs never serve it. A Hub run from sources without
 * `npm run build` answers 503 with a page saying so.
 */
export function apiDocsRoute(path: string | null = findApiReference()): RequestHandler {
  let page: Page | undefined;
  return (req, res) => {
    if (path === null) {
      writeDocument(res, 503, plainPage(null, 'API reference not built', '<p>The API reference is missing: run <code>npm run build</code>.</p>'));
      return;
    }
    page ??= pageOf(readFileSync(path));
    send(res, page, /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')));
  };
}
