import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import helmet from 'helmet';
import type { Page } from '../integrations/connect-pages';
import './locals';
import { logAccess } from './request-context';

/**
 * The few HTML answers the Hub gives (the end of a connect flow) and its browser redirects. Pages get helmet's
 * document profile, with a CSP that allows exactly the one inline stylesheet below (by hash) and nothing else —
 * no scripts, no forms, no frames — and `Referrer-Policy: no-referrer`, because the URLs in this flow carry a
 * connect link token or an authorization code that must not travel on in a Referer header.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem}.success h1{color:#1a7f37}.warning h1{color:#9a6700}.error h1{color:#cf222e}
code{background:#f6f8fa;padding:0 .3em;border-radius:4px}`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

function documentHeaders(): readonly string[] {
  const recorded: string[] = [];
  const recorder = { setHeader: (n: string, v: string) => recorded.push(n, v), removeHeader: () => {} } as unknown as ServerResponse;
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: [STYLE_HASH],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  })({} as IncomingMessage, recorder, () => {});
  return [...recorded, 'Cache-Control', 'no-store'];
}

const HEADERS = documentHeaders();

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderPage(page: Page): string {
  const list = page.list
    ? `<h2>${escapeHtml(page.list.heading)}</h2><ul>${page.list.items.map((i) => `<li><code>${escapeHtml(i)}</code></li>`).join('')}</ul>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(page.title)}</title><style>${STYLE}</style></head>
<body class="${page.tone}"><main><h1>${escapeHtml(page.title)}</h1>
${page.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
${list}</main></body></html>
`;
}

function write(res: Response, status: number, headers: readonly string[], body: string): void {
  res.writeHead(status, [...HEADERS, 'X-Request-Id', res.locals.requestId, ...headers, 'Content-Length', String(Buffer.byteLength(body))]);
  res.end(body);
  logAccess(res);
}

export function sendPage(res: Response, page: Page, cookies: readonly string[] = []): void {
  const retry = page.retryAfterS === undefined ? [] : ['Retry-After', String(page.retryAfterS)];
  write(res, page.status, [...cookies.flatMap((c) => ['Set-Cookie', c]), ...retry, 'Content-Type', 'text/html; charset=utf-8'], renderPage(page));
}

/** 302 to `url` (Google's consent page or an allow-listed return URL), without a body. */
export function sendRedirect(res: Response, url: string, cookies: readonly string[] = []): void {
  write(res, 302, ['Location', url, ...cookies.flatMap((c) => ['Set-Cookie', c])], '');
}
