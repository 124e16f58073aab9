/** A tiny DOM builder: text is always set as text (never parsed as HTML), so nothing from the API can inject markup. */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | number | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

export function replace(target: Element, ...children: (Child | Child[])[]): void {
  target.replaceChildren();
  for (const child of children.flat()) if (child) target.append(child);
}

/** A loading line, announced politely to screen readers. */
export const loading = (text = 'Loading…') => h('p', { class: 'state loading', role: 'status' }, text);

export const empty = (title: string, text: string) => h('div', { class: 'state empty' }, h('p', { class: 'state-title' }, title), h('p', {}, text));

/** An error from the API in words, with the request id to quote, and a way to try again. */
export function failure(title: string, error: { code: string; message: string }, requestId: string | null, retry?: () => void) {
  return h(
    'div',
    { class: 'state error', role: 'alert' },
    h('p', { class: 'state-title' }, title),
    h('p', {}, error.message),
    h('p', { class: 'muted' }, `Code ${error.code}${requestId ? ` · request ${requestId}` : ''}`),
    retry ? h('button', { type: 'button', onclick: retry }, 'Try again') : null,
  );
}

/** "3 minutes ago", with the exact time on hover and for assistive technology. */
export function when(iso: string | null): Node {
  if (iso === null) return document.createTextNode('never');
  const at = new Date(iso);
  const s = Math.round((Date.now() - at.getTime()) / 1000);
  const text =
    Math.abs(s) < 60
      ? s >= 0
        ? 'just now'
        : 'in under a minute'
      : Math.abs(s) < 3600
        ? rel(Math.round(s / 60), 'minute')
        : Math.abs(s) < 86400
          ? rel(Math.round(s / 3600), 'hour')
          : rel(Math.round(s / 86400), 'day');
  return h('time', { datetime: iso, title: at.toLocaleString() }, text);
}

const rel = (n: number, unit: string) => (n >= 0 ? `${n} ${unit}${n === 1 ? '' : 's'} ago` : `in ${-n} ${unit}${n === -1 ? '' : 's'}`);

export { INTEGRATIONS, integrationLabel } from './vocabulary.js';

const BADGE_TEXT: Record<string, string> = {
  connected: 'Connected',
  expiring: 'Expiring',
  expired: 'Expired',
  insufficient_scopes: 'Insufficient scopes',
  not_connected: 'Not connected',
};

export const badge = (health: string) => h('span', { class: `badge badge-${health}` }, BADGE_TEXT[health] ?? health);

/** Marks the page as shown (the browser suite measures load time up to here). */
export function ready(): void {
  document.documentElement.dataset.ready = 'true';
  performance.mark('hub-console-ready');
}
