import { type ApiResult, api } from '../api.js';
import { empty, failure, h, loading, replace, when } from '../dom.js';

export interface Endpoint {
  url: string;
  created_at: string;
  updated_at: string;
  updated_by: string | null;
  previous_secret_valid_until: string | null;
  secret?: string;
}
interface Delivery {
  event_id: string;
  type: string;
  target: string;
  state: string;
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  delivered_at: string | null;
  log: { attempt: number; at: string; url: string; status: number | null; error: string | null; duration_ms: number }[];
}

/** What GET /api/admin/customers/{customer_id} answers (customer.ts reads the name from it). */
export interface CustomerProfile {
  customer_id: string;
  display_name: string | null;
  display_name_updated_at: string | null;
  display_name_updated_by: string | null;
  webhook_endpoint: Endpoint | null;
}

/**
 * A customer's webhooks: its endpoint (set or re-point, remove, rotate the signing secret — shown once) and the
 * delivery log, a page at a time. The endpoint is read from the customer itself, where "none yet" is a null
 * rather than GET …/webhook's 404 (which the browser would log as an error); `first` is that answer when the
 * page has it already.
 */
export function webhooksSection(customerId: string, first?: Promise<ApiResult<CustomerProfile>>): HTMLElement {
  const base = `/api/admin/customers/${encodeURIComponent(customerId)}`;
  const endpoint = h('div', {}, loading('Loading the webhook endpoint…'));
  const deliveries = h('div', {}, loading('Loading deliveries…'));
  const more = h('div', { class: 'more' });
  const section = h(
    'section',
    { 'aria-labelledby': 'webhooks-heading' },
    h('h2', { id: 'webhooks-heading' }, 'Webhooks'),
    endpoint,
    h('h3', {}, 'Delivery log'),
    deliveries,
    more,
  );

  const secretBox = (secret: string, said: string) =>
    h(
      'div',
      { class: 'secret', role: 'status' },
      h('p', {}, said, ' ', h('strong', {}, 'It is shown only now: store it where the receiver can read it.')),
      h('label', { for: 'webhook-secret' }, 'Signing secret'),
      h('input', { id: 'webhook-secret', type: 'text', readonly: true, value: secret, class: 'mono' }),
    );

  const showEndpoint = async (shown?: HTMLElement, answer?: Promise<ApiResult<CustomerProfile>>) => {
    const res = await (answer ?? api<CustomerProfile>('GET', base));
    if (!res.ok) {
      replace(
        endpoint,
        failure('The webhook endpoint could not be loaded', res.error, res.requestId, () => void showEndpoint()),
      );
      return;
    }
    const current = res.data.webhook_endpoint;
    const url = h('input', {
      id: 'webhook-url',
      type: 'url',
      required: true,
      value: current?.url ?? '',
      placeholder: 'https://backend.example.com/hub-webhooks',
      'aria-describedby': 'webhook-url-hint',
    });
    const hint = h('p', { id: 'webhook-url-hint', class: 'muted' }, 'https on a public address; redirects are not followed.');
    const problem = h('div', { 'aria-live': 'polite' });
    const rotate = h('button', { type: 'button' }, 'Rotate secret');
    const remove = h('button', { type: 'button', class: 'danger' }, 'Remove endpoint');
    const form = h(
      'form',
      {
        class: 'stack',
        onsubmit: async (e: Event) => {
          e.preventDefault();
          const put = await api<Endpoint>('PUT', `${base}/webhook`, { url: url.value.trim() });
          if (!put.ok) {
            const issues = put.error.details?.issues ?? [];
            replace(
              problem,
              failure('Endpoint not saved', put.error, put.requestId),
              issues.length
                ? h(
                    'ul',
                    { class: 'field-error' },
                    issues.map((i) => h('li', {}, `${i.path}: ${i.message}`)),
                  )
                : null,
            );
            url.setAttribute('aria-invalid', 'true');
            url.focus();
            return;
          }
          await showEndpoint(
            put.data.secret ? secretBox(put.data.secret, 'Endpoint created.') : h('p', { role: 'status' }, 'Endpoint re-pointed; the secret is unchanged.'),
          );
        },
      },
      h('label', { for: 'webhook-url' }, current ? 'Endpoint URL' : 'Endpoint URL (none yet)'),
      url,
      hint,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'submit' }, current ? 'Save endpoint' : 'Create endpoint'),
        current ? rotate : null,
        current ? remove : null,
      ),
    );
    rotate.addEventListener('click', async () => {
      const r = await api<Endpoint>('POST', `${base}/webhook/rotate-secret`);
      if (!r.ok) return replace(problem, failure('Secret not rotated', r.error, r.requestId));
      await showEndpoint(secretBox(r.data.secret ?? '', 'New secret made; the previous one keeps signing for a while.'));
    });
    remove.addEventListener('click', async () => {
      const r = await api('DELETE', `${base}/webhook`);
      if (!r.ok) return replace(problem, failure('Endpoint not removed', r.error, r.requestId));
      await showEndpoint(h('p', { role: 'status' }, 'Endpoint removed; its secret is forgotten.'));
    });
    replace(
      endpoint,
      current
        ? h(
            'p',
            { class: 'muted' },
            'Changed ',
            when(current.updated_at),
            current.updated_by ? ` by ${current.updated_by}` : '',
            current.previous_secret_valid_until
              ? h('span', {}, '; the previous secret still signs too (that ends ', when(current.previous_secret_valid_until), ')')
              : null,
            '.',
          )
        : h('p', { class: 'muted' }, 'This customer has no webhook endpoint: set one to receive its connection events, signed.'),
      form,
      shown ?? null,
      problem,
    );
  };

  const tbody = h('tbody');
  const table = h(
    'table',
    {},
    h('caption', { class: 'sr-only' }, 'Webhook deliveries, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Event', 'Target', 'State', 'Attempts', 'Created', 'Last attempt'].map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    tbody,
  );
  const loadDeliveries = async (cursor: string | null) => {
    const res = await api<{ deliveries: Delivery[]; next_cursor: string | null }>(
      'GET',
      `${base}/webhook-deliveries?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (!res.ok) {
      replace(more);
      replace(
        deliveries,
        failure('The delivery log could not be loaded', res.error, res.requestId, () => void loadDeliveries(cursor)),
      );
      return;
    }
    if (cursor === null && res.data.deliveries.length === 0) {
      replace(deliveries, empty('No deliveries yet', 'Connection events for this customer and their delivery attempts will be listed here.'));
      return;
    }
    if (cursor === null) replace(deliveries, h('div', { class: 'table-wrap' }, table));
    for (const d of res.data.deliveries) {
      const last = d.log[d.log.length - 1];
      tbody.append(
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('span', { class: 'mono' }, d.type)),
          h('td', {}, d.target),
          h(
            'td',
            {},
            h('span', { class: d.state === 'delivered' ? 'outcome-ok' : d.state === 'failed' ? 'outcome-bad' : '' }, d.state),
            d.state === 'pending' && d.next_attempt_at ? h('span', { class: 'muted' }, ' · next ', when(d.next_attempt_at)) : null,
          ),
          h('td', {}, String(d.attempts)),
          h('td', {}, when(d.created_at)),
          h(
            'td',
            {},
            last ? h('span', {}, when(last.at), ` · ${last.status ?? last.error ?? '—'} · ${last.duration_ms} ms`) : h('span', { class: 'muted' }, 'none yet'),
          ),
        ),
      );
    }
    const next = res.data.next_cursor;
    replace(more, next ? h('button', { type: 'button', onclick: () => void loadDeliveries(next) }, 'Load more deliveries') : null);
  };
  void showEndpoint(undefined, first);
  void loadDeliveries(null);
  return section;
}
