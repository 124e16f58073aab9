import { empty, h, loading, ready, replace } from '../dom.js';
import { policyEditor } from './policy-editor.js';
import { UUID, chosenCustomer, customerChooser, customerHeading } from './pick-customer.js';

/**
 * Policies: the customer's policy (the default for all its agents) and, by agent id, an agent's own policy —
 * each viewed and edited with the API's ETag/If-Match flow, so two admins never silently overwrite each other.
 */
export async function policiesPage(main: HTMLElement, principal: string): Promise<void> {
  document.title = 'Policies · Hub console';
  const customerId = chosenCustomer(principal);
  const chooser = principal === 'admin' ? customerChooser(customerId) : null;
  if (customerId === null) {
    replace(main, h('h1', {}, 'Policies'), chooser, empty('Choose a customer', 'Policies are kept per customer and agent: enter a customer id above.'));
    ready();
    return;
  }
  const customerSection = h(
    'section',
    { 'aria-labelledby': 'customer-policy-heading' },
    h('h2', { id: 'customer-policy-heading' }, 'Customer policy'),
    loading("Loading the customer's policy…"),
  );
  const agentInput = h('input', {
    id: 'agent-id',
    name: 'agent_id',
    type: 'text',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: '00000000-0000-0000-0000-000000000000',
    'aria-describedby': 'agent-hint',
  });
  const agentHint = h('p', { id: 'agent-hint', class: 'muted' }, 'An agent id is a UUID. A field left "not set" in an agent\'s policy is the customer\'s.');
  const agentEditor = h('div');
  const agentForm = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const id = agentInput.value.trim();
        if (!UUID.test(id)) {
          agentHint.textContent = 'That is not a UUID: an agent id looks like 6f1c…-…';
          agentHint.className = 'field-error';
          agentInput.setAttribute('aria-invalid', 'true');
          agentInput.focus();
          return;
        }
        agentInput.removeAttribute('aria-invalid');
        void policyEditor(agentEditor, customerId, id.toLowerCase());
      },
    },
    h('label', { for: 'agent-id' }, 'Agent id'),
    h('div', { class: 'row' }, agentInput, h('button', { type: 'submit' }, 'Open agent policy')),
    agentHint,
  );
  const agentSection = h(
    'section',
    { 'aria-labelledby': 'agent-policy-heading' },
    h('h2', { id: 'agent-policy-heading' }, 'Agent policy'),
    agentForm,
    agentEditor,
  );
  replace(main, await customerHeading('Policies', customerId), chooser, customerSection, agentSection);
  const holder = h('div');
  replace(customerSection, h('h2', { id: 'customer-policy-heading' }, 'Customer policy'), holder);
  await policyEditor(holder, customerId, null);
  ready();
}
