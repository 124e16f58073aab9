import { api } from '../api.js';
import { empty, failure, h, loading, ready, replace, when } from '../dom.js';
import { ERROR_CODES, TOOL_NAMES } from '../vocabulary.js';
import { chosenCustomer, customerChooser, customerHeading } from './pick-customer.js';
import { downloadReplayBundle, receiptDetail } from './receipt.js';

/** A receipt as the admin API shows it (openapi.yaml, Receipt): a field whose value is null is absent, `replay` only when true. */
export interface Receipt {
  call_id: string;
  tool?: string;
  version?: string;
  user_id?: string;
  agent_id?: string;
  conversation_id?: string;
  request_id: string;
  trace_id?: string;
  t_start: string;
  t_end: string;
  duration_ms: number;
  outcome: string;
  /** Absent for a success. */
  retryable?: boolean;
  api_calls: number;
  /** The integration whose connection answered (google_gmail, outlook_mail…); absent when none, and on older receipts. */
  integration?: string;
  /** The vendor's operations (Google API methods or Microsoft Graph operations); the contract's name, kept for compatibility. */
  google_operations: { operation: string; status: number | string; ms: number }[];
  replay?: true;
  payload_mode: string;
  /** The credential that made the call: key:<id> or secret:<fingerprint> (absent on older receipts). */
  principal?: string;
  input?: unknown;
  output?: unknown;
  error?: { code?: string; message?: string | null; details?: unknown };
}

/** The filters, each the list-receipts query parameter of the same name (openapi.yaml, listReceipts). */
const TEXT_FILTERS = [
  { name: 'agent_id', label: 'Agent id' },
  { name: 'user_id', label: 'End user id' },
  { name: 'conversation_id', label: 'Conversation id' },
] as const;

/** A filter whose values are a closed set: a select, its first option (empty: no filter) the default. */
const choice = (name: string, any: string, options: readonly (readonly [string, string])[]) =>
  h(
    'select',
    { id: `f-${name}`, name },
    h('option', { value: '' }, any),
    options.map(([value, label]) => h('option', { value }, label)),
  );

/**
 * Activity: a customer's audit trail, newest first, filtered as the admin API filters it, a page at a time
 * ("Load more" follows next_cursor); a receipt opens below the list with its timings and Google operations.
 */
export async function activityPage(main: HTMLElement, principal: string): Promise<void> {
  document.title = 'Activity · Hub console';
  const customerId = chosenCustomer(principal);
  const chooser = principal === 'admin' ? customerChooser(customerId) : null;
  if (customerId === null) {
    replace(
      main,
      h('h1', {}, 'Activity'),
      chooser,
      empty('Choose a customer', 'The audit trail is kept per customer: enter a customer id above to see its tool calls.'),
    );
    ready();
    return;
  }
  const inputs = TEXT_FILTERS.map((f) => h('input', { id: `f-${f.name}`, name: f.name, type: 'text', autocomplete: 'off', spellcheck: 'false' }));
  const tool = choice(
    'tool',
    'Any tool',
    TOOL_NAMES.map((t) => [t, t]),
  );
  const outcome = choice('outcome', 'Any outcome', [['ok', 'ok (succeeded)'], ['error', 'error (any failure)'], ...ERROR_CODES.map((c) => [c, c] as const)]);
  const choices = [tool, outcome];
  const from = h('input', { id: 'f-from', name: 'from', type: 'datetime-local', step: 1 });
  const to = h('input', { id: 'f-to', name: 'to', type: 'datetime-local', step: 1 });
  const field = (label: string, input: HTMLInputElement | HTMLSelectElement) => h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter the activity' },
    TEXT_FILTERS.map((f, i) => field(f.label, inputs[i]!)),
    field('Tool', tool),
    field('Outcome', outcome),
    field('From (your time)', from),
    field('To (your time)', to),
    h('div', { class: 'row field-actions' }, h('button', { type: 'submit' }, 'Apply filters'), h('button', { type: 'reset' }, 'Clear')),
  );
  const tbody = h('tbody');
  const list = h('section', { 'aria-labelledby': 'calls-heading' }, h('h2', { id: 'calls-heading' }, 'Tool calls'), loading('Loading activity…'));
  const more = h('div', { class: 'more' });
  const detail = h('section', { 'aria-labelledby': 'detail-heading', tabindex: -1, class: 'detail', hidden: true });
  const status = h('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  replace(main, await customerHeading('Activity', customerId), chooser, form, status, list, more, detail);

  const base = `/api/admin/customers/${encodeURIComponent(customerId)}`;
  const query = (): string => {
    const q = new URLSearchParams({ limit: '50' });
    TEXT_FILTERS.forEach((f, i) => {
      const v = inputs[i]!.value.trim();
      if (v) q.set(f.name, v);
    });
    for (const c of choices) if (c.value) q.set(c.name, c.value);
    // datetime-local is the browser's local time: sent as an instant (with its offset, Z) as the API asks.
    if (from.value) q.set('from', new Date(from.value).toISOString());
    if (to.value) q.set('to', new Date(to.value).toISOString());
    return q.toString();
  };

  const open = async (r: Receipt) => {
    detail.hidden = false;
    replace(detail, h('h2', { id: 'detail-heading' }, 'Receipt'), loading('Loading the receipt…'));
    detail.focus();
    const res = await api<{ call_id: string; receipts: Receipt[] }>('GET', `${base}/receipts/${r.call_id}`);
    if (!res.ok) {
      replace(
        detail,
        h('h2', { id: 'detail-heading' }, 'Receipt'),
        failure('The receipt could not be loaded', res.error, res.requestId, () => void open(r)),
      );
      return;
    }
    replace(
      detail,
      h('h2', { id: 'detail-heading' }, `Receipt · ${r.tool ?? 'unknown tool'}`),
      res.data.receipts.map((x) => receiptDetail(customerId, x)),
    );
  };

  const row = (r: Receipt) =>
    h(
      'tr',
      {},
      h('td', {}, when(r.t_start)),
      h('th', { scope: 'row' }, h('span', { class: 'mono' }, r.tool ?? '—'), r.version ? h('span', { class: 'muted' }, ` @${r.version}`) : null),
      h(
        'td',
        {},
        h('span', { class: r.outcome === 'ok' ? 'outcome-ok' : 'outcome-bad' }, r.outcome),
        r.replay ? h('span', { class: 'muted' }, ' (replay)') : null,
      ),
      h('td', { 'data-label': 'Agent' }, h('span', { class: 'mono' }, r.agent_id ?? '—')),
      h('td', { 'data-label': 'End user' }, h('span', { class: 'mono' }, r.user_id ?? '—')),
      h('td', { 'data-label': 'Conversation' }, r.conversation_id ? h('span', { class: 'mono' }, r.conversation_id) : '—'),
      h('td', { 'data-label': 'Duration' }, `${r.duration_ms} ms`),
      h(
        'td',
        {},
        h(
          'button',
          { type: 'button', onclick: () => void open(r), 'aria-label': `Details of ${r.tool ?? 'call'} at ${new Date(r.t_start).toLocaleString()}` },
          'Details',
        ),
      ),
    );

  const table = h(
    'table',
    { class: 'receipts' },
    h('caption', { class: 'sr-only' }, 'Tool calls, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Time', 'Tool', 'Outcome', 'Agent', 'End user', 'Conversation', 'Duration', ''].map((c) =>
          h('th', { scope: 'col' }, c || h('span', { class: 'sr-only' }, 'Actions')),
        ),
      ),
    ),
    tbody,
  );

  let generation = 0; // a newer filter supersedes a page still loading for an older one
  const load = async (cursor: string | null) => {
    const mine = cursor === null ? ++generation : generation;
    if (cursor === null) {
      replace(list, h('h2', { id: 'calls-heading' }, 'Tool calls'), loading('Loading activity…'));
      replace(more);
    }
    const res = await api<{ receipts: Receipt[]; next_cursor: string | null }>(
      'GET',
      `${base}/receipts?${query()}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (mine !== generation) return;
    if (!res.ok) {
      replace(more);
      const title =
        res.status === 400 ? 'These filters are not valid' : res.status === 403 ? 'You cannot see this customer' : 'The activity could not be loaded';
      const issues = res.error.details?.issues ?? [];
      replace(
        list,
        h('h2', { id: 'calls-heading' }, 'Tool calls'),
        failure(title, res.error, res.requestId, res.status >= 500 || res.status === 0 ? () => void load(cursor) : undefined),
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
    if (cursor === null) {
      tbody.replaceChildren();
      if (res.data.receipts.length === 0) {
        replace(
          list,
          h('h2', { id: 'calls-heading' }, 'Tool calls'),
          empty('No tool calls', 'No call of this customer matches these filters (receipts are kept HUB_AUDIT_RETENTION_DAYS).'),
        );
        ready();
        return;
      }
      replace(list, h('h2', { id: 'calls-heading' }, 'Tool calls'), h('div', { class: 'table-wrap' }, table));
    }
    tbody.append(...res.data.receipts.map(row));
    status.textContent = `${tbody.rows.length} tool calls shown.`;
    const next = res.data.next_cursor;
    replace(more, next ? h('button', { type: 'button', onclick: () => void load(next) }, 'Load more') : null);
    ready();
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    detail.hidden = true;
    void load(null);
  });
  form.addEventListener('reset', () => setTimeout(() => void load(null), 0));
  const conversation = inputs[2]!;
  const bundle = h(
    'button',
    { type: 'button', onclick: () => void downloadReplayBundle(customerId, conversation.value.trim(), bundleStatus) },
    'Download replay bundle (JSON)',
  );
  const bundleStatus = h('div', { 'aria-live': 'polite' });
  form.after(h('p', { class: 'row muted' }, "A conversation's replay bundle: enter its id above, then ", bundle), bundleStatus);
  await load(null);
}
