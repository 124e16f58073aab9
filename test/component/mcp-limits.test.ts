import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { asAdmin } from '../helpers/admin';
import { SECRET_A } from '../helpers/env';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * POST /mcp under a caller that tries to make it work for free: every message of a batch charged to the
 * caller's limits before it runs, batches and answers bounded, tools/list the caller's catalog — and what a model
 * reads when its call is wrong. Driven with the MCP SDK's Client and raw JSON-RPC over real HTTP.
 */

let hub: TestHub;
let server: Server;
let base: string;

beforeAll(async () => {
  // A small per-agent budget, so a flood meets it within a few batches.
  hub = await buildTestHub({ env: { HUB_RATE_LIMIT_AGENT_POINTS: '40' } });
  server = hub.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await hub.close();
});

const identity = (customerId: string, agentId: string, secret = SECRET_A) => ({
  Authorization: `ServiceSecret ${secret}`,
  'X-Hub-Customer-Id': customerId,
  'X-Hub-Agent-Id': agentId,
});

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'hub-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

const rpc = (headers: Record<string, string>, body: unknown) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

const listMessage = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const echoCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hub_echo', arguments: { message: `m${id}` } } });

async function admin(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: asAdmin(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

const echoCalls = async () => {
  const text = (await hub.metrics.scrape()).body;
  return [...text.matchAll(/^hub_tool_calls_total\{tool="hub_echo",[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
};

test('when a batch holds 21 messages, then the whole batch is refused with a JSON-RPC error and none of it runs', async () => {
  const before = await echoCalls();
  const res = await rpc(
    identity(randomUUID(), randomUUID()),
    Array.from({ length: 21 }, (_, i) => echoCall(i + 1)),
  );
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('at most 20') } });
  expect(await echoCalls()).toBe(before);
});

test('when one key floods tools/list in batches, then each message over its limit is answered RATE_LIMITED (429) while another customer is unaffected', async () => {
  const attacker = randomUUID();
  const agent = randomUUID();
  const made = await admin('POST', '/api/admin/service-keys', {
    name: 'flood',
    customer_ids: [attacker],
    agent_id: agent,
    tools: ['hub_echo', 'calendar_get_availability'],
  });
  const key = made.key as string;
  const answers: { status: number; body: { error?: { code: number; data?: { code: string; retry_after_s?: number } } }[] }[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await rpc(
      identity(attacker, agent, key),
      Array.from({ length: 20 }, (_, j) => listMessage(j + 1)),
    );
    answers.push({ status: res.status, body: (await res.json()) as never });
  }
  // 40 points: the first two batches are listed, every message of the third is refused on its own.
  expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
  expect(answers[0]!.body.every((m) => m.error === undefined)).toBe(true);
  expect(answers[2]!.body).toHaveLength(20);
  for (const message of answers[2]!.body) {
    expect(message.error).toMatchObject({ code: -32000, data: { code: 'RATE_LIMITED', retry_after_s: expect.any(Number) } });
  }
  // The same limits as an execute call: the key's tool calls for that agent are refused too.
  const call = await rpc(identity(attacker, agent, key), echoCall(1));
  expect(await call.json()).toMatchObject({ result: { isError: true, structuredContent: { error: { code: 'RATE_LIMITED' } } } });

  const victim = await connect(identity(randomUUID(), randomUUID()));
  expect((await victim.listTools()).tools.length).toBeGreaterThan(2);
  expect(await victim.callTool({ name: 'hub_echo', arguments: { message: 'still here' } })).toMatchObject({ structuredContent: { message: 'still here' } });
  await victim.close();
});

test('when a single message is over the limit, then the answer is HTTP 429 with Retry-After and the JSON-RPC error', async () => {
  const headers = identity(randomUUID(), randomUUID());
  for (let i = 0; i < 2; i++)
    expect(
      (
        await rpc(
          headers,
          Array.from({ length: 20 }, (_, j) => ({ jsonrpc: '2.0', id: j, method: 'ping' })),
        )
      ).status,
    ).toBe(200);
  const res = await rpc(headers, listMessage(7));
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await res.json()).toMatchObject({
    jsonrpc: '2.0',
    id: 7,
    error: { data: { code: 'RATE_LIMITED' }, message: expect.stringMatching(/^RATE_LIMITED: .*Retry in \d+ s/) },
  });
});

test("when a scoped key lists its tools under a policy, then tools/list equals the HTTP catalog's list for that key and caller", async () => {
  const customerId = randomUUID();
  const agentId = randomUUID();
  const made = await admin('POST', '/api/admin/service-keys', {
    name: 'lister',
    customer_ids: [customerId],
    tools: ['hub_echo', 'calendar_get_availability', 'email_search', 'email_send'],
  });
  await admin('PUT', `/api/admin/customers/${customerId}/policy`, {
    enabled_tools: ['hub_echo', 'email_search', 'email_send', 'calendar_list_calendars', 'hub_current_time'],
  });
  await admin('PUT', `/api/admin/customers/${customerId}/agents/${agentId}/policy`, { max_side_effects: 'reads' });
  const key = made.key as string;
  const http = await fetch(`${base}/api/internal/tools/?customer_id=${customerId}&agent_id=${agentId}`, { headers: { authorization: `ServiceSecret ${key}` } });
  const catalogNames = ((await http.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
  expect(catalogNames).toEqual(['email_search', 'hub_echo']);
  const client = await connect(identity(customerId, agentId, key));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(catalogNames);
  // Listed twice (served from the cache for that scope): the same list.
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(catalogNames);
  await client.close();
  // The customer's policy alone (another agent of the same customer) lets email_send through too.
  const other = await connect(identity(customerId, randomUUID(), key));
  expect((await other.listTools()).tools.map((t) => t.name)).toEqual(['email_search', 'email_send', 'hub_echo']);
  await other.close();
});

test('when a scoped key names a customer outside its scope, then tools/list is refused FORBIDDEN', async () => {
  const made = await admin('POST', '/api/admin/service-keys', { name: 'narrow', customer_ids: [randomUUID()] });
  const res = await rpc(identity(randomUUID(), randomUUID(), made.key as string), listMessage(1));
  expect(res.status).toBe(403);
  expect(await res.json()).toMatchObject({ id: 1, error: { code: -32000, data: { code: 'FORBIDDEN', details: { reason: 'customer_out_of_scope' } } } });
});

test('when a batch answer would grow past its bound, then the members beyond it are not run and say to come again alone', async () => {
  const res = await rpc(
    identity(randomUUID(), randomUUID()),
    Array.from({ length: 20 }, (_, j) => listMessage(j + 1)),
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as { id: number; result?: unknown; error?: { message: string } }[];
  const served = body.filter((m) => m.result !== undefined).length;
  expect(served).toBeGreaterThan(0);
  expect(served).toBeLessThan(20);
  expect(body.map((m) => m.id)).toEqual(Array.from({ length: 20 }, (_, j) => j + 1));
  expect(body[19]!.error!.message).toMatch(/^Not run: .*in a request of its own/);
});

test('when tools/call sends arguments as an array, then the answer is -32602 naming params.arguments', async () => {
  const res = await rpc(identity(randomUUID(), randomUUID()), { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'hub_echo', arguments: ['hi'] } });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { id: number; error: { code: number; message: string; data: { issues: { path: string }[] } } };
  expect(answer).toMatchObject({ id: 3, error: { code: -32602 } });
  expect(answer.error.message).toMatch(/^Invalid params: params\.arguments: must be a JSON object/);
  expect(answer.error.data.issues.map((i) => i.path)).toEqual(['params.arguments']);
  expect(answer.error.message).not.toMatch(/invalid_type|"code"/);
});

test('when the arguments break the schema, then the text a model reads names each field at fault and why', async () => {
  const client = await connect(identity(randomUUID(), randomUUID()));
  const answer = await client.callTool({ name: 'hub_echo', arguments: { message: '', extra: 1 } });
  expect(answer.isError).toBe(true);
  const text = (answer.content as { text: string }[])[0]!.text;
  expect(text).toMatch(
    /^VALIDATION_ERROR: Invalid inputs for hub_echo \(.*arguments\.message: [^;]+;.*arguments\.extra: unknown field.*\)\. Fix these and call again\.$/,
  );
  const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
  expect((unknown.content as { text: string }[])[0]!.text).toMatch(/Call one of: .*hub_echo/);
  await client.close();
});

test('when an identity header is missing, then the text names that header and says the arguments cannot fix it', async () => {
  const client = await connect({ Authorization: `ServiceSecret ${SECRET_A}`, 'X-Hub-Customer-Id': randomUUID() });
  const answer = await client.callTool({ name: 'hub_echo', arguments: { message: 'hi' } });
  expect(answer).toMatchObject({
    isError: true,
    structuredContent: { error: { code: 'VALIDATION_ERROR', details: { issues: [{ path: 'headers.X-Hub-Agent-Id' }] } } },
  });
  const text = (answer.content as { text: string }[])[0]!.text;
  expect(text).toContain('X-Hub-Agent-Id header: is missing');
  expect(text).not.toContain('X-Hub-Customer-Id');
  expect(text).toContain('changing the arguments will not help');
  await client.close();
});

test('when a client initializes, then it gets instructions that say where a request id goes, and tools have human titles', async () => {
  const client = await connect(identity(randomUUID(), randomUUID()));
  expect(client.getInstructions()).toContain('"request_id"');
  expect(client.getInstructions()).toContain('_meta');
  const send = (await client.listTools()).tools.find((t) => t.name === 'email_send')!;
  expect(send.title).toBe('Send email');
  expect(send.description).toContain('_meta');
  expect(send.description).not.toContain('context.request_id');
  await client.ping();
  await client.close();
});

test('when a body is notifications only, then it is accepted with 202; a method the Hub does not serve answers -32601', async () => {
  const headers = identity(randomUUID(), randomUUID());
  const accepted = await rpc(headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(accepted.status).toBe(202);
  expect(await accepted.text()).toBe('');
  const unknown = await rpc(headers, [listMessage(1), { jsonrpc: '2.0', id: 2, method: 'resources/list' }, { hello: 'world' }]);
  expect(unknown.status).toBe(200);
  const got = (await unknown.json()) as { result?: { tools: unknown } }[];
  // (expect.any(Array) fails on an array parsed in another realm: fetch's.)
  expect(Array.isArray(got[0]!.result!.tools)).toBe(true);
  expect(got).toMatchObject([
    { id: 1, result: {} },
    { id: 2, error: { code: -32601 } },
    { id: null, error: { code: -32600 } },
  ]);
});

test('when initialize comes inside a batch, then the batch is refused whole; alone without clientInfo, then -32602 names it', async () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const res = await rpc(identity(randomUUID(), randomUUID()), [init, listMessage(2)]);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('initialize') } });
  const { clientInfo: _missing, ...params } = init.params;
  const alone = await rpc(identity(randomUUID(), randomUUID()), { ...init, params });
  expect(await alone.json()).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringMatching(/^Invalid params: params\.clientInfo: /) } });
});
