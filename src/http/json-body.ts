import express, { type RequestHandler } from 'express';
import { HubFailure } from '../errors';
import { validationError } from './validation';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;

/** Depth of a parsed JSON value, walked without recursion so hostile nesting cannot overflow the stack. */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] });

/**
 * JSON bodies up to 1 MiB and 32 levels deep. Deeper nesting is refused up front because nothing the contract
 * accepts is that deep, and serialising it back (logs, echo) would recurse without bound.
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
    if (exceedsDepth(req.body, MAX_JSON_DEPTH)) {
      next(
        new HubFailure(
          validationError(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels`, [
            { path: '(root)', message: `maximum nesting depth is ${MAX_JSON_DEPTH}` },
          ]),
        ),
      );
      return;
    }
    next();
  },
];
