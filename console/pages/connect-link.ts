import { api } from '../api.js';
import { failure, h, replace } from '../dom.js';
import { CAPABILITIES, INTEGRATIONS, capabilityLabel } from '../vocabulary.js';

/**
 * Make a connect link (integration, end user, return URL) and copy it. The integrations are the catalog's, grouped
 * by capability, each named with its vendor: the link leads to that vendor's sign-in.
 */
export function connectLinkForm(customerId: string): HTMLElement {
  const result = h('div', { 'aria-live': 'polite' });
  const integration = h(
    'select',
    { id: 'cl-integration', name: 'integration' },
    CAPABILITIES.map((c) =>
      h(
        'optgroup',
        { label: capabilityLabel(c) },
        INTEGRATIONS.filter((i) => i.capability === c).map((i) => h('option', { value: i.id }, `${i.display_name} (${i.vendor})`)),
      ),
    ),
  );
  const userId = h('input', { id: 'cl-user', name: 'user_id', type: 'text', autocomplete: 'off', 'aria-describedby': 'cl-user-hint' });
  const returnUrl = h('input', { id: 'cl-return', name: 'return_url', type: 'url', autocomplete: 'off', 'aria-describedby': 'cl-return-hint' });
  const replaceAccount = h('input', { id: 'cl-replace', name: 'replace', type: 'checkbox' });
  const submit = h('button', { type: 'submit' }, 'Make connect link');
  const form = h(
    'form',
    {
      class: 'stack',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        replace(result, h('p', { class: 'state loading', role: 'status' }, 'Making the link…'));
        const res = await api<{ url: string; expires_at: string }>('POST', '/api/admin/connect-links', {
          customer_id: customerId,
          integration: integration.value,
          ...(userId.value.trim() ? { user_id: userId.value.trim() } : {}),
          ...(returnUrl.value.trim() ? { return_url: returnUrl.value.trim() } : {}),
          ...(replaceAccount.checked ? { intent: 'replace' } : {}),
        });
        submit.disabled = false;
        if (!res.ok) {
          const issues = res.error.details?.issues ?? [];
          replace(
            result,
            failure('No link made', res.error, res.requestId),
            issues.length
              ? h(
                  'ul',
                  { class: 'field-error' },
                  issues.map((i) => h('li', {}, `${i.path}: ${i.message}`)),
                )
              : null,
          );
          return;
        }
        const url = h('input', { id: 'cl-url', type: 'text', readonly: true, value: res.data.url, 'aria-label': 'Connect link' });
        const copied = h('span', { role: 'status', class: 'muted' });
        const copy = h('button', { type: 'button' }, 'Copy link');
        copy.addEventListener('click', async () => {
          try {
            await navigator.clipboard.writeText(res.data.url);
            copied.textContent = 'Copied.';
          } catch {
            url.select(); // no clipboard permission (plain http, an old browser): selected for Ctrl-C
            copied.textContent = 'Selected: press Ctrl-C (⌘-C) to copy.';
          }
        });
        replace(
          result,
          h(
            'div',
            { class: 'link-result' },
            h('label', { for: 'cl-url' }, 'Connect link'),
            h('div', { class: 'row' }, url, copy),
            copied,
            h('p', { class: 'muted' }, `Works once, until ${new Date(res.data.expires_at).toLocaleString()}.`),
          ),
        );
      },
    },
    h('label', { for: 'cl-integration' }, 'Integration'),
    integration,
    h('label', { for: 'cl-user' }, 'End user id (optional)'),
    userId,
    h('p', { id: 'cl-user-hint', class: 'muted' }, 'Leave empty to connect the customer-wide account.'),
    h('label', { for: 'cl-return' }, 'Return URL (optional)'),
    returnUrl,
    h('p', { id: 'cl-return-hint', class: 'muted' }, "Where the person lands afterwards; must be on the Hub's allow-list (HUB_CONNECT_RETURN_URLS)."),
    h(
      'div',
      { class: 'check' },
      replaceAccount,
      h('label', { for: 'cl-replace' }, 'May replace the connected account with a different one of the same vendor'),
    ),
    submit,
  );
  return h('section', { 'aria-labelledby': 'cl-heading' }, h('h2', { id: 'cl-heading' }, 'Make a connect link'), form, result);
}
