import express, { type RequestHandler } from 'express';
import { HubFailure } from '../core/errors';
import { validationError } from '../core/validation';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;

/**
 * One non-recursive walk over a parsed body (hostile nesting cannot overflow the stack): is it nested deeper
 * than `maxDepth`, or does it use the key "__proto__" — which JSON.parse keeps as data but any later copy of
 * the object would turn into a prototype?
 */
export function inspectJson(value: unknown, maxDepth: number): 'too_deep' | 'proto_key' | null {
  if (value === null || typeof value !== 'object') return null;
  // Two parallel stacks rather than [node, depth] pairs: this runs on every request, so no garbage per node.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return 'too_deep';
    if (Array.isArray(node)) {
      for (const child of node) {
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in node) {
      if (key === '__proto__') return 'proto_key';
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return null;
}

const bodyParser = express.json({ limit: BODY_LIMIT_BYTES });

/** An error as body-parser (http-errors) makes it: the error handler maps its `type` to the contract's codes. */
const readError = (status: number, type: string, message: string) => Object.assign(new Error(message), { status, statusCode: status, expose: true, type });

/** Leading JSON whitespace, then the first character (body-parser's strict mode: only an object or array). */
const FIRST_CHAR = /^[\x20\x09\x0a\x0d]*(.|$)/s;

/**
 * express.json() for the request every agent sends — `Content-Type: application/json` (or with
 * `; charset=utf-8`), a Content-Length within the limit, no Content-Encoding — read without body-parser's
 * per-request content-type parsing, charset lookup and decoder streams (about a tenth of a hub_echo call's CPU).
 * The outcome is body-parser's to the byte: an empty body is {}, a leading byte-order mark is dropped, only an
 * object or array is accepted, and failures carry body-parser's error types. Every other request (chunked,
 * compressed, another charset or media type, over the limit) goes to body-parser itself.
 */
const parseJson: RequestHandler = (req, res, next) => {
  const type = req.headers['content-type'];
  const length = req.headers['content-length'];
  const plain =
    (type === 'application/json' || (type !== undefined && /^application\/json; ?charset="?utf-8"?$/i.test(type))) &&
    req.headers['content-encoding'] === undefined &&
    req.headers['transfer-encoding'] === undefined &&
    length !== undefined &&
    /^\d{1,7}$/.test(length) &&
    Number(length) <= BODY_LIMIT_BYTES;
  if (!plain) return bodyParser(req, res, next);
  const expected = Number(length);
  const chunks: Buffer[] = [];
  let received = 0;
  let done = false;
  const finish = (err?: Error) => {
    if (done) return;
    done = true;
    next(err);
  };
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  });
  req.on('error', () => finish(readError(400, 'request.aborted', 'request aborted')));
  req.on('close', () => {
    if (!req.complete) finish(readError(400, 'request.aborted', 'request aborted'));
  });
  req.on('end', () => {
    if (received !== expected) return finish(readError(400, 'request.size.invalid', 'request size did not match content length'));
    let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      if (text.length === 0) req.body = {};
      else {
        const first = FIRST_CHAR.exec(text)?.[1];
        if (first !== '{' && first !== '[') throw new SyntaxError('Unexpected token: the body must be a JSON object or array');
        req.body = JSON.parse(text) as unknown;
      }
    } catch (err) {
      return finish(Object.assign(readError(400, 'entity.parse.failed', (err as Error).message), { body: text }));
    }
    finish();
  });
};

/**
 * JSON bodies up to 1 MiB and 32 levels deep, without "__proto__" keys. Deeper nesting is refused up front:
 * nothing the contract accepts is that deep, and serialising it back (logs, echo) would recurse without bound.
 */
export const jsonBody: RequestHandler[] = [
  parseJson,
  (req, _res, next) => {
    if (req.body === undefined) {
      next(
        new HubFailure(
          validationError('The request body must be a JSON object sent with Content-Type: application/json', [
            { path: '(root)', message: `expected a JSON body, got Content-Type ${(req.headers['content-type'] ?? 'none').slice(0, 100)}` },
          ]),
        ),
      );
      return;
    }
    const problem = inspectJson(req.body, MAX_JSON_DEPTH);
    if (problem !== null) {
      next(
        new HubFailure(
          problem === 'too_deep'
            ? validationError(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels`, [
                { path: '(root)', message: `maximum nesting depth is ${MAX_JSON_DEPTH}` },
              ])
            : validationError('The request body uses the reserved key "__proto__"', [
                { path: '(root)', message: 'the key "__proto__" is not allowed anywhere in the body' },
              ]),
        ),
      );
      return;
    }
    next();
  },
];
