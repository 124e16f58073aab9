import type {
  AdminAnswer,
  CatalogTool,
  ExecuteResult,
  HubAdminClient,
  HubClient,
  HubError,
  Metadata,
  ToolInputs,
  ToolResults,
} from '../../packages/client/src/index';
import { TOOL_VERSIONS } from '../../packages/client/src/index';

/**
 * Compile-time checks of the client's types (`npm test` type-checks this file with tsc before Jest runs): each
 * `@ts-expect-error` line must be an error, or tsc fails.
 */

async function typedUse(hub: HubClient) {
  const ids = { customerId: 'c', agentId: 'a' };
  const created = await hub.execute('calendar_create_event', { title: 'T', start: 's', end: 'e' }, ids);
  if (created.ok) {
    const id: string = created.result.event_id;
    void id;
    // @ts-expect-error — an event result has no message_id
    void created.result.message_id;
  } else if (created.error.code === 'INTEGRATION_NOT_CONNECTED') {
    const url: string = created.error.details.setup_url;
    void url;
  } else if (created.error.code === 'RATE_LIMITED') {
    const wait: number | undefined = created.error.retry_after_s;
    void wait;
  }
  // @ts-expect-error — email_send needs `to` and `body`
  await hub.execute('email_send', { subject: 'x' }, ids);
  // @ts-expect-error — no such tool
  await hub.execute('calendar_teleport', {}, ids);
  // @ts-expect-error — hub_echo takes no `text`
  await hub.execute('hub_echo', { message: 'm', text: 't' }, ids);
  const send: ToolInputs['email_send'] = { to: ['a@example.com'], body: 'b', body_type: 'html' };
  const search: ToolResults['email_search']['messages'] = [];
  void send;
  void search;
}

async function pinnedVersions(hub: HubClient) {
  const ids = { customerId: 'c', agentId: 'a' };
  const v2 = await hub.execute('email_search@2', { query: 'q', page_token: 'p' }, ids);
  if (v2.ok) {
    const next: string | null = v2.result.next_page_token;
    const version: string | undefined = v2.metadata.tool_version;
    void next;
    void version;
  }
  await hub.execute('email_search@2.1', { query: 'q' }, ids);
  await hub.execute('email_search@2.1.0', { query: 'q' }, ids);
  const v1: ExecuteResult<'email_search@1'> = await hub.execute('email_search@1', { query: 'q', include_body: true }, ids);
  if (v1.ok) {
    // @ts-expect-error — email_search 1.x answers no next_page_token
    void v1.result.next_page_token;
    const replacement: string | undefined = v1.metadata.deprecation?.replacement;
    void replacement;
  }
  // @ts-expect-error — email_search 1.x takes no page_token
  await hub.execute('email_search@1.2', { query: 'q', page_token: 'p' }, ids);
  // @ts-expect-error — there is no email_search 3
  await hub.execute('email_search@3', { query: 'q' }, ids);
  const exact: '2.1.0' = TOOL_VERSIONS['email_search@2'];
  void exact;
}

function closedDetails(error: HubError) {
  switch (error.code) {
    case 'INTEGRATION_PERMISSION_DENIED':
      void error.details.missing_scopes;
      // @ts-expect-error — a misspelled key does not compile: details have no index signature
      void error.details.missing_scope;
      break;
    case 'POLICY_DENIED':
      void error.details.rule;
      // @ts-expect-error — POLICY_DENIED details have no setup_url
      void error.details.setup_url;
      break;
    case 'TOOL_NOT_FOUND':
      if ('available_versions' in error.details) void error.details.available_versions;
      break;
    case 'UNAUTHORIZED': {
      const none: undefined = error.details;
      void none;
    }
  }
}

function metadataAndCatalog(metadata: Metadata, tool: CatalogTool) {
  const replay: true | undefined = metadata.idempotent_replay;
  const sunset: string | undefined = metadata.deprecation?.sunset_at;
  const status: 'active' | 'deprecated' | 'blocked' = tool.versions[0]!.status;
  const flags: [boolean, boolean, string | null, string | null, string | null] = [
    tool.destructive,
    tool.read_only,
    tool.deprecated_at,
    tool.sunset_at,
    tool.replacement,
  ];
  void [replay, sunset, status, flags];
  // @ts-expect-error — catalog entries are closed too
  void tool.destructve;
}

async function adminTypes(admin: HubAdminClient) {
  const put = await admin.putCustomerPolicy({ customer_id: 'c', ifMatch: '"e"', body: { max_side_effects: 'reads' } });
  if (put.ok) {
    const created: 200 | 201 = put.status;
    const etag: string = put.value.etag;
    void [created, etag];
  }
  // @ts-expect-error — max_side_effects is reads or writes
  await admin.putCustomerPolicy({ customer_id: 'c', body: { max_side_effects: 'everything' } });
  // @ts-expect-error — listing a customer's connections needs customer_id
  await admin.listCustomerIntegrations({});
  // @ts-expect-error — only operations that honour If-Match take ifMatch
  await admin.listCustomerIntegrations({ customer_id: 'c', ifMatch: '*' });
  await admin.listServiceKeys();
  const hook: AdminAnswer<'setWebhookEndpoint'> = await admin.setWebhookEndpoint({ customer_id: 'c', body: { url: 'https://x.example' } });
  if (hook.ok && hook.status === 201) void hook.value.secret;
  // @ts-expect-error — an updated endpoint (200) shows no secret
  if (hook.ok && hook.status === 200) void hook.value.secret;
}

test('the client types are checked by tsc (this file compiles only if they hold)', () => {
  expect([typedUse, pinnedVersions, closedDetails, metadataAndCatalog, adminTypes].every((f) => typeof f === 'function')).toBe(true);
});
