// A consumer's program, type-checked with tsc against the packed @hub/client and run against the demo by
// test/tooling/client-package.test.ts. Each `@ts-expect-error` line must be an error, or the type check fails.
import { type CatalogTool, type HubClientError, createHubAdminClient, createHubClient, verifyWebhook } from '@hub/client';

declare const process: { argv: string[] };
const [baseUrl, serviceSecret, adminToken, customerId, agentId] = process.argv.slice(2) as [string, string, string, string, string];
const hub = createHubClient({ baseUrl, serviceSecret });
const admin = createHubAdminClient({ baseUrl, adminToken });
const ids = { customerId, agentId };
const out: Record<string, unknown> = {};
const failed = (error: HubClientError) => `${error.code}: ${error.message}`;

// A pinned major version, typed with that version's inputs and result.
const pinned = await hub.execute('email_search@2', { query: 'newer_than:3650d', max_results: 5 }, ids);
if (pinned.ok) {
  const next: string | null = pinned.result.next_page_token;
  out.pinned = { tool: pinned.tool, tool_version: pinned.metadata.tool_version, next: typeof next, messages: pinned.result.messages.length };
} else out.pinned = failed(pinned.error);

// The deprecated major: its own inputs (no page_token), and the deprecation notice in metadata.
const old = await hub.execute('email_search@1', { query: 'newer_than:3650d', include_body: false }, ids);
out.old = old.ok ? { tool_version: old.metadata.tool_version, replacement: old.metadata.deprecation?.replacement } : failed(old.error);
// @ts-expect-error — email_search 1.x has no page_token
void hub.execute('email_search@1', { query: 'x', page_token: 'p' }, ids);
// @ts-expect-error — no email_search 3
void hub.execute('email_search@3', { query: 'x' }, ids);

// An error narrowed by its code: details typed per code, closed.
const missing = await hub.execute('email_search', { query: '' }, { customerId: crypto.randomUUID(), agentId });
if (!missing.ok && missing.error.code === 'INTEGRATION_NOT_CONNECTED') {
  const url: string = missing.error.details.setup_url;
  // @ts-expect-error — a misspelled details key does not compile
  void missing.error.details.setup_ulr;
  out.missing = { code: missing.error.code, integration: missing.error.details.integration, url: url.length > 0 };
} else out.missing = missing.ok ? 'succeeded' : failed(missing.error);

// The catalog: versions, status, destructive, read_only, sunset and replacement.
const catalog = await hub.catalog();
if (catalog.ok) {
  const search: CatalogTool | undefined = catalog.value.tools.find((t) => t.name === 'email_search');
  const deprecated = search?.versions.find((v) => v.status === 'deprecated');
  const del = catalog.value.tools.find((t) => t.name === 'calendar_delete_event');
  out.catalog = {
    versions: search?.versions.map((v) => `${v.version}:${v.status}`),
    read_only: search?.read_only,
    sunset: typeof deprecated?.sunset_at,
    replacement: deprecated?.replacement,
    delete_destructive: del?.destructive,
  };
} else out.catalog = failed(catalog.error);

// The admin client: connections, a connect link, a policy guarded by its ETag.
const connections = await admin.listCustomerIntegrations({ customer_id: customerId });
out.connections = connections.ok ? connections.value.integrations.map((c) => `${c.integration}:${c.status}`).sort() : failed(connections.error);
// @ts-expect-error — customer_id is required
void admin.listCustomerIntegrations({});
const link = await admin.createConnectLink({ body: { customer_id: customerId, integration: 'google_gmail' } });
out.link = link.ok ? { status: link.status, intent: link.value.intent, url: new URL(link.value.url).pathname } : failed(link.error);
const created = await admin.putCustomerPolicy({ customer_id: customerId, body: { max_side_effects: 'reads', max_tool_calls_per_conversation: null } });
if (created.ok) {
  const denied = await hub.execute('email_send', { to: ['a@example.com'], body: 'b', subject: 's' }, ids);
  const replaced = await admin.putCustomerPolicy({ customer_id: customerId, ifMatch: created.value.etag, body: { max_side_effects: 'writes' } });
  const stale = await admin.deleteCustomerPolicy({ customer_id: customerId, ifMatch: created.value.etag });
  const removed = replaced.ok ? await admin.deleteCustomerPolicy({ customer_id: customerId, ifMatch: replaced.value.etag }) : undefined;
  out.policy = {
    created: created.status,
    etag_header: created.etag === `"${created.value.etag}"`,
    denied: denied.ok ? 'ran' : denied.error.code === 'POLICY_DENIED' ? denied.error.details.rule : denied.error.code,
    replaced: replaced.ok ? replaced.status : failed(replaced.error),
    stale: stale.ok ? 'deleted' : stale.error.code,
    removed: removed?.ok ? removed.value.deleted : removed && failed(removed.error),
  };
} else out.policy = failed(created.error);

// The webhook verifier, on a delivery signed as Standard Webhooks signs (HMAC-SHA256 over id.timestamp.body).
const secret = 'whsec_' + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
const body = JSON.stringify({ id: 'evt_1', type: 'connection.connected', created_at: new Date().toISOString(), data: {} });
const timestamp = String(Math.floor(Date.now() / 1000));
const key = await crypto.subtle.importKey('raw', new Uint8Array(32).fill(7), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`evt_1.${timestamp}.${body}`)));
const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${btoa(String.fromCharCode(...mac))}` };
const verified = await verifyWebhook(body, headers, secret);
const tampered = await verifyWebhook(body.replace('evt_1', 'evt_2'), headers, secret);
out.webhook = { verified: verified.ok && verified.event.type, tampered: tampered.ok ? 'accepted' : tampered.problem };

console.log(JSON.stringify(out));
