import express, { type RequestHandler } from 'express';
import { HubFailure } from '../errors';
import { validationError } from './validation';

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

const parseJson = express.json({ limit: BODY_LIMIT_BYTES });

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
