import { api } from '../api.js';
import { badge, empty, failure, h, integrationLabel, loading, ready, replace, when } from '../dom.js';

interface CustomerSummary {
  customer_id: string;
  connections: { integration: string; user_id: string | null; account_email: string | null; health: string }[];
  last_activity_at: string;
}
interface CustomersPage {
  customers: CustomerSummary[];
  next_after: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Customers: open one by id; the customers that have connections, with a badge per connection, a page at a time. */
export async function customersPage(main: HTMLElement, isAdmin: boolean): Promise<void> {
  document.title = 'Customers · Hub console';
  const input = h('input', {
    id: 'find-id',
    name: 'customer_id',
    type: 'text',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: '00000000-0000-0000-0000-000000000000',
    'aria-describedby': 'find-hint',
  });
  const hint = h('p', { id: 'find-hint', class: 'muted' }, 'A customer id is a UUID.');
  const find = h(
    'form',
    {
      class: 'inline-form',
      role: 'search',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const id = input.value.trim();
        if (!UUID.test(id)) {
          hint.textContent = 'That is not a UUID: a customer id looks like 3f2a…-…';
          hint.className = 'field-error';
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        location.assign(`/admin/customers/${id.toLowerCase()}`);
      },
    },
    h('label', { for: 'find-id' }, 'Open a customer by id'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Open')),
    hint,
  );
  const tbody = h('tbody');
  const table = h(
    'table',
    { class: 'customers' },
    h('caption', { class: 'sr-only' }, isAdmin ? 'Customers with connections' : 'Your customer'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Customer'), h('th', { scope: 'col' }, 'Connections'), h('th', { scope: 'col' }, 'Last activity'))),
    tbody,
  );
  const list = h(
    'section',
    { 'aria-labelledby': 'list-heading' },
    h('h2', { id: 'list-heading' }, 'Customers with connections'),
    loading('Loading customers…'),
  );
  const more = h('div', { class: 'more' });
  replace(main, h('h1', {}, 'Customers'), find, list, more);

  const load = async (after: string | null) => {
    const res = await api<CustomersPage>('GET', `/api/admin/customers?limit=50${after ? `&after=${after}` : ''}`);
    if (!res.ok) {
      replace(more);
      replace(
        list,
        h('h2', { id: 'list-heading' }, 'Customers with connections'),
        failure('The customers could not be loaded', res.error, res.requestId, () => void load(after)),
      );
      ready();
      return;
    }
    if (after === null && res.data.customers.length === 0) {
      replace(
        list,
        h('h2', { id: 'list-heading' }, 'Customers with connections'),
        empty('No customers yet', 'No customer has connected an integration. Open a customer by id above to make its first connect link.'),
      );
      ready();
      return;
    }
    if (after === null) replace(list, h('h2', { id: 'list-heading' }, 'Customers with connections'), h('div', { class: 'table-wrap' }, table));
    for (const c of res.data.customers) {
      tbody.append(
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('a', { href: `/admin/customers/${c.customer_id}`, class: 'mono' }, c.customer_id)),
          h(
            'td',
            {},
            h(
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
    const next = res.data.next_after;
    replace(more, next ? h('button', { type: 'button', onclick: () => void load(next) }, 'Show more customers') : null);
    ready();
  };
  await load(null);
}
