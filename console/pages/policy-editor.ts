import { type ApiError, type ApiResult, api } from '../api.js';
import { failure, h, loading, replace } from '../dom.js';
import { type Inherited, conversationNotice } from './policy-notice.js';

interface Rules {
  enabled_tools?: string[] | null;
  max_side_effects?: 'reads' | 'writes';
  max_tool_calls_per_conversation?: number | null;
  email_allowed_recipient_domains?: string[] | null;
  require_request_id_for_writes?: boolean;
  require_conversation_id?: boolean;
  max_conversations_per_agent_per_hour?: number | null;
}
interface Policy {
  rules: Rules;
  effective: Required<Rules>;
  tools_allowed: string[];
  denies_everything: boolean;
  warning?: string;
  etag: string;
  updated_at: string;
}

type Mode = [value: string, label: string];
/** Each rule: "not set" leaves it out (an agent then has the customer's), the rest as the API reads them. */
const FIELDS: { name: keyof Rules; label: string; modes: Mode[]; input?: 'lines' | 'number'; inputLabel?: string; max?: number }[] = [
  {
    name: 'enabled_tools',
    label: 'Enabled tools',
    modes: [
      ['unset', 'Not set'],
      ['null', 'Every tool'],
      ['list', 'Only these tools'],
    ],
    input: 'lines',
    inputLabel: 'Tools, one per line (name or name@major)',
  },
  {
    name: 'max_side_effects',
    label: 'Side effects',
    modes: [
      ['unset', 'Not set'],
      ['reads', 'Reads only'],
      ['writes', 'Reads and writes'],
    ],
  },
  {
    name: 'max_tool_calls_per_conversation',
    label: 'Tool calls per conversation',
    modes: [
      ['unset', 'Not set (see below)'],
      ['null', 'No limit'],
      ['value', 'At most'],
    ],
    input: 'number',
    inputLabel: 'Most calls per conversation',
    max: 1_000_000,
  },
  {
    name: 'require_conversation_id',
    label: 'Conversation id required',
    modes: [
      ['unset', 'Not set'],
      ['true', 'Yes: refuse calls without one'],
      ['false', 'No'],
    ],
  },
  {
    name: 'max_conversations_per_agent_per_hour',
    label: 'Conversations per agent per hour',
    modes: [
      ['unset', 'Not set'],
      ['null', 'No limit'],
      ['value', 'At most'],
    ],
    input: 'number',
    inputLabel: 'Most conversations one agent may use per hour',
    max: 10_000,
  },
  {
    name: 'email_allowed_recipient_domains',
    label: 'Email recipient domains',
    modes: [
      ['unset', 'Not set'],
      ['null', 'Any domain'],
      ['list', 'Only these domains'],
    ],
    input: 'lines',
    inputLabel: 'Domains, one per line',
  },
  {
    name: 'require_request_id_for_writes',
    label: 'Request id required for writes',
    modes: [
      ['unset', 'Not set'],
      ['true', 'Yes'],
      ['false', 'No'],
    ],
  },
];

const CONFLICT = 'Someone changed this policy; reload to see their version.';
const EXISTS = 'Someone created this policy meanwhile; reload to see their version before changing it.';

/** The view and editor of one policy (the customer's when agentId is null), inside `holder`. */
export async function policyEditor(holder: HTMLElement, customerId: string, agentId: string | null): Promise<void> {
  const key = agentId === null ? 'customer' : 'agent';
  const path = `/api/admin/customers/${encodeURIComponent(customerId)}${agentId === null ? '' : `/agents/${encodeURIComponent(agentId)}`}/policy`;
  const whose = agentId === null ? 'this customer' : `agent ${agentId}`;
  replace(holder, loading('Loading the policy…'));
  const customerPath = `/api/admin/customers/${encodeURIComponent(customerId)}/policy`;
  // Which policies exist, from the customer itself: a policy not made yet is an empty state, and asking for it
  // would be a 404 the browser logs as an error.
  const profile = await api<{ policies: { agent_id: string | null }[] }>('GET', `/api/admin/customers/${encodeURIComponent(customerId)}`);
  if (!profile.ok) {
    replace(
      holder,
      failure('The policy could not be loaded', profile.error, profile.requestId, () => void policyEditor(holder, customerId, agentId)),
    );
    return;
  }
  const has = (agent: string | null) => profile.data.policies.some((p) => p.agent_id === agent);
  const absent: ApiResult<Policy> = { ok: false, status: 404, error: { code: 'RESOURCE_NOT_FOUND', message: 'No policy yet' }, requestId: null };
  const [got, customerPolicy] = await Promise.all([
    has(agentId) ? api<Policy>('GET', path) : Promise.resolve(absent),
    agentId === null ? null : has(null) ? api<Policy>('GET', customerPath) : Promise.resolve(absent),
  ]);
  if (!got.ok && got.status !== 404) {
    replace(
      holder,
      failure('The policy could not be loaded', got.error, got.requestId, () => void policyEditor(holder, customerId, agentId)),
    );
    return;
  }
  let current: Policy | null = got.ok ? got.data : null;
  // What an agent's unset fields become: the customer's policy in force, or the defaults when it has none.
  const inherited: Inherited | null =
    customerPolicy === null
      ? null
      : customerPolicy.ok
        ? {
            budget: customerPolicy.data.effective.max_tool_calls_per_conversation,
            requireConversationId: customerPolicy.data.effective.require_conversation_id,
            from: 'customer',
          }
        : { budget: null, requireConversationId: false, from: 'default' };
  const reload = () => void policyEditor(holder, customerId, agentId);

  const controls = FIELDS.map((f) => {
    const id = `${key}-${f.name}`;
    const mode = h(
      'select',
      { id: `${id}-mode`, 'aria-describedby': `${id}-error` },
      f.modes.map(([v, l]) => h('option', { value: v }, l)),
    );
    const input =
      f.input === 'lines'
        ? h('textarea', { id, rows: 3, spellcheck: 'false', 'aria-describedby': `${id}-error` })
        : f.input === 'number'
          ? h('input', { id, type: 'number', min: 1, max: f.max ?? 1_000_000, step: 1, 'aria-describedby': `${id}-error` })
          : null;
    const error = h('p', { id: `${id}-error`, class: 'field-error' });
    const sync = () => {
      if (input) input.disabled = !['list', 'value'].includes(mode.value);
    };
    mode.addEventListener('change', sync);
    const set = (v: unknown) => {
      if (v === undefined) mode.value = 'unset';
      else if (v === null) mode.value = 'null';
      else if (Array.isArray(v)) {
        mode.value = 'list';
        if (input) input.value = v.join('\n');
      } else if (typeof v === 'number') {
        mode.value = 'value';
        if (input) input.value = String(v);
      } else mode.value = String(v);
      sync();
    };
    const read = (): unknown => {
      const m = mode.value;
      if (m === 'unset') return undefined;
      if (m === 'null') return null;
      if (m === 'list')
        return (input?.value ?? '')
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean);
      if (m === 'value') return Number(input?.value);
      if (m === 'true' || m === 'false') return m === 'true';
      return m;
    };
    const el = h(
      'div',
      { class: 'field' },
      h('label', { for: mode.id }, f.label),
      mode,
      input ? h('label', { for: id, class: 'muted small' }, f.inputLabel!) : null,
      input,
      error,
    );
    return { f, el, set, read, error, focus: () => mode.focus() };
  });

  const problem = h('div', { 'aria-live': 'polite' });
  const notice = h('p', { id: `${key}-conversation-notice`, class: 'notice' });
  const value = (name: keyof Rules) => controls.find((c) => c.f.name === name)!.read();
  const explainConversations = () => {
    notice.textContent = conversationNotice({
      creating: current === null,
      inherited,
      budget: value('max_tool_calls_per_conversation'),
      requireConversationId: value('require_conversation_id'),
      conversationsPerHour: value('max_conversations_per_agent_per_hour'),
    });
  };
  const summary = h('div');
  const show = (p: Policy | null) => {
    for (const c of controls) c.set(p?.rules[c.f.name]);
    explainConversations();
    replace(
      summary,
      p === null
        ? h(
            'p',
            { class: 'muted' },
            `No policy for ${whose} yet: saving creates it.${agentId === null ? '' : " Until then the agent has the customer's policy."}`,
          )
        : h(
            'div',
            {},
            h('p', { class: 'muted' }, 'Last changed ', h('time', { datetime: p.updated_at }, new Date(p.updated_at).toLocaleString()), '.'),
            h('p', {}, 'Tools in force: ', p.tools_allowed.length ? h('span', { class: 'mono' }, p.tools_allowed.join(', ')) : h('strong', {}, 'none')),
            p.warning ? h('p', { class: 'field-error', role: 'alert' }, p.warning) : null,
          ),
    );
  };
  const explain = (status: number, error: ApiError, requestId: string | null, title: string) => {
    for (const c of controls) c.error.textContent = '';
    if (status === 412 || status === 428) {
      replace(
        problem,
        h(
          'div',
          { class: 'state error', role: 'alert' },
          h('p', { class: 'state-title' }, status === 412 ? CONFLICT : EXISTS),
          h('p', { class: 'muted' }, `Code ${error.code}${requestId ? ` · request ${requestId}` : ''}`),
          h('button', { type: 'button', onclick: reload }, 'Reload policy'),
        ),
      );
      return;
    }
    const rest: string[] = [];
    for (const issue of error.details?.issues ?? []) {
      const name = /^(?:body\.)?([a-z_]+)/.exec(issue.path)?.[1];
      const c = controls.find((x) => x.f.name === name);
      if (c) c.error.textContent = `${c.error.textContent ? `${c.error.textContent} ` : ''}${issue.path.replace(/^body\./, '')}: ${issue.message}`;
      else rest.push(`${issue.path}: ${issue.message}`);
    }
    replace(
      problem,
      failure(title, error, requestId),
      rest.length
        ? h(
            'ul',
            { class: 'field-error' },
            rest.map((r) => h('li', {}, r)),
          )
        : null,
    );
    controls.find((c) => c.error.textContent)?.focus();
  };

  const save = h('button', { type: 'submit', 'aria-describedby': notice.id }, 'Save policy');
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete policy…');
  const form = h(
    'form',
    {
      class: 'policy',
      'aria-label': agentId === null ? 'Customer policy' : `Policy of agent ${agentId}`,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const rules: Record<string, unknown> = {};
        for (const c of controls) {
          const v = c.read();
          if (v !== undefined) rules[c.f.name] = v;
        }
        save.disabled = true;
        // Without If-Match the API only creates; with the ETag we saw it replaces only that version.
        const res = await api<Policy>('PUT', path, rules, current ? { 'If-Match': `"${current.etag}"` } : {});
        save.disabled = false;
        if (!res.ok) return explain(res.status, res.error, res.requestId, 'Policy not saved');
        for (const c of controls) c.error.textContent = '';
        current = res.data;
        show(current);
        replace(problem, h('p', { role: 'status' }, res.status === 201 ? 'Policy created.' : 'Policy saved.'));
        remove.hidden = false;
      },
    },
    h(
      'fieldset',
      {},
      h('legend', {}, agentId === null ? 'Rules of the customer' : `Rules of agent ${agentId}`),
      controls.map((c) => c.el),
    ),
    notice,
    h('div', { class: 'row actions' }, save, remove),
  );
  form.addEventListener('change', explainConversations);
  form.addEventListener('input', explainConversations);

  const confirm = h('button', { type: 'button', class: 'danger' }, 'Delete');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': `${key}-delete-heading` },
    h('h2', { id: `${key}-delete-heading` }, `Delete the policy of ${whose}?`),
    h('p', {}, agentId === null ? "Its agents' own policies stay." : "The agent then has the customer's policy."),
    h('div', { class: 'row' }, confirm, cancel),
  );
  remove.hidden = current === null;
  remove.addEventListener('click', () => dialog.showModal());
  cancel.addEventListener('click', () => dialog.close());
  confirm.addEventListener('click', async () => {
    const res = await api('DELETE', path, undefined, current ? { 'If-Match': `"${current.etag}"` } : {});
    dialog.close();
    if (!res.ok) return explain(res.status, res.error, res.requestId, 'Policy not deleted');
    current = null;
    show(null);
    remove.hidden = true;
    replace(problem, h('p', { role: 'status' }, 'Policy deleted.'));
  });
  show(current);
  replace(holder, summary, form, problem, dialog);
}
