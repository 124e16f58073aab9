import { h, ready, replace } from '../dom.js';

/**
 * Sections the console does not show yet. They say so plainly — never sample data — and name what they will
 * show. Overview: the Hub exports its metrics for Prometheus (GET /metrics) but has no admin API that queries
 * them over time, which the page would need.
 */
const SECTIONS: Record<string, { title: string; shows: string; api: string }> = {
  '/admin/overview': {
    title: 'Overview',
    shows: 'calls per minute, error rate by code and p95 latency by tool over the last hour and day, and connections by status',
    api: 'an admin API that queries its metrics over time (its figures are exported at GET /metrics for Prometheus)',
  },
};

export function unavailablePage(main: HTMLElement, path: string): void {
  const section = SECTIONS[path]!;
  document.title = `${section.title} · Hub console`;
  replace(
    main,
    h('h1', {}, section.title),
    h(
      'div',
      { class: 'state empty' },
      h('p', { class: 'state-title' }, 'Not available in this build'),
      h('p', {}, `This Hub does not have ${section.api} yet. Once it does, this page shows ${section.shows}.`),
    ),
  );
  ready();
}
