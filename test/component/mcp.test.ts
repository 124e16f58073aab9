import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUITE_NOW } from '../helpers/calendar';
import { sandboxHubEnv } from '../helpers/connected';
import { SECRET_A } from '../helpers/env';
import { type CallTool, connectBoth, expectEveryToolCalled, runEveryTool } from '../helpers/every-tool';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';
import { BUILT_IN_TOOLS } from '../../src/tools';

/**
 * POST /mcp driven by the MCP SDK's own Client over real HTTP, as an agent framework would: the tool list, every
 * tool against the sandbox, and failures as tool results an agent can act on.
 */

const sb = useTestSandbox();
let hub: TestHub;
let server: Server;
let url: URL;

beforeAll(async () => {
  // A small per-agent budget, so the rate-limited result is reachable in a few calls.
  hub = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_RATE_LIMIT_AGENT_POINTS: '40' }), now: () => SUITE_NOW });
  server = hub.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await hub.close();
});

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'hub-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

const identity = (customerId: string, agentId = randomUUID()) => ({
  Authorization: `ServiceSecret ${SECRET_A}`,
  'X-Hub-Customer-Id': customerId,
  'X-Hub-Agent-Id': agentId,
});

test('when an MCP client lists the tools, then it gets every tool of the registry with titles, schemas and hints from its side effects', async () => {
  const client = await connect(identity(randomUUID()));
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(hub.tools.names());
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const tool of hub.tools.list()) {
    const listed = byName.get(tool.name)!;
    // The catalog's words, with the request id where MCP carries it (`_meta`), and a title a person reads.
    expect(listed.description).not.toContain('context.request_id');
    if (tool.sideEffects === 'writes') expect(listed.description).toContain('"_meta": {"request_id"');
    else expect(listed.description).toBe(tool.description);
    expect(listed.title).toMatch(/^[A-Z][a-z]+ /);
    expect(listed.inputSchema.type).toBe('object');
    expect(listed.outputSchema?.type).toBe('object');
    expect(listed.annotations).toEqual({
      readOnlyHint: tool.sideEffects === 'reads' && tool.changesWhen === undefined,
      destructiveHint: tool.destructive === true,
      idempotentHint: tool.sideEffects === 'reads',
      openWorldHint: tool.integration !== null,
    });
  }
  // Creating an event and sending a mail only add; an update or a delete changes what exists.
  const destructive = (name: string) => byName.get(name)!.annotations?.destructiveHint;
  expect(['calendar_create_event', 'email_send', 'calendar_update_event', 'calendar_delete_event'].map(destructive)).toEqual([false, false, true, true]);
  // email_read reads, but its mark_as_read clears UNREAD: not read-only (and safe to repeat).
  expect(byName.get('email_read')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  expect(byName.get('email_send')!.inputSchema.required).toEqual(expect.arrayContaining(['to', 'body']));
  await client.close();
});

test('when an MCP client calls every tool for a connected customer, then each runs against Google (the sandbox) and answers structured content', async () => {
  const customerId = randomUUID();
  await connectBoth(hub, sb, customerId);
  const client = await connect(identity(customerId));
  const call: CallTool = async (tool, inputs, requestId) => {
    const answer = await client.callTool({ name: tool, arguments: inputs, ...(requestId ? { _meta: { request_id: requestId } } : {}) });
    if (answer.isError) return { ok: false, code: (answer.structuredContent as any).error.code, error: answer.structuredContent };
    expect(JSON.parse((answer.content as { text: string }[])[0]!.text)).toEqual(answer.structuredContent);
    if (requestId) expect(answer._meta).toMatchObject({ 'hub/request_id': requestId });
    return { ok: true, result: answer.structuredContent };
  };
  expectEveryToolCalled(await runEveryTool(call));
  expect(BUILT_IN_TOOLS.length).toBeGreaterThan(0);
  await client.close();
});

test('when a tool call repeats its _meta request_id, then the write runs once and the second answer is the stored replay', async () => {
  const customerId = randomUUID();
  await connectBoth(hub, sb, customerId);
  const client = await connect(identity(customerId));
  const args = {
    name: 'email_send',
    arguments: { to: ['once@example.com'], subject: 'Once', body: 'Only once.' },
    _meta: { request_id: `mcp-send-${Date.now()}` },
  };
  const first = await client.callTool(args);
  const second = await client.callTool(args);
  expect(second.structuredContent).toEqual(first.structuredContent);
  expect(second._meta).toMatchObject({ 'hub/idempotent_replay': true });
  expect(sb.world.gmail.outbound.filter((m) => m.subject === 'Once')).toHaveLength(1);
  await client.close();
});

test('when the customer has not connected Gmail, then the call is an isError result with INTEGRATION_NOT_CONNECTED, its setup_url and a line to act on', async () => {
  const client = await connect(identity(randomUUID()));
  const answer = await client.callTool({ name: 'email_search', arguments: { query: 'from:john@example.com' } });
  expect(answer.isError).toBe(true);
  const error = (answer.structuredContent as any).error;
  expect(error).toMatchObject({
    code: 'INTEGRATION_NOT_CONNECTED',
    retryable: false,
    setup_url: expect.stringMatching(/^https:\/\/hub\.test\.example\/integrations\/google\/connect\?/),
  });
  const text = (answer.content as { text: string }[])[0]!.text;
  expect(text).toContain('INTEGRATION_NOT_CONNECTED');
  expect(text).toContain(error.setup_url);
  expect(text).not.toContain('\n');
  await client.close();
});

test('when an agent spends its rate limit, then the next call is an isError RATE_LIMITED result with retry_after_s', async () => {
  const client = await connect(identity(randomUUID()));
  let answer;
  for (let i = 0; i < 45; i++) {
    answer = await client.callTool({ name: 'hub_echo', arguments: { message: `m${i}` } });
    if (answer.isError) break;
  }
  expect(answer!.isError).toBe(true);
  const error = (answer!.structuredContent as any).error;
  expect(error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_s: expect.any(Number) });
  expect((answer!.content as { text: string }[])[0]!.text).toMatch(/^RATE_LIMITED: .*Retry in \d+ s/);
  await client.close();
});

test('when the arguments break the tool schema or the tool is unknown, then the answer is an isError result, not a protocol error', async () => {
  const client = await connect(identity(randomUUID()));
  const invalid = await client.callTool({ name: 'hub_echo', arguments: { message: '', extra: 1 } });
  expect(invalid).toMatchObject({ isError: true, structuredContent: { error: { code: 'VALIDATION_ERROR', retryable: false } } });
  const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
  expect(unknown).toMatchObject({ isError: true, structuredContent: { error: { code: 'TOOL_NOT_FOUND' } } });
  await client.close();
});

test('when the identity headers are missing, then the call is an isError VALIDATION_ERROR naming them', async () => {
  const client = await connect({ Authorization: `ServiceSecret ${SECRET_A}` });
  const answer = await client.callTool({ name: 'hub_echo', arguments: { message: 'hi' } });
  expect(answer).toMatchObject({ isError: true, structuredContent: { error: { code: 'VALIDATION_ERROR' } } });
  expect((answer.content as { text: string }[])[0]!.text).toContain('X-Hub-Customer-Id');
  await client.close();
});

test('when the service secret is wrong or missing, then the MCP client gets 401 before any tool is listed', async () => {
  await expect(connect({ ...identity(randomUUID()), Authorization: 'ServiceSecret wrong-secret-0123456789abcdef0123456789' })).rejects.toMatchObject({
    code: 401,
  });
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('ServiceSecret realm="hub"');
});

test('when a browser page from another origin posts to /mcp, then it is refused with 403 before authentication (DNS rebinding)', async () => {
  const post = (origin: string) =>
    fetch(url, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...identity(randomUUID()) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  const evil = await post('http://attacker.example');
  expect(evil.status).toBe(403);
  expect(await evil.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  expect((await post('https://hub.test.example')).status).toBe(200);
});

test('when the body is not JSON or not JSON-RPC, then the answer is a JSON-RPC protocol error', async () => {
  const post = (body: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...identity(randomUUID()) },
      body,
    });
  const broken = await post('{"jsonrpc": "2.0", "id": 1,');
  expect(broken.status).toBe(400);
  expect(await broken.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
  const notRpc = await post(JSON.stringify({ hello: 'world' }));
  expect(notRpc.status).toBe(400);
  expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBeLessThan(-32000);
  const get = await fetch(url, { headers: identity(randomUUID()) });
  expect(get.status).toBe(405);
});

test('when a tool call carries a request_id, then the MCP answer has the Hub headers, that X-Request-Id, and one access-log line naming the tool', async () => {
  const requestId = `mcp-headers-${Date.now()}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...identity(randomUUID()) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'hub_echo', arguments: { message: 'hi' }, _meta: { request_id: requestId } },
    }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({
    jsonrpc: '2.0',
    id: 7,
    result: { structuredContent: { message: 'hi' }, _meta: { 'hub/request_id': requestId, 'hub/api_calls': 0 } },
  });
  expect({ nosniff: res.headers.get('x-content-type-options'), cache: res.headers.get('cache-control'), id: res.headers.get('x-request-id') }).toEqual({
    nosniff: 'nosniff',
    cache: 'no-store',
    id: requestId,
  });
  const lines = hub.logs.entries().filter((e) => e.msg === 'request completed' && e.request_id === requestId);
  expect(lines).toEqual([expect.objectContaining({ method: 'POST', url: '/mcp', status: 200, tool: 'hub_echo' })]);
});
