import { api } from '../api.js';
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

/**
 * A section's heading for one customer: its display name with the id beneath, or the id alone when it has none
 * (or cannot be read: the section's own request then says why).
 */
export async function customerHeading(section: string, customerId: string): Promise<HTMLHeadingElement> {
  const res = await api<{ display_name: string | null }>('GET', `/api/admin/customers/${encodeURIComponent(customerId)}`);
  const name = res.ok ? res.data.display_name : null;
  if (name !== null) document.title = `${section} · ${name} · Hub console`;
  return name === null
    ? h('h1', {}, `${section} · `, h('span', { class: 'mono' }, customerId))
    : h('h1', {}, `${section} · ${name}`, h('span', { class: 'mono customer-id' }, customerId));
}
