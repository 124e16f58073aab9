import { api } from '../api.js';
import { badge, empty, failure, h, integrationLabel, loading, ready, replace, when } from '../dom.js';
import { UUID } from './pick-customer.js';

interface CustomerSummary {
  customer_id: string;
  display_name: string | null;
  connections: { integration: string; user_id: string | null; account_email: string | null; health: string }[];
  last_activity_at: string;
}
interface CustomersPage {
  customers: CustomerSummary[];
  next_after: string | null;
}

/** The customer's name (or that it has none) above its id: people read names, the id stays visible to quote. */
export function customerLabel(id: string, name: string | null, href?: string): HTMLElement {
  const title = name ?? 'Unnamed customer';
  return h(
    'span',
    { class: 'customer-label' },
    href ? h('a', { href, class: name ? 'customer-name' : 'customer-name muted' }, title) : h('span', { class: 'customer-name' }, title),
    h('span', { class: 'mono small muted customer-id' }, id),
  );
}

/**
 * Customers: find one by name or id (the API searches, so paging still holds), the customers the Hub knows
 * with their names and a badge per connection, a page at a time; a whole customer id opens that customer.
 */
export async function customersPage(main: HTMLElement, isAdmin: boolean): Promise<void> {
  document.title = 'Customers · Hub console';
  const initial = new URLSearchParams(location.search).get('q')?.trim() ?? '';
  const input = h('input', {
    id: 'find-customer',
    name: 'q',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: 100,
    value: initial,
    placeholder: 'Acme, or 3f2a1c00-…',
    'aria-describedby': 'find-hint',
  });
  const hint = h('p', { id: 'find-hint', class: 'muted' }, 'Part of a name, or the start of a customer id. A whole id opens that customer.');
  const find = h(
    'form',
    {
      class: 'inline-form',
      role: 'search',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const text = input.value.trim();
        if (UUID.test(text)) {
          location.assign(`/admin/customers/${text.toLowerCase()}`);
          return;
        }
        // The search is in the URL, so a filtered list can be bookmarked, shared and reloaded.
        history.replaceState(null, '', text ? `/admin?q=${encodeURIComponent(text)}` : '/admin');
        void load(null, text);
      },
    },
    h('label', { for: 'find-customer' }, 'Find a customer'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Find')),
    hint,
  );
  const tbody = h('tbody');
  const table = h(
    'table',
    { class: 'customers' },
    h('caption', { class: 'sr-only' }, isAdmin ? 'Customers' : 'Your customer'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Customer'), h('th', { scope: 'col' }, 'Connections'), h('th', { scope: 'col' }, 'Last activity'))),
    tbody,
  );
  const heading = () => h('h2', { id: 'list-heading' }, 'Customers');
  const list = h('section', { 'aria-labelledby': 'list-heading' }, heading(), loading('Loading customers…'));
  const more = h('div', { class: 'more' });
  const status = h('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  replace(main, h('h1', {}, 'Customers'), find, status, list, more);

  let generation = 0; // a newer search supersedes a page still loading for an older one
  const load = async (after: string | null, search: string): Promise<void> => {
    const mine = after === null ? ++generation : generation;
    const q = new URLSearchParams({ limit: '50' });
    if (after) q.set('after', after);
    if (search) q.set('q', search);
    const res = await api<CustomersPage>('GET', `/api/admin/customers?${q.toString()}`);
    if (mine !== generation) return;
    if (!res.ok) {
      replace(more);
      const title = res.status === 400 ? 'This search is not valid' : 'The customers could not be loaded';
      const issues = res.error.details?.issues ?? [];
      replace(
        list,
        heading(),
        failure(title, res.error, res.requestId, res.status >= 500 || res.status === 0 ? () => void load(after, search) : undefined),
        issues.length
          ? h(
              'ul',
              { class: 'field-error' },
              issues.map((i) => h('li', {}, `${i.path.replace(/^query\./, '')}: ${i.message}`)),
            )
          : null,
      );
      ready();
      return;
    }
    if (after === null) {
      tbody.replaceChildren();
      if (res.data.customers.length === 0) {
        replace(more);
        replace(
          list,
          heading(),
          search
            ? empty('No customer matches', `No customer's name contains "${search}" and no id starts with it.`)
            : empty(
                'No customers yet',
                'No customer has connected an integration or been named. Open a customer by its id above to make its first connect link.',
              ),
        );
        status.textContent = search ? 'No customer matches.' : '';
        ready();
        return;
      }
      replace(list, heading(), h('div', { class: 'table-wrap' }, table));
    }
    for (const c of res.data.customers) {
      tbody.append(
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, customerLabel(c.customer_id, c.display_name, `/admin/customers/${c.customer_id}`)),
          h(
            'td',
            {},
            c.connections.length === 0
              ? h('span', { class: 'muted' }, 'No connections yet')
              : h(
                  'ul',
                  { class: 'badges' },
                  c.connections.map((conn) =>
                    h('li', {}, `${integrationLabel(conn.integration)}${conn.user_id === null ? '' : ` (${conn.user_id})`}: `, badge(conn.health)),
                  ),
                ),
          ),
          h('td', {}, when(c.last_activity_at)),
        ),
      );
    }
    status.textContent = `${tbody.rows.length} customer${tbody.rows.length === 1 ? '' : 's'} shown.`;
    const next = res.data.next_after;
    replace(more, next ? h('button', { type: 'button', onclick: () => void load(next, search) }, 'Show more customers') : null);
    ready();
  };
  await load(null, initial);
}
