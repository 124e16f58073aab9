import { type Server, createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { BODY_LIMIT_BYTES, jsonBody } from '../../src/http/json-body';

/**
 * The Hub's JSON body reader against body-parser (express.json, what it replaced on the common path): the same
 * raw requests, byte for byte, to an app using each, and the same outcome — the parsed body, or the same error
 * type and status (which the Hub's error handler turns into the contract's answer).
 */

const outcome: ErrorRequestHandler = (err: { status?: number; type?: string }, _req, res, next) => {
  void next;
  res.status(200).json({ error: { status: err.status ?? null, type: err.type ?? (err instanceof Error ? err.message : null) } });
};
const echo: RequestHandler = (req, res) => {
  res.json({ body: req.body as unknown });
};
const appWith = (parse: RequestHandler[]) =>
  express()
    .post('/', ...parse, echo)
    .use(outcome);

let hub: Server;
let reference: Server;
beforeAll(async () => {
  hub = createServer(appWith(jsonBody));
  reference = createServer(appWith([express.json({ limit: BODY_LIMIT_BYTES }), jsonBody[1]!]));
  await Promise.all([hub, reference].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
});
afterAll(() => Promise.all([hub, reference].map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

/** One raw HTTP/1.1 request; resolves with the answer's body (or '' when the server only closes the connection). */
function raw(server: Server, head: string, body: Buffer): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(text.slice(text.indexOf('\r\n\r\n') + 4));
    });
    // Written, not ended: a server closes a half-closed connection before an answer that takes a tick to make.
    socket.write(Buffer.concat([Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${head}\r\n`), body]));
  });
}

const json = (text: string | Buffer, type: string | null = 'application/json', extra = '') => {
  const body = typeof text === 'string' ? Buffer.from(text) : text;
  return { head: `${type === null ? '' : `Content-Type: ${type}\r\n`}Content-Length: ${body.length}\r\n${extra}`, body };
};

const CASES: [string, { head: string; body: Buffer }][] = [
  ['an object', json('{"tool":"hub_echo","inputs":{"message":"héllo ☕"}}')],
  ['an object, charset=utf-8', json('{"a":1}', 'application/json; charset=utf-8')],
  ['an object, charset=UTF-8 without a space', json('{"a":1}', 'application/json;charset=UTF-8')],
  ['an object, quoted charset', json('{"a":1}', 'application/json; charset="utf-8"')],
  ['an object after a byte-order mark', json(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))],
  ['an object after whitespace', json(' \n\t {"a":[1,2,{"b":null}]}')],
  ['an array', json('[1,"x",{}]')],
  ['an empty body', json('')],
  ['whitespace only', json('   \n')],
  ['a string', json('"just text"')],
  ['a number', json('12')],
  ['true', json('true')],
  ['null', json('null')],
  ['broken JSON', json('{"a":')],
  ['trailing garbage', json('{"a":1} x')],
  ['invalid UTF-8 inside a string', json(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]))],
  ['a "__proto__" key', json('{"inputs":{"__proto__":{"x":1}}}')],
  ['nesting 40 deep', json(`${'['.repeat(40)}${']'.repeat(40)}`)],
  ['Content-Type text/plain', json('{"a":1}', 'text/plain')],
  ['no Content-Type', json('{"a":1}', null)],
  ['upper-case media type', json('{"a":1}', 'Application/JSON')],
  ['a latin1 charset', json('{"a":1}', 'application/json; charset=latin1')],
  ['a utf-16 charset', json(Buffer.from('{"a":1}', 'utf16le'), 'application/json; charset=utf-16le')],
  ['a +json media type', json('{"a":1}', 'application/vnd.api+json')],
  ['a gzip body', json(gzipSync('{"a":"zipped"}'), 'application/json', 'Content-Encoding: gzip\r\n')],
  ['an unknown Content-Encoding', json('{"a":1}', 'application/json', 'Content-Encoding: snappy\r\n')],
  ['a chunked body', { head: 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', body: Buffer.from('4\r\n{"a"\r\n4\r\n:12}\r\n0\r\n\r\n') }],
  ['a body over the limit', json(`{"a":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`)],
];

test.each(CASES)('when the body is %s, then the Hub reads it as body-parser does', async (_name, request) => {
  const [ours, theirs] = await Promise.all([raw(hub, request.head, request.body), raw(reference, request.head, request.body)]);
  expect({ ours, theirs }).toEqual({ ours: theirs, theirs: expect.stringMatching(/./) });
});

test('when the body is shorter than its Content-Length and the client goes away, then neither reader answers or fails the process', async () => {
  const { port: ourPort } = hub.address() as AddressInfo;
  const { port: theirPort } = reference.address() as AddressInfo;
  const cut = (port: number) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.end('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    });
  const [ours, theirs] = await Promise.all([cut(ourPort), cut(theirPort)]);
  expect(ours).toBe(theirs);
  // and both servers still answer
  const again = json('{"a":1}');
  expect(await raw(hub, again.head, again.body)).toBe(await raw(reference, again.head, again.body));
});
