import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import helmet from 'helmet';
import type { AdminPrincipal } from '../auth/admin-access';
import '../http/locals';
import { logAccess } from '../http/request-context';
import type { ConsoleAssets } from './assets';
import { CONSOLE_INTEGRATIONS } from './integrations';

/**
 * The console's HTML documents. Strict CSP: scripts, styles and fetches from this origin only — no inline script
 * or style, no third-party origin, no framing (`frame-ancestors 'none'`), forms post only here.
 * `Referrer-Policy: no-referrer`, because a sign-in link carries its token in the URL.
 */
function documentHeaders(): readonly string[] {
  const recorded: string[] = [];
  const recorder = { setHeader: (n: string, v: string) => recorded.push(n, v), removeHeader: () => {} } as unknown as ServerResponse;
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  })({} as IncomingMessage, recorder, () => {});
  return recorded;
}

export const CONSOLE_HEADERS = documentHeaders();

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function writeDocument(res: Response, status: number, body: string, headers: readonly string[] = []): void {
  res.writeHead(status, [
    ...CONSOLE_HEADERS,
    'Cache-Control',
    'no-store',
    'X-Request-Id',
    res.locals.requestId,
    ...headers,
    'Content-Type',
    'text/html; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(body)),
  ]);
  res.end(body);
  logAccess(res);
}

export function redirect(res: Response, location: string, headers: readonly string[] = []): void {
  res.writeHead(303, [
    ...CONSOLE_HEADERS,
    'Cache-Control',
    'no-store',
    'X-Request-Id',
    res.locals.requestId,
    'Location',
    location,
    ...headers,
    'Content-Length',
    '0',
  ]);
  res.end();
  logAccess(res);
}

const head = (title: string, assets: ConsoleAssets | null, extra = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Hub console</title>
${assets ? `<link rel="stylesheet" href="${assets.base}console.css"><link rel="icon" href="${assets.base}favicon.svg" type="image/svg+xml">` : ''}${extra}</head>`;

/** A page of its own (signing in, signed out, a refused link): server-rendered, works without JavaScript. */
export function plainPage(assets: ConsoleAssets | null, title: string, body: string): string {
  return `${head(title, assets)}
<body class="plain"><main id="main"><h1>${escapeHtml(title)}</h1>
${body}</main></body></html>
`;
}

export const CONSOLE_SECTIONS = [
  { path: '/admin', label: 'Customers' },
  { path: '/admin/activity', label: 'Activity' },
  { path: '/admin/policies', label: 'Policies' },
  { path: '/admin/overview', label: 'Overview' },
] as const;

/**
 * Every module up front: the browser fetches them in parallel instead of discovering the imports level by level.
 * Vendor modules (uPlot, ~50 KB) are left to the one page that imports them.
 */
const preloads = (assets: ConsoleAssets) =>
  [...assets.files.keys()]
    .filter((f) => f.endsWith('.js') && f !== 'main.js' && !f.startsWith('vendor/'))
    .map((f) => `<link rel="modulepreload" href="${assets.base}${f}">\n`)
    .join('');

/** What the console's filters offer as choices, from the Hub itself so they never drift from the API. */
export interface ConsoleVocabulary {
  /** The catalog's tool names (Activity's Tool filter). */
  tools: readonly string[];
  /** The closed set of error codes (Activity's Outcome filter, after ok and error). */
  errorCodes: readonly string[];
}

/**
 * The signed-in shell: navigation and an empty main the page's module fills from the admin API. The CSRF token,
 * who is signed in and the catalog's integrations travel in <meta> tags (no inline script under the CSP).
 */
export function shellPage(
  assets: ConsoleAssets,
  session: { principal: AdminPrincipal; csrfToken: string },
  path: string,
  vocabulary: ConsoleVocabulary = { tools: [], errorCodes: [] },
): string {
  const { principal } = session;
  const home = principal.kind === 'admin' ? '/admin' : `/admin/customers/${principal.customerId}`;
  const nav = CONSOLE_SECTIONS.map(({ path: p, label }) => {
    const href = p === '/admin' ? home : p;
    const text = p === '/admin' && principal.kind === 'customer' ? 'Customer' : label;
    const current = p === '/admin' ? path === '/admin' || path.startsWith('/admin/customers') : path === p;
    return `<li><a href="${escapeHtml(href)}"${current ? ' aria-current="page"' : ''}>${text}</a></li>`;
  }).join('');
  const who = principal.kind === 'admin' ? 'Hub admin' : `Customer ${principal.customerId}`;
  return `${head(
    'Console',
    assets,
    `
<meta name="hub-csrf" content="${escapeHtml(session.csrfToken)}">
<meta name="hub-principal" content="${principal.kind === 'admin' ? 'admin' : `customer:${principal.customerId}`}">
<meta name="hub-tools" content="${escapeHtml(vocabulary.tools.join(' '))}">
<meta name="hub-error-codes" content="${escapeHtml(vocabulary.errorCodes.join(' '))}">
<meta name="hub-integrations" content="${escapeHtml(JSON.stringify(CONSOLE_INTEGRATIONS))}">
${preloads(assets)}<script type="module" src="${assets.base}main.js"></script>`,
  )}
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="${escapeHtml(home)}">Hub console</a>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
<div class="who"><span>${escapeHtml(who)}</span> <button type="button" id="sign-out">Sign out</button></div></header>
<main id="main" tabindex="-1"><p class="state loading" role="status">Loading…</p></main></body></html>
`;
}
