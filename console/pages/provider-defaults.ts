import { api } from '../api.js';
import { failure, h, loading, replace, when } from '../dom.js';
import { VENDORS, capabilityLabel, vendorName } from '../vocabulary.js';

type Provider = string;

interface CapabilityDefault {
  capability: 'calendar' | 'mail';
  default_provider: Provider | null;
  default_updated_at: string | null;
  connected_providers: Provider[];
  resolves_to: { provider: Provider; integration: string; reason: 'only_connected' | 'default' | 'first_connected' } | null;
}

/** The vendors the catalog offers (src/console/integrations.ts), in its order. */
const PROVIDERS = VENDORS.map((v) => ({ id: v.provider, label: v.vendor }));
const providerLabel = vendorName;
const REASON = { only_connected: 'the only one connected', default: 'the default', first_connected: 'the first connected' } as const;

/**
 * Which provider answers each capability (docs/provider-choice.md): the default per capability, what a
 * customer-wide call reaches now, and a control to choose the default or go back to "the first connected".
 * `refresh` reads it again (after a connection changed).
 */
export function providerDefaultsSection(customerId: string): { element: HTMLElement; refresh: () => Promise<void> } {
  const path = `/api/admin/customers/${encodeURIComponent(customerId)}/defaults`;
  const body = h('div', {}, loading('Loading default providers…'));
  const status = h('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const element = h(
    'section',
    { 'aria-labelledby': 'defaults-heading' },
    h('h2', { id: 'defaults-heading' }, 'Default providers'),
    h(
      'p',
      { class: 'muted' },
      `With ${PROVIDERS.map((p) => p.label).join(' and ')} both connected for a capability, the default answers. A default may name a provider not yet connected.`,
    ),
    body,
    status,
  );

  const refresh = async (announce?: string) => {
    const res = await api<{ capabilities: CapabilityDefault[] }>('GET', path);
    if (!res.ok) {
      replace(
        body,
        failure('The default providers could not be loaded', res.error, res.requestId, () => void refresh()),
      );
      return;
    }
    replace(
      body,
      res.data.capabilities.map((c) => capabilityForm(path, c, refresh)),
    );
    if (announce) status.textContent = announce;
  };
  void refresh();
  return { element, refresh: () => refresh() };
}

function capabilityForm(path: string, c: CapabilityDefault, refresh: (announce?: string) => Promise<void>): HTMLElement {
  const label = capabilityLabel(c.capability);
  const select = h(
    'select',
    { id: `default-${c.capability}`, name: 'provider' },
    PROVIDERS.map((p) => h('option', { value: p.id, selected: (c.default_provider ?? c.resolves_to?.provider ?? PROVIDERS[0]?.id) === p.id }, p.label)),
  );
  const problem = h('div', { 'aria-live': 'polite' });
  const done = async (res: Awaited<ReturnType<typeof api>>, said: string) => {
    if (!res.ok) {
      replace(problem, failure(`${label} default not saved`, res.error, res.requestId));
      return;
    }
    await refresh(said);
  };
  const clear = h(
    'button',
    {
      type: 'button',
      onclick: async () => done(await api('DELETE', `${path}/${c.capability}`), `${label}: back to the first connected.`),
    },
    'Use the first connected',
  );
  return h(
    'form',
    {
      class: 'inline-form',
      'aria-label': `${label} default provider`,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        await done(await api('PUT', `${path}/${c.capability}`, { provider: select.value }), `${label} default saved.`);
      },
    },
    h('h3', {}, label),
    h(
      'p',
      { 'data-testid': `default-${c.capability}` },
      c.default_provider === null
        ? 'No default chosen: the first connected answers.'
        : h('span', {}, `Default: ${providerLabel(c.default_provider)} (since `, when(c.default_updated_at), ').'),
      ' ',
      c.resolves_to === null
        ? 'Nothing is connected customer-wide.'
        : `Calls now reach ${providerLabel(c.resolves_to.provider)}, ${REASON[c.resolves_to.reason]}.`,
    ),
    h(
      'div',
      { class: 'row' },
      h('label', { for: select.id }, 'Default provider'),
      select,
      h('button', { type: 'submit' }, 'Save default'),
      c.default_provider === null ? null : clear,
    ),
    problem,
  );
}
