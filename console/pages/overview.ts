import { api } from '../api.js';
import { empty, failure, h, loading, ready, replace } from '../dom.js';
import { chosenCustomer, customerChooser } from './pick-customer.js';

interface Overview {
  window: '1h' | '24h';
  bucket_s: number;
  from: string;
  to: string;
  customer_id: string | null;
  buckets: { t: string; calls: number; errors: number }[];
  errors_by_code: { code: string; total: number; per_bucket: number[] }[];
  latency_by_tool: { tool: string; calls: number; p50_ms: number; p95_ms: number; p95_per_bucket: (number | null)[] }[];
  connections_by_status: { integration: string; status: string; count: number }[];
}

/** Colours that stay apart for colour-blind readers (Okabe–Ito), one per series. */
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

/**
 * Overview: the last hour (per minute) or day (per quarter-hour) of calls, failures by error code and p95 latency
 * by tool, drawn with uPlot (loaded on this page only), each chart followed by its figures as a table — the
 * charts' text alternative, and what a keyboard or screen-reader user reads. Plus connections by status.
 */
export async function overviewPage(main: HTMLElement, principal: string): Promise<void> {
  document.title = 'Overview · Hub console';
  const params = new URLSearchParams(location.search);
  const window = params.get('window') === '24h' ? '24h' : '1h';
  const customerId = chosenCustomer(principal);
  const scope = principal === 'admin' ? customerChooser(customerId) : null;
  const windowLink = (w: '1h' | '24h', label: string) => {
    const next = new URLSearchParams(location.search);
    next.set('window', w);
    return h('a', { href: `?${next}`, class: 'button-link', ...(w === window ? { 'aria-current': 'true' } : {}) }, label);
  };
  const body = h('div', {}, loading());
  replace(
    main,
    h('h1', {}, 'Overview'),
    h('p', { class: 'muted' }, customerId === null ? "Every customer's tool calls, from the audit trail." : `Customer ${customerId}, from the audit trail.`),
    scope,
    h('nav', { class: 'row', 'aria-label': 'Time window' }, windowLink('1h', 'Last hour'), windowLink('24h', 'Last day')),
    body,
  );
  const query = new URLSearchParams({ window, ...(customerId === null ? {} : { customer_id: customerId }) });
  const [res, lib] = await Promise.all([api<Overview>('GET', `/api/admin/overview?${query}`), import('../vendor/uplot.js').catch(() => null)]);
  if (!res.ok) {
    replace(
      body,
      failure('The overview could not be loaded', res.error, res.requestId, () => void overviewPage(main, principal)),
    );
    ready();
    return;
  }
  const o = res.data;
  const total = o.buckets.reduce((a, b) => a + b.calls, 0);
  const failed = o.buckets.reduce((a, b) => a + b.errors, 0);
  const span = o.window === '1h' ? 'the last hour' : 'the last day';
  const per = o.bucket_s === 60 ? 'minute' : '15 minutes';
  const summary = h(
    'dl',
    { class: 'figures' },
    h('div', {}, h('dt', {}, 'Calls'), h('dd', {}, String(total))),
    h('div', {}, h('dt', {}, 'Failed'), h('dd', {}, String(failed))),
    h('div', {}, h('dt', {}, 'Error rate'), h('dd', {}, total === 0 ? '–' : `${((failed / total) * 100).toFixed(1)} %`)),
  );
  const times = o.buckets.map((b) => Date.parse(b.t) / 1000);
  const chart = (title: string, series: { label: string; values: (number | null)[] }[], unit: string) => {
    const figure = h('figure', { class: 'chart' }, h('figcaption', {}, title));
    if (lib !== null && series.length > 0) {
      const host = h('div', { class: 'chart-canvas', role: 'img', 'aria-label': `${title}: chart; the table below gives its figures` });
      figure.append(host);
      const width = Math.max(280, Math.min(960, main.clientWidth - 16));
      new lib.default(
        {
          width,
          height: 220,
          series: [
            {},
            ...series.map((s, i) => ({
              label: s.label,
              stroke: COLOURS[i % COLOURS.length]!,
              width: 2,
              spanGaps: false,
              value: (_u: unknown, v: number | null) => (v === null ? '–' : `${v} ${unit}`),
            })),
          ],
          axes: [{}, { label: unit, size: 60 }],
          scales: { x: { time: true } },
        },
        [times, ...series.map((s) => s.values)] as never,
        host,
      );
    }
    return figure;
  };
  const table = (caption: string, head: string[], rows: (string | number)[][]) =>
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h('caption', {}, caption),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            head.map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          rows.map((r) =>
            h(
              'tr',
              {},
              r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, String(c)) : h('td', {}, String(c)))),
            ),
          ),
        ),
      ),
    );
  const sections: Node[] = [summary];
  if (total === 0) {
    sections.push(empty('No calls in this window', `No tool call was recorded in ${span}. Calls appear here within a second of being answered.`));
  } else {
    sections.push(
      h(
        'section',
        { 'aria-labelledby': 'calls-h' },
        h('h2', { id: 'calls-h' }, `Calls per ${per}`),
        chart(
          `Calls and failed calls per ${per}, ${span}`,
          [
            { label: 'calls', values: o.buckets.map((b) => b.calls) },
            { label: 'failed', values: o.buckets.map((b) => b.errors) },
          ],
          'calls',
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'errors-h' },
        h('h2', { id: 'errors-h' }, 'Failures by error code'),
        o.errors_by_code.length === 0
          ? empty('No failures', `Every call in ${span} succeeded.`)
          : [
              chart(
                `Error rate by code per ${per} (% of the bucket's calls)`,
                o.errors_by_code.map((c) => ({
                  label: c.code,
                  values: c.per_bucket.map((n, i) => (o.buckets[i]!.calls === 0 ? null : Math.round((n / o.buckets[i]!.calls) * 1000) / 10)),
                })),
                '%',
              ),
              table(
                `Failures by error code, ${span}`,
                ['Code', 'Calls', 'Share of all calls'],
                o.errors_by_code.map((c) => [c.code, c.total, `${((c.total / total) * 100).toFixed(1)} %`]),
              ),
            ],
      ),
      h(
        'section',
        { 'aria-labelledby': 'latency-h' },
        h('h2', { id: 'latency-h' }, 'Latency by tool'),
        chart(
          `p95 latency by tool per ${per}`,
          o.latency_by_tool.map((t) => ({ label: t.tool, values: t.p95_per_bucket })),
          'ms',
        ),
        table(
          `Latency by tool, ${span}`,
          ['Tool', 'Calls', 'p50 (ms)', 'p95 (ms)'],
          o.latency_by_tool.map((t) => [t.tool, t.calls, t.p50_ms, t.p95_ms]),
        ),
      ),
    );
  }
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'connections-h' },
      h('h2', { id: 'connections-h' }, 'Connections by status'),
      o.connections_by_status.length === 0
        ? empty('No connections', 'No integration is connected yet.')
        : table(
            'Connections by integration and status',
            ['Integration', 'Status', 'Connections'],
            o.connections_by_status.map((c) => [c.integration, c.status, c.count]),
          ),
    ),
  );
  if (lib === null) sections.unshift(h('p', { class: 'muted', role: 'status' }, 'The chart library could not be loaded: the figures are shown as tables.'));
  replace(body, sections);
  ready();
}
