import { api } from '../api.js';
import { badge, failure, h, loading, ready, replace, when } from '../dom.js';
import { CAPABILITIES, INTEGRATIONS, type OfferedIntegration, capabilityLabel, integrationLabel, integrationOf, vendorName } from '../vocabulary.js';
import { connectLinkForm } from './connect-link.js';
import { customerNameForm } from './customer-name.js';
import { providerDefaultsSection } from './provider-defaults.js';
import { type CustomerProfile, webhooksSection } from './webhooks.js';
import { workingHoursForm } from './working-hours.js';

export interface Connection {
  integration: string;
  user_id: string | null;
  status: string;
  account_email: string | null;
  scopes: string[];
  missing_scopes: string[];
  last_refreshed_at: string | null;
  grant: { expires_at: string | null; health: string; reason: string | null };
  last_error: string | null;
  last_error_at: string | null;
  tools_available: string[];
  working_hours?: { start: string; end: string; days: string[] };
  working_hours_source?: 'admin' | 'default';
  setup_url?: string;
}

const who = (c: { user_id: string | null }) => (c.user_id === null ? 'customer-wide' : `end user ${c.user_id}`);
const health = (c: Connection) => (c.status === 'expired' || c.grant.health === 'expired' ? 'expired' : c.grant.health === 'expiring' ? 'expiring' : c.status);

/**
 * Customer: every connection (customer-wide and per end user), grouped by capability with each vendor's
 * integrations side by side (the catalog's, so Google's and Microsoft's alike), with what an admin needs to judge
 * it, and the actions: a connect link, disconnect (confirmed, naming what stops working), working hours, the default provider
 * per capability.
 */
export async function customerPage(main: HTMLElement, customerId: string, isAdmin: boolean): Promise<void> {
  document.title = `Customer ${customerId} · Hub console`;
  const back = isAdmin ? h('p', {}, h('a', { href: '/admin' }, '← All customers')) : null;
  // The customer's name (and webhook endpoint) in parallel with its connections: the heading names it once known.
  const profile = api<CustomerProfile>('GET', `/api/admin/customers/${encodeURIComponent(customerId)}`);
  const title = h('h1', {}, 'Customer ', h('span', { class: 'mono' }, customerId));
  const named = (name: string | null) => {
    document.title = `${name ?? `Customer ${customerId}`} · Hub console`;
    replace(title, name ?? 'Unnamed customer', h('span', { class: 'mono customer-id' }, customerId));
  };
  const connections = h(
    'section',
    { 'aria-labelledby': 'connections-heading' },
    h('h2', { id: 'connections-heading' }, 'Connections'),
    loading('Loading connections…'),
  );
  const status = h('p', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const enc = encodeURIComponent(customerId);
  const sections = h(
    'nav',
    { 'aria-label': 'This customer' },
    h(
      'ul',
      { class: 'row links' },
      h('li', {}, h('a', { href: `/admin/activity?customer=${enc}` }, 'Activity')),
      h('li', {}, h('a', { href: `/admin/policies?customer=${enc}` }, 'Policies')),
    ),
  );
  replace(main, back, title, sections, status, connections);

  let actions: HTMLElement[] | null = null; // the forms appear once the customer's connections could be read
  let defaults: ReturnType<typeof providerDefaultsSection> | null = null;
  const reload = async (announce?: string) => {
    const res = await api<{ integrations: Connection[] }>('GET', `/api/admin/customers/${encodeURIComponent(customerId)}/integrations`);
    if (!res.ok) {
      const title = res.status === 403 ? 'You cannot open this customer' : res.status === 400 ? 'Not a customer id' : 'The connections could not be loaded';
      replace(
        main,
        back,
        h('h1', {}, 'Customer'),
        failure(title, res.error, res.requestId, res.status >= 500 || res.status === 0 ? () => void retry() : undefined),
      );
      ready();
      return;
    }
    if (actions === null) {
      const about = await profile;
      if (about.ok) named(about.data.display_name);
      defaults = providerDefaultsSection(customerId);
      actions = [
        ...(about.ok ? [customerNameForm(customerId, about.data, named)] : []),
        defaults.element,
        connectLinkForm(customerId),
        webhooksSection(customerId, profile),
      ];
      main.append(...actions);
    } else await defaults?.refresh(); // a connection changed: what each capability resolves to may have too
    const list = res.data.integrations;
    replace(
      connections,
      h('h2', { id: 'connections-heading' }, 'Connections'),
      list.length === 0
        ? h(
            'div',
            { class: 'state empty' },
            h('p', { class: 'state-title' }, 'No connections yet'),
            h('p', {}, 'Make a connect link below and send it to the person whose account should be connected.'),
          )
        : null,
      CAPABILITIES.map((capability) => capabilityGroup(customerId, capability, list, reload)),
      // A connection of an integration this Hub no longer offers (none today): still shown, so it can be disconnected.
      orphans(list).length > 0
        ? h(
            'div',
            { class: 'cards' },
            orphans(list).map((c) => card(customerId, c, reload)),
          )
        : null,
    );
    if (announce) status.textContent = announce;
    ready();
  };
  // After a failed first load the page was replaced by the error: start over from the page's frame.
  const retry = async () => {
    actions = null;
    replace(main, back, title, sections, status, connections);
    await reload();
  };
  await reload();
}

const orphans = (list: Connection[]) => list.filter((c) => integrationOf(c.integration) === undefined);

/** One capability (Calendar, Email): every vendor's integration of it, connected or not, side by side. */
function capabilityGroup(customerId: string, capability: string, list: Connection[], reload: (announce?: string) => Promise<void>) {
  const offered = INTEGRATIONS.filter((i) => i.capability === capability);
  const connected = list.filter((c) => offered.some((i) => i.id === c.integration));
  const missing = offered.filter((i) => !list.some((c) => c.integration === i.id && c.user_id === null));
  const label = capabilityLabel(capability);
  return h(
    'section',
    { class: 'capability', 'aria-labelledby': `capability-${capability}` },
    h('h3', { id: `capability-${capability}` }, label),
    h('p', { class: 'muted' }, `${label} is offered by ${offered.map((i) => `${i.vendor} (${i.display_name})`).join(' and ')}.`),
    h(
      'div',
      { class: 'cards' },
      connected.map((c) => card(customerId, c, reload)),
      missing.map((i) => notConnected(i)),
    ),
  );
}

function notConnected(integration: OfferedIntegration) {
  const label = integration.display_name;
  return h(
    'article',
    { class: 'card', 'aria-label': `${label} · customer-wide` },
    h('h4', {}, `${label} · customer-wide`),
    h('p', { class: 'muted' }, integration.vendor),
    h('p', {}, badge('not_connected')),
    h('p', { class: 'muted' }, 'Make a connect link below to connect it.'),
  );
}

function list(items: string[], none: string) {
  return items.length === 0
    ? h('span', { class: 'muted' }, none)
    : h(
        'ul',
        { class: 'chips' },
        items.map((s) => h('li', {}, s)),
      );
}

function card(customerId: string, c: Connection, reload: (announce?: string) => Promise<void>) {
  const label = `${integrationLabel(c.integration)} · ${who(c)}`;
  const fields: [string, Node | string][] = [
    ['Vendor', vendorOf(c.integration)],
    ['Status', badge(health(c))],
    ['Account', c.account_email ?? 'unknown'],
    ['Granted scopes', list(c.scopes, 'none')],
    ['Missing scopes', list(c.missing_scopes, 'none')],
    ['Last refresh', when(c.last_refreshed_at)],
    ['Grant ends', c.grant.expires_at === null ? 'no known end' : when(c.grant.expires_at)],
    ['Last error', c.last_error === null ? h('span', { class: 'muted' }, 'none') : h('span', {}, c.last_error, ' (', when(c.last_error_at), ')')],
    ['Tools usable', list(c.tools_available, 'none')],
  ];
  const article = h(
    'article',
    { class: 'card', 'aria-label': label },
    h('h4', {}, label),
    h(
      'dl',
      {},
      fields.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    c.setup_url ? h('p', {}, h('a', { href: c.setup_url }, 'Reconnect link for this connection')) : null,
  );
  if (c.working_hours) article.append(workingHoursForm(customerId, c, reload));
  article.append(disconnectButton(customerId, c, label, reload));
  return article;
}

/** Disconnect behind a confirmation that names what stops working (a native <dialog>: focus and Escape for free). */
function disconnectButton(customerId: string, c: Connection, label: string, reload: (announce?: string) => Promise<void>) {
  const problem = h('div', { role: 'alert' });
  const confirm = h('button', { type: 'button', class: 'danger' }, 'Disconnect');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': `dlg-${c.integration}-${c.user_id ?? ''}` },
    h('h2', { id: `dlg-${c.integration}-${c.user_id ?? ''}` }, `Disconnect ${label}?`),
    h('p', {}, revokeText(c)),
    c.tools_available.length > 0
      ? h(
          'p',
          {},
          'These tools stop working for ',
          c.user_id === null ? 'this customer' : `end user ${c.user_id}`,
          ': ',
          h('strong', {}, c.tools_available.join(', ')),
          '.',
        )
      : h('p', {}, 'No tool uses it right now.'),
    problem,
    h('div', { class: 'row' }, confirm, cancel),
  );
  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    const query = c.user_id === null ? '' : `?user_id=${encodeURIComponent(c.user_id)}`;
    const res = await api<Disconnected>('DELETE', `/api/admin/customers/${encodeURIComponent(customerId)}/integrations/${c.integration}${query}`);
    confirm.disabled = false;
    if (!res.ok) {
      replace(problem, failure('Not disconnected', res.error, res.requestId));
      return;
    }
    dialog.close();
    dialog.remove();
    await reload(`${label} disconnected. ${revokedText(c, res.data)}`);
  });
  const open = h('button', { type: 'button', class: 'danger', onclick: () => dialog.showModal() }, 'Disconnect…');
  return h('div', { class: 'actions' }, open, dialog);
}

/** What the disconnect route answers about the vendor's side (docs/connecting-microsoft.md, "Disconnecting"). */
interface Disconnected {
  revoked_at_vendor: boolean;
  revoke_skipped?: 'unsupported' | 'account_in_use';
}

const vendorOf = (integration: string) => vendorName(integrationOf(integration)?.provider ?? '');

/** Before: what the Hub will try — it cannot know until the vendor answers whether the vendor revokes one grant. */
const revokeText = (c: Connection) =>
  `The Hub asks ${vendorOf(c.integration)} to revoke the grant of ${c.account_email ?? 'this account'} where ${vendorOf(c.integration)} allows it, and forgets the connection.`;

/** After: what actually happened at the vendor, said plainly — a forgotten token is not a revoked grant. */
function revokedText(c: Connection, r: Disconnected): string {
  const vendor = vendorOf(c.integration);
  if (r.revoked_at_vendor) return `${vendor} revoked the grant.`;
  if (r.revoke_skipped === 'unsupported')
    return `${vendor} offers no way to revoke one app's grant: the Hub deleted its tokens; the person can remove the Hub's access in their ${vendor} account settings.`;
  if (r.revoke_skipped === 'account_in_use') return `The grant was not revoked at ${vendor}: another connection of the same account still uses it.`;
  return `${vendor} did not confirm the revocation: the Hub deleted its tokens; the person can remove the Hub's access in their ${vendor} account settings.`;
}
