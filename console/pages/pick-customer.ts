import { h } from '../dom.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which customer a section shows: `?customer=<id>` in the URL (so a view can be bookmarked and shared), else a
 * customer-scoped session's own customer, else none yet (the page asks for one).
 */
export function chosenCustomer(principal: string): string | null {
  const fromUrl = new URLSearchParams(location.search).get('customer');
  if (fromUrl && UUID.test(fromUrl)) return fromUrl.toLowerCase();
  return principal.startsWith('customer:') ? principal.slice('customer:'.length) : null;
}

/** A small form to choose the customer; submitting reloads the section with `?customer=<id>`. */
export function customerChooser(current: string | null): HTMLFormElement {
  const input = h('input', {
    id: 'pick-customer',
    name: 'customer',
    type: 'text',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    value: current ?? '',
    placeholder: '00000000-0000-0000-0000-000000000000',
    'aria-describedby': 'pick-hint',
  });
  const hint = h('p', { id: 'pick-hint', class: 'muted' }, 'A customer id is a UUID.');
  return h(
    'form',
    {
      class: 'inline-form',
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
        location.assign(`${location.pathname}?customer=${id.toLowerCase()}`);
      },
    },
    h('label', { for: 'pick-customer' }, 'Customer'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Show')),
    hint,
  );
}
