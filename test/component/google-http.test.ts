import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { Gaxios, GaxiosError } from 'gaxios';
import { createGoogleClients } from '../../src/providers/google/clients';
import { classifyGoogleError } from '../../src/providers/google/errors';
import { MAX_ANSWER_BYTES, createGoogleHttp } from '../../src/providers/google/http';
import { testConfig } from '../helpers/env';

/**
 * The Hub's HTTP transport to Google (src/providers/google/http.ts) against gaxios' default, node-fetch: every
 * request shape the Hub sends arrives at a recording server byte for byte the same both ways (method, target,
 * header names, values and order, body), and every answer — plain, compressed, refused, cut off — reads the
 * same and classifies the same.
 */

interface Recorded {
  method: string;
  url: string;
  headers: string[];
  body: string;
}

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let base: string;
let recorded: Recorded[] = [];
let answer: Answer;
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      recorded.push({ method: req.method!, url: req.url!, headers: req.rawHeaders, body: Buffer.concat(chunks).toString('latin1') });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  recorded = [];
  answer = json(200, { kind: 'ok', items: [{ id: 'a' }] });
});

const clientsWith = (http: string) =>
  createGoogleClients(testConfig({ HUB_GOOGLE_SANDBOX_URL: base, HUB_GOOGLE_HTTP: http, HUB_GOOGLE_CLIENT_ID: 'c.apps.googleusercontent.com' }).google);
let lean: ReturnType<typeof clientsWith>;
let stock: ReturnType<typeof clientsWith>;
beforeAll(() => {
  lean = clientsWith('lean');
  stock = clientsWith('node-fetch');
});

/** Runs `call` with the stock clients, then the Hub's: both recorded requests and both outcomes. */
async function bothWays<T>(call: (clients: typeof lean) => Promise<T>) {
  const outcome = async (clients: typeof lean) => {
    try {
      return { ok: true as const, value: await call(clients) };
    } catch (err) {
      return { ok: false as const, err };
    }
  };
  const viaStock = await outcome(stock);
  const viaLean = await outcome(lean);
  expect(recorded).toHaveLength(2);
  return { stock: { request: recorded[0]!, ...viaStock }, lean: { request: recorded[1]!, ...viaLean } };
}

const token = 'ya29.test-token';

describe('when the Hub sends a request to Google, then Google receives exactly what node-fetch would have sent', () => {
  test.each([
    [
      'freeBusy.query (POST, JSON body)',
      (c: typeof lean) =>
        c
          .calendar(c.withAccessToken(token))
          .freebusy.query({ requestBody: { timeMin: '2027-03-01T05:00:00Z', timeMax: '2027-03-08T05:00:00Z', items: [{ id: 'primary' }] } }),
    ],
    [
      'events.list (GET, query string with characters to escape)',
      (c: typeof lean) =>
        c.calendar(c.withAccessToken(token)).events.list({ calendarId: 'ana+team@acme.example', q: 'café & "plans"', maxResults: 5, singleEvents: true }),
    ],
    [
      'events.patch (PATCH)',
      (c: typeof lean) =>
        c.calendar(c.withAccessToken(token)).events.patch({ calendarId: 'primary', eventId: 'e1', sendUpdates: 'all', requestBody: { summary: 'Zürich 🚆' } }),
    ],
    ['events.delete (DELETE, no body)', (c: typeof lean) => c.calendar(c.withAccessToken(token)).events.delete({ calendarId: 'primary', eventId: 'e1' })],
    [
      'messages.send (POST, raw message in JSON)',
      (c: typeof lean) => c.gmail(c.withAccessToken(token)).users.messages.send({ userId: 'me', requestBody: { raw: 'RnJvbTogYQ', threadId: 't1' } }),
    ],
    ['messages.get (GET, format=full)', (c: typeof lean) => c.gmail(c.withAccessToken(token)).users.messages.get({ userId: 'me', id: 'm1', format: 'full' })],
    [
      'a form POST through the OAuth client (the revoke shape)',
      (c: typeof lean) =>
        c.oauth2().transporter.request({
          url: `${base}/revoke`,
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          data: new URLSearchParams({ token: 'tok' }).toString(),
          retry: false,
        }),
    ],
  ] as [string, (c: typeof lean) => Promise<unknown>][])('%s', async (_name, call) => {
    const both = await bothWays(call);
    expect(both.lean.ok).toBe(true);
    expect(both.lean.request).toEqual(both.stock.request);
  });

  test.each([
    ['a URLSearchParams body', () => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: '1//x' })],
    ['a Buffer body', () => Buffer.from([0, 1, 2, 255])],
    ['a text body', () => 'plain text'],
    ['no body (POST)', () => undefined],
  ])('%s sent with gaxios', async (_name, data) => {
    const request = (fetchImplementation?: ReturnType<typeof createGoogleHttp>) =>
      new Gaxios(fetchImplementation ? { fetchImplementation } : {}).request({ url: `${base}/token`, method: 'POST', data: data(), retry: false });
    await request();
    await request(createGoogleHttp());
    expect(recorded).toHaveLength(2);
    expect(recorded[1]).toEqual(recorded[0]);
  });

  test('a stream body is left to node-fetch itself (and still arrives the same)', async () => {
    let fellBack = 0;
    const fetchImpl = createGoogleHttp(async () => {
      fellBack++;
      return (await import('node-fetch')).default as unknown as typeof fetch;
    });
    const request = (fetchImplementation?: ReturnType<typeof createGoogleHttp>) =>
      new Gaxios(fetchImplementation ? { fetchImplementation } : {}).request({
        url: `${base}/upload`,
        method: 'POST',
        data: Readable.from(['a', 'b']),
        retry: false,
      });
    await request();
    await request(fetchImpl);
    expect(fellBack).toBe(1);
    expect(recorded[1]).toEqual(recorded[0]);
  });
});

describe('when Google answers, then the Hub reads it as node-fetch would', () => {
  const payload = { kind: 'calendar#freeBusy', note: 'naïve ☕', calendars: { primary: { busy: [] } } };
  test.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync], // raw deflate under the "deflate" name, as some servers send it
    ['br', brotliCompressSync],
  ] as const)('a %s-encoded answer is decoded', async (coding, encode) => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': coding });
      res.end(encode(Buffer.from(JSON.stringify(payload))));
    };
    const both = await bothWays((c) => c.calendar(c.withAccessToken(token)).freebusy.query({ requestBody: {} }));
    expect(both.lean.ok && both.lean.value.data).toEqual(payload);
    expect(both.stock.ok && both.stock.value.data).toEqual(payload);
  });

  test('a small gzip answer that inflates to megabytes is read whole (inflated on the thread pool, not on the spot)', async () => {
    const big = { kind: 'gmail#message', raw: 'A'.repeat(5 * 1024 * 1024) };
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.from(JSON.stringify(big))));
    };
    const both = await bothWays((c) => c.gmail(c.withAccessToken(token)).users.messages.get({ userId: 'me', id: 'm1', format: 'raw' }));
    expect(both.lean.ok && both.lean.value.data).toEqual(big);
  });

  test('a 204 without a body reads as an empty answer', async () => {
    answer = (_req, res) => res.writeHead(204).end();
    const both = await bothWays((c) => c.calendar(c.withAccessToken(token)).events.delete({ calendarId: 'primary', eventId: 'e1' }));
    expect(both.lean.ok && both.lean.value.status).toBe(204);
    expect(both.lean.ok && both.lean.value.data).toEqual(both.stock.ok && both.stock.value.data);
  });

  test('a 429 with Retry-After fails with the same GaxiosError: status, Google error body, the wait', async () => {
    const error = { error: { code: 429, message: 'Rate Limit Exceeded', errors: [{ reason: 'rateLimitExceeded' }], status: 'RESOURCE_EXHAUSTED' } };
    answer = json(429, error, { 'retry-after': '7' });
    const both = await bothWays((c) => c.calendar(c.withAccessToken(token)).events.list({ calendarId: 'primary' }, { retry: false }));
    for (const way of [both.stock, both.lean]) {
      expect(way.ok).toBe(false);
      const err = !way.ok ? way.err : undefined;
      expect(err).toBeInstanceOf(GaxiosError);
      expect((err as GaxiosError).response?.status).toBe(429);
      expect((err as GaxiosError).response?.data).toEqual(error);
    }
    const classify = (err: unknown) => classifyGoogleError(err, { operation: 'calendar.events.list', now: Date.now() });
    const [s, l] = [classify(!both.stock.ok && both.stock.err), classify(!both.lean.ok && both.lean.err)];
    expect(l).toEqual(s);
    expect(l?.kind).toBe('rate_limited');
    expect(l?.retryAfterMs).toBe(7000);
  });

  test('an answer cut off mid-body is a network failure both ways', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"kind":"cal');
      setTimeout(() => res.socket?.destroy(), 10);
    };
    const both = await bothWays((c) => c.calendar(c.withAccessToken(token)).events.list({ calendarId: 'primary' }, { retry: false }));
    const kinds = [both.stock, both.lean].map((w) => (!w.ok ? classifyGoogleError(w.err, {})?.kind : 'ok'));
    expect(kinds).toEqual(['network', 'network']);
  });

  test('a refused connection is "never sent" both ways (safe to repeat even for a send)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcomes = await Promise.all(
      [undefined, createGoogleHttp()].map((fetchImplementation) =>
        new Gaxios(fetchImplementation ? { fetchImplementation } : {}).request({ url: `http://127.0.0.1:${port}/x`, retry: false }).then(
          () => undefined,
          (err: unknown) => classifyGoogleError(err, {}),
        ),
      ),
    );
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[1]).toMatchObject({ kind: 'network', retryWhen: 'always' });
  });

  test('a request stopped by its signal is a timeout both ways', async () => {
    // The answer is held far past the signal, and the signal leaves time for the request to arrive on a busy machine.
    answer = (_req, res) => setTimeout(() => json(200, {})(_req, res), 3_000);
    const both = await bothWays((c) =>
      c.calendar(c.withAccessToken(token)).events.list({ calendarId: 'primary' }, { signal: AbortSignal.timeout(1_000), retry: false }),
    );
    const kinds = [both.stock, both.lean].map((w) => (!w.ok ? classifyGoogleError(w.err, {})?.kind : 'ok'));
    expect(kinds).toEqual(['timeout', 'timeout']);
  });

  test('a finished request leaves no listener on its signal (one signal serves a whole tool call)', async () => {
    const controller = new AbortController();
    const c = lean.calendar(lean.withAccessToken(token));
    for (let i = 0; i < 3; i++) await c.events.list({ calendarId: 'primary' }, { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('an answer larger than the bound fails instead of filling memory — also when it only grows once decoded', async () => {
    const huge = Buffer.alloc(MAX_ANSWER_BYTES + 1024, 0x20);
    const fetchImpl = createGoogleHttp();
    const get = () => new Gaxios({ fetchImplementation: fetchImpl }).request({ url: `${base}/big`, retry: false, responseType: 'json' });
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(huge));
    };
    await expect(get()).rejects.toMatchObject({ cause: { code: 'ERR_ANSWER_TOO_LARGE' } });
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(huge);
    };
    await expect(get()).rejects.toMatchObject({ cause: { code: 'ERR_ANSWER_TOO_LARGE' } });
  });
});
