import { api } from '../api.js';
import { failure, h, replace } from '../dom.js';
import type { Connection } from './customer.js';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** Edit a calendar connection's working hours (the calendar tools read them), or go back to the default. */
export function workingHoursForm(customerId: string, c: Connection, reload: (announce?: string) => Promise<void>): HTMLElement {
  const hours = c.working_hours!;
  const key = `${c.integration}-${c.user_id ?? 'customer'}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const start = h('input', { id: `wh-start-${key}`, type: 'time', required: true, value: hours.start });
  const end = h('input', { id: `wh-end-${key}`, type: 'time', required: true, value: hours.end === '24:00' ? '23:59' : hours.end });
  const boxes = DAYS.map((d) => h('input', { type: 'checkbox', id: `wh-${d}-${key}`, value: d, checked: hours.days.includes(d) }));
  const problem = h('div', { 'aria-live': 'polite' });
  const path = `/api/admin/customers/${encodeURIComponent(customerId)}/integrations/google_calendar/working-hours${c.user_id === null ? '' : `?user_id=${encodeURIComponent(c.user_id)}`}`;
  const save = h('button', { type: 'submit' }, 'Save working hours');
  const reset = h('button', { type: 'button' }, 'Reset to default');
  const done = async (res: Awaited<ReturnType<typeof api>>, said: string) => {
    if (!res.ok) {
      const issues = res.error.details?.issues ?? [];
      replace(
        problem,
        failure('Working hours not saved', res.error, res.requestId),
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
    await reload(said);
  };
  reset.addEventListener('click', async () => done(await api('DELETE', path), 'Working hours reset to the default.'));
  const form = h(
    'form',
    {
      class: 'hours',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const days = boxes.filter((b) => b.checked).map((b) => b.value);
        await done(await api('PUT', path, { start: start.value, end: end.value, days }), 'Working hours saved.');
      },
    },
    h(
      'fieldset',
      {},
      h('legend', {}, `Working hours (${c.working_hours_source === 'admin' ? 'set by an admin' : 'default'})`),
      h('div', { class: 'row' }, h('label', { for: start.id }, 'From'), start, h('label', { for: end.id }, 'to'), end),
      h(
        'div',
        { class: 'days' },
        boxes.map((b, i) => h('span', { class: 'check' }, b, h('label', { for: b.id }, DAYS[i]![0]!.toUpperCase() + DAYS[i]!.slice(1, 3)))),
      ),
      h('div', { class: 'row' }, save, c.working_hours_source === 'admin' ? reset : null),
    ),
    problem,
  );
  return form;
}
