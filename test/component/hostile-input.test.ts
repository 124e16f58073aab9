import { randomUUID } from 'node:crypto';
import { client, serviceAuth } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

/** A small deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'hub_echo', '__proto__', 'constructor', '\u0000', '\r\nX-Evil: 1', '𝕏'.repeat(3), 'a'.repeat(300), '../../etc', '%E0%A4%A', 'null'];

function randomValue(rand: () => number, depth: number): unknown {
  const pick = Math.floor(rand() * (depth > 3 ? 6 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return [0, -1, 1e308, -0, 3.5, Number.MAX_SAFE_INTEGER + 2][Math.floor(rand() * 6)];
    case 3:
      return STRINGS[Math.floor(rand() * STRINGS.length)];
    case 4:
      return randomUUID();
    case 5:
      return 'x'.repeat(Math.floor(rand() * 50));
    case 6:
      return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    default: {
      const keys = ['tool', 'agent_id', 'customer_id', 'user_id', 'inputs', 'context', 'message', 'request_id', ...STRINGS];
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, () => [keys[Math.floor(rand() * keys.length)], randomValue(rand, depth + 1)]));
    }
  }
}

/** Mostly well-formed envelopes with one or two fields replaced by something random. */
function randomBody(rand: () => number): unknown {
  if (rand() < 0.15) return randomValue(rand, 0);
  const body: Record<string, unknown> = {
    tool: 'hub_echo',
    agent_id: randomUUID(),
    customer_id: randomUUID(),
    inputs: { message: 'hi' },
  };
  const fields = ['tool', 'agent_id', 'customer_id', 'user_id', 'inputs', 'context', 'extra'];
  for (let i = 0; i < 1 + Math.floor(rand() * 2); i++) body[fields[Math.floor(rand() * fields.length)]!] = randomValue(rand, 1);
  return body;
}

describe('hostile and random input', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  it('when 300 generated bodies arrive, then each gets a contract answer and none is a 5xx', async () => {
    const rand = prng(20261122);
    for (let i = 0; i < 300; i++) {
      const body = randomBody(rand);
      const res = await client(hub.app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body));
      if (res.status >= 500 || ![200, 400, 404].includes(res.status)) {
        throw new Error(`case ${i} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)} -> ${res.text.slice(0, 300)}`);
      }
      expect(typeof res.body.success).toBe('boolean');
    }
  });

  it('when the raw bytes are not JSON at all, then 400 every time', async () => {
    const rand = prng(7);
    for (let i = 0; i < 50; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 64) }, () => Math.floor(rand() * 256)));
      if (bytes[0] === 0x7b || bytes[0] === 0x5b) bytes[0] = 0x21; // never a valid JSON opener by chance
      const res = await client(hub.app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .set('Content-Type', 'application/json')
        .send(bytes);
      expect(res.status).toBe(400);
    }
  });
});

describe('validation answers to oversized mistakes', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub({ env: { HUB_RATE_LIMIT_CUSTOMER_POINTS: '3', HUB_RATE_LIMIT_AGENT_POINTS: '3' } });
  });
  afterAll(() => hub.close());

  /** ~1 MB of unknown keys: the most a body under the 1 MiB limit can carry. */
  const unknownKeys = () => Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1]));
  const post = (body: unknown) =>
    client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).set('Content-Type', 'application/json').send(JSON.stringify(body));

  it('when a body holds 90,000 unknown keys at the top or in inputs, then the answer lists 20 issues, says truncated and stays small', async () => {
    for (const where of ['top', 'inputs'] as const) {
      const base = { tool: 'hub_echo', agent_id: randomUUID(), customer_id: randomUUID(), inputs: { message: 'x' } };
      const body = where === 'top' ? { ...base, ...unknownKeys() } : { ...base, inputs: { message: 'x', ...unknownKeys() } };
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.text.length).toBeLessThan(4_000);
      expect(res.body.error.details.truncated).toBe(true);
      expect(res.body.error.details.issues).toHaveLength(20);
      expect(res.body.error.details.issues[0]).toEqual({ path: where === 'top' ? 'k0' : 'inputs.k0', message: 'unknown field' });
    }
  });

  it('when a customer over its limit keeps sending such bodies, then the rate limit answers before any of it is validated', async () => {
    const caller = { tool: 'hub_echo', agent_id: randomUUID(), customer_id: randomUUID() };
    const heavy = { ...caller, inputs: { message: 'x' }, ...unknownKeys() };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(heavy)).status);
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
    const limited = await post(heavy);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { scope: expect.any(String) } });
    expect(limited.body.tool).toBe('hub_echo');
  });
});
