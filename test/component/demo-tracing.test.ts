import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_AGENT_ID, DEMO_CUSTOMER_ID } from '../../src/demo-lines';
import { type RunningDemo, scratchProject, shellEnv, startDemo } from '../helpers/demo';
import { freePort } from '../helpers/ports';

/**
 * `npm run demo` honours the OTEL_* variables as `npm start` does: with an OTLP endpoint set, a call that carries
 * an agent's traceparent continues that trace — its spans reach the collector, its answer and its access line name
 * the trace. The collector here is an OTLP/HTTP receiver speaking JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json).
 */

jest.setTimeout(240_000);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

interface OtlpSpan {
  traceId: string;
  name: string;
}

let project: string;
let demo: RunningDemo | undefined;
let collector: Server;
const received: OtlpSpan[] = [];

const body = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  project = scratchProject();
  collector = createServer((req, res) => {
    void body(req).then((text) => {
      if (req.url === '/v1/traces') {
        const { resourceSpans = [] } = JSON.parse(text) as { resourceSpans?: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const r of resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await demo?.stop();
  await new Promise((resolve) => collector.close(resolve));
  rmSync(project, { recursive: true, force: true });
});

async function until<T>(what: string, get: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 100))) {
    const value = get();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A hub_echo call, with the agent's traceparent or without one; the answer's metadata.trace_id. */
async function echo(hubUrl: string, secret: string, message: string, withTraceparent: boolean) {
  const res = await fetch(`${hubUrl}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: `ServiceSecret ${secret}`, 'content-type': 'application/json', ...(withTraceparent ? { traceparent } : {}) },
    body: JSON.stringify({ tool: 'hub_echo', agent_id: DEMO_AGENT_ID, customer_id: DEMO_CUSTOMER_ID, inputs: { message } }),
  });
  const answer = (await res.json()) as { success: boolean; metadata: { trace_id?: string } };
  expect({ status: res.status, success: answer.success }).toEqual({ status: 200, success: true });
  return answer.metadata.trace_id;
}

const accessLine = (output: string, traceId: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((e) => e.msg === 'request completed' && e.trace_id === traceId);

test('when the demo starts with an OTLP endpoint in OTEL_*, then its calls are traced: spans reach the collector, answers and access lines name the trace', async () => {
  const secret = randomBytes(24).toString('hex');
  const { port } = collector.address() as AddressInfo;
  demo = await startDemo(
    project,
    shellEnv({
      HUB_PORT: String(await freePort()),
      SANDBOX_PORT: String(await freePort()),
      HUB_SERVICE_SECRETS: secret,
      HUB_DATA_DIR: 'memory://',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }),
  );
  const hubUrl = /curl -s (\S+)\/healthz/.exec(demo.lines.join('\n'))![1]!;
  // The agent's trace, continued.
  expect(await echo(hubUrl, secret, 'traced', true)).toBe(TRACE_ID);
  await until("the agent trace's hub.execute span at the collector", () => received.find((s) => s.name === 'hub.execute' && s.traceId === TRACE_ID));
  // No traceparent: a trace of the Hub's own, which only a started SDK makes.
  const own = await echo(hubUrl, secret, 'traced too', false);
  expect(own).toMatch(/^[0-9a-f]{32}$/);
  await until("the new trace's hub.execute span at the collector", () => received.find((s) => s.name === 'hub.execute' && s.traceId === own));
  const line = await until('the access line', () => accessLine(demo!.output, own!));
  expect(line).toMatchObject({ tool: 'hub_echo', customer_id: DEMO_CUSTOMER_ID, trace_id: own });
});

test('when the demo starts without OTEL_* variables, then a call without a traceparent has no trace', async () => {
  await demo?.stop();
  const secret = randomBytes(24).toString('hex');
  demo = await startDemo(
    project,
    shellEnv({ HUB_PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()), HUB_SERVICE_SECRETS: secret, HUB_DATA_DIR: 'memory://' }),
  );
  const hubUrl = /curl -s (\S+)\/healthz/.exec(demo.lines.join('\n'))![1]!;
  expect(await echo(hubUrl, secret, 'untraced', false)).toBeUndefined();
});
