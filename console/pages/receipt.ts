import { api } from '../api.js';
import { failure, h, replace } from '../dom.js';
import type { Receipt } from './activity.js';
import { messageText, payloadSection } from './receipt-shape.js';
import { integrationOf } from '../vocabulary.js';

/** Local time to the millisecond (receipts time calls in ms); the exact instant in `datetime`. */
const stamp = (iso: string) =>
  h(
    'time',
    { datetime: iso },
    new Date(iso).toLocaleString(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
    }),
  );

/** How each provider's operations are named in a receipt (the catalog's provider ids; the console's words). */
const VENDOR_WORDS: Readonly<Record<string, { operations: string; calls: string; none: string }>> = {
  google: { operations: 'Google API operations', calls: 'Google API calls', none: 'No call to Google.' },
  microsoft: { operations: 'Microsoft Graph operations', calls: 'Microsoft Graph calls', none: 'No call to Microsoft Graph.' },
};
const NEUTRAL = { operations: 'Vendor operations', calls: 'Vendor API calls', none: 'No call to a vendor.' };

/**
 * Whose operations a receipt lists, after the provider of its integration (from the catalog the page carries):
 * Google API methods or Microsoft Graph operations — or neutral words for a receipt that names no integration
 * (written before the Hub recorded it, or a call that resolved no connection).
 */
const vendorOf = (integration: string | undefined) => VENDOR_WORDS[(integration && integrationOf(integration)?.provider) || ''] ?? NEUTRAL;

/** One receipt: who called what, its timings, every vendor attempt with its status, and how it ended. */
export function receiptDetail(customerId: string, r: Receipt): HTMLElement {
  const vendor = vendorOf(r.integration);
  const code = r.outcome === 'ok' ? null : (r.error?.code ?? r.outcome);
  const fields: [string, Node | string][] = [
    ['Call id', h('span', { class: 'mono' }, r.call_id)],
    ['Tool', `${r.tool ?? 'unknown'}${r.version ? ` @${r.version}` : ''}`],
    ['Outcome', h('span', { class: code === null ? 'outcome-ok' : 'outcome-bad' }, code === null ? 'ok' : 'error')],
    ['Error code', code === null ? h('span', { class: 'muted' }, 'none') : h('span', { class: 'mono' }, code)],
    ['Error message', messageText(r.error?.message) ?? h('span', { class: 'muted' }, 'none')],
    ['Retryable', r.retryable === undefined ? h('span', { class: 'muted' }, 'n/a (success)') : r.retryable ? 'yes' : 'no'],
    ['Started', stamp(r.t_start)],
    ['Ended', stamp(r.t_end)],
    ['Duration', `${r.duration_ms} ms`],
    [vendor.calls, String(r.api_calls)],
    ['Replay', r.replay === true ? 'yes — the stored answer of an earlier call with this request id' : 'no'],
    ['Request id', h('span', { class: 'mono' }, r.request_id)],
    ['Trace id', r.trace_id ? h('span', { class: 'mono' }, r.trace_id) : h('span', { class: 'muted' }, 'none')],
    ['Agent', r.agent_id ? h('span', { class: 'mono' }, r.agent_id) : h('span', { class: 'muted' }, 'none')],
    ['End user', r.user_id ?? h('span', { class: 'muted' }, 'customer-wide')],
    ['Conversation', r.conversation_id ? h('span', { class: 'mono' }, r.conversation_id) : h('span', { class: 'muted' }, 'none')],
    ['Credential', r.principal ? h('span', { class: 'mono' }, r.principal) : h('span', { class: 'muted' }, 'not recorded')],
    ['Payloads kept', r.payload_mode],
  ];
  const ops = r.google_operations;
  const bundleStatus = h('div', { 'aria-live': 'polite' });
  return h(
    'article',
    { class: 'card receipt', 'aria-label': `Receipt ${r.call_id}` },
    h(
      'dl',
      {},
      fields.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    h('h3', {}, vendor.operations),
    ops.length === 0
      ? h('p', { class: 'muted' }, vendor.none)
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'operations' },
            h('caption', { class: 'sr-only' }, `${vendor.operations}, in order`),
            h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Operation'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Time'))),
            h(
              'tbody',
              {},
              ops.map((o) => h('tr', {}, h('td', { class: 'mono' }, o.operation), h('td', {}, String(o.status)), h('td', {}, `${o.ms} ms`))),
            ),
          ),
        ),
    payloadSection('Inputs', r.input, r.payload_mode),
    payloadSection('Result', r.output, r.payload_mode),
    r.error?.details !== undefined ? payloadSection('Error details', r.error.details, r.payload_mode) : null,
    r.conversation_id
      ? h(
          'p',
          {},
          h(
            'button',
            { type: 'button', onclick: () => void downloadReplayBundle(customerId, r.conversation_id!, bundleStatus) },
            "Download this conversation's replay bundle (JSON)",
          ),
        )
      : null,
    bundleStatus,
  );
}

/**
 * Fetches GET …/conversations/{id}/replay-bundle (with the session's CSRF header, which a plain link could not
 * send) and saves it as a file through a Blob URL.
 */
export async function downloadReplayBundle(customerId: string, conversationId: string, status: HTMLElement): Promise<void> {
  if (!conversationId) {
    replace(status, h('p', { class: 'field-error', role: 'alert' }, 'Enter a conversation id first.'));
    return;
  }
  replace(status, h('p', { role: 'status' }, 'Preparing the replay bundle…'));
  const res = await api<{ receipts: unknown[]; truncated: boolean }>(
    'GET',
    `/api/admin/customers/${encodeURIComponent(customerId)}/conversations/${encodeURIComponent(conversationId)}/replay-bundle`,
  );
  if (!res.ok) {
    replace(status, failure('The replay bundle could not be made', res.error, res.requestId));
    return;
  }
  const url = URL.createObjectURL(new Blob([JSON.stringify(res.data, null, 2)], { type: 'application/json' }));
  const a = h('a', { href: url, download: `replay-${conversationId.replace(/[^A-Za-z0-9._-]/g, '_')}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  replace(
    status,
    h(
      'p',
      { role: 'status' },
      `Replay bundle saved: ${res.data.receipts.length} receipts${res.data.truncated ? ' (truncated: the conversation has more)' : ''}.`,
    ),
  );
}
