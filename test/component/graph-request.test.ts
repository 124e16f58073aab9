import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { LeanTooLarge, sendLean } from '../../src/providers/lean-http';
import { classifyGraphError } from '../../src/providers/microsoft/graph-errors';
import { GraphError, graphFetch } from '../../src/providers/microsoft/graph-request';

/**
 * The Graph adapters' one request (src/providers/microsoft/graph-request.ts) over Node's http: what reaches Graph,
 * how answers — compressed, refused, redirected, too large, cut off — read, and how each failure classifies.
 */

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
let recorded: Recorded[] = [];
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      recorded.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.0`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  recorded = [];
  answer = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ value: [{ id: 'a' }] }));
  };
});

const live = () => new AbortController().signal;

describe('graphFetch', () => {
  it('when the adapter posts JSON, then Graph gets the bearer token, the JSON and its length, and compression is asked for', async () => {
    const got = await graphFetch(
      base,
      'tok-1',
      { method: 'POST', path: '/me/calendar/getSchedule', body: { schedules: ['a@b.example'] }, headers: { Prefer: 'x' } },
      live(),
    );
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ value: [{ id: 'a' }] });
    const [sent] = recorded;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1.0/me/calendar/getSchedule', body: '{"schedules":["a@b.example"]}' });
    expect(sent!.headers).toMatchObject({
      authorization: 'Bearer tok-1',
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate',
      'content-type': 'application/json',
      'content-length': '29',
      prefer: 'x',
    });
  });

  it('when Graph answers gzip, then the answer is read decoded, and its headers can be read', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'request-id': 'r-1' });
      res.end(gzipSync(JSON.stringify({ value: [{ id: 'zipped' }] })));
    };
    const got = await graphFetch(base, 't', { method: 'GET', path: '/me/messages', query: { $top: '3' } }, live());
    expect(got.body).toEqual({ value: [{ id: 'zipped' }] });
    expect(got.header('request-id')).toBe('r-1');
    expect(recorded[0]!.url).toBe('/v1.0/me/messages?%24top=3');
  });

  it('when Graph answers 429 with Retry-After, then a GraphError carries the wait and the request id, and classifies as rate limited', async () => {
    answer = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7', 'request-id': 'r-429' });
      res.end(JSON.stringify({ error: { code: 'ApplicationThrottled', message: 'slow down' } }));
    };
    const err = await graphFetch(base, 't', { method: 'GET', path: '/me/events' }, live()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphError);
    expect(err).toMatchObject({ status: 429, code: 'ApplicationThrottled', retryAfterMs: 7000, requestId: 'r-429' });
    expect(classifyGraphError(err)).toMatchObject({ kind: 'rate_limited', error: { code: 'RATE_LIMITED', retryAfterS: 7 } });
  });

  it('when Graph redirects, then the redirect is not followed and the token goes nowhere else', async () => {
    answer = (_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.2:1/elsewhere' });
      res.end();
    };
    await expect(graphFetch(base, 't', { method: 'GET', path: '/me' }, live())).rejects.toMatchObject({ status: 302 });
    expect(recorded).toHaveLength(1);
  });

  it('when a next link names another origin, then nothing is sent', async () => {
    await expect(graphFetch(base, 't', { method: 'GET', path: 'http://127.0.0.2:1/v1.0/me/messages?$skip=10' }, live())).rejects.toThrow(/outside/);
    expect(recorded).toHaveLength(0);
  });

  it('when the deadline stops a request, then it rejects with the deadline’s own reason, which classifies as a timeout', async () => {
    answer = () => undefined; // never answers
    const stop = new AbortController();
    const reason = Object.assign(new Error('deadline'), { name: 'TimeoutError' });
    setTimeout(() => stop.abort(reason), 20);
    const err = await graphFetch(base, 't', { method: 'GET', path: '/me/events' }, stop.signal).catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(classifyGraphError(err)).toMatchObject({ kind: 'timeout', error: { code: 'EXTERNAL_API_ERROR' } });
  });

  it('when nothing listens, then the failure is a network one that was never sent, safe to retry', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await graphFetch(`http://127.0.0.1:${port}/v1.0`, 't', { method: 'POST', path: '/me/sendMail', body: {} }, live()).catch((e: unknown) => e);
    expect(classifyGraphError(err)).toMatchObject({ kind: 'network', retryWhen: 'always', error: { details: { reason: 'network', code: 'ECONNREFUSED' } } });
  });

  it('when the answer is cut off, then the failure is a network one, retried only if idempotent', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"value":[');
      setTimeout(() => res.destroy(), 5);
    };
    const err = await graphFetch(base, 't', { method: 'POST', path: '/me/events', body: {} }, live()).catch((e: unknown) => e);
    expect(classifyGraphError(err)).toMatchObject({ kind: 'network', retryWhen: 'if_idempotent' });
  });

  it('when an answer is larger than the bound, then reading stops there, with the status it came with', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('x'.repeat(4096));
    };
    const err = await sendLean(new URL(base), { method: 'GET', headers: {}, maxBytes: 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeanTooLarge);
    expect(err).toMatchObject({ status: 200 });
  });
});
