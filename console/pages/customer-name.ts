import { api } from '../api.js';
import { failure, h, replace, when } from '../dom.js';

interface NameAnswer {
  customer_id: string;
  display_name: string | null;
  display_name_updated_at: string | null;
  display_name_updated_by: string | null;
}

/**
 * The customer's display name: set or change it, or remove it (PUT /api/admin/customers/{id}). `shown` is told
 * the name now in force, so the page's heading and title follow.
 */
export function customerNameForm(customerId: string, current: NameAnswer, shown: (name: string | null) => void): HTMLElement {
  const input = h('input', {
    id: 'display-name',
    name: 'display_name',
    type: 'text',
    maxlength: 100,
    autocomplete: 'off',
    value: current.display_name ?? '',
    'aria-describedby': 'display-name-hint',
  });
  const hint = h('p', { id: 'display-name-hint', class: 'muted' });
  const problem = h('div', { 'aria-live': 'polite' });
  const remove = h('button', { type: 'button' }, 'Remove name');
  const describe = (a: NameAnswer) => {
    replace(
      hint,
      a.display_name === null
        ? 'Up to 100 characters, shown instead of the id in the console and found by its search.'
        : h('span', {}, 'Named ', when(a.display_name_updated_at), a.display_name_updated_by ? ` by ${a.display_name_updated_by}` : '', '.'),
    );
    remove.hidden = a.display_name === null;
  };
  const save = async (value: string | null, said: string) => {
    const res = await api<NameAnswer>('PUT', `/api/admin/customers/${encodeURIComponent(customerId)}`, { display_name: value });
    if (!res.ok) {
      const issues = res.error.details?.issues ?? [];
      replace(
        problem,
        failure('Name not saved', res.error, res.requestId),
        issues.length
          ? h(
              'ul',
              { class: 'field-error' },
              issues.map((i) => h('li', {}, `${i.path}: ${i.message}`)),
            )
          : null,
      );
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    input.removeAttribute('aria-invalid');
    input.value = res.data.display_name ?? '';
    describe(res.data);
    replace(problem, h('p', { role: 'status' }, said));
    shown(res.data.display_name);
  };
  remove.addEventListener('click', () => void save(null, 'Name removed.'));
  describe(current);
  return h(
    'section',
    { 'aria-labelledby': 'name-heading' },
    h('h2', { id: 'name-heading' }, 'Name'),
    h(
      'form',
      {
        class: 'inline-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void save(input.value, 'Name saved.');
        },
      },
      h('label', { for: 'display-name' }, 'Display name'),
      h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Save name'), remove),
      hint,
      problem,
    ),
  );
}
