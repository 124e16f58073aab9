import type { Express } from 'express';
import request from 'supertest';
import { SECRET_A } from './env';
import { assertMatchesSpec } from './openapi';

/** What every answer of the Hub carries, whichever route produced it. */
function assertStandardHeaders(res: { headers: Record<string, string | string[] | undefined> }) {
  for (const [name, value] of Object.entries({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  })) {
    if (res.headers[name] !== value) throw new Error(`response header ${name} is ${String(res.headers[name])}, expected ${value}`);
  }
  if (!res.headers['x-request-id']) throw new Error('response has no X-Request-Id');
}

/** supertest, with every response checked against openapi.yaml and the standard headers first. */
export function client(app: Express) {
  const wrap = (method: 'get' | 'post' | 'put' | 'delete' | 'patch', path: string) => {
    const test = request(app)[method](path);
    return test.expect((res) => {
      assertMatchesSpec(method.toUpperCase(), path, res);
      assertStandardHeaders(res);
    });
  };
  return {
    get: (path: string) => wrap('get', path),
    post: (path: string) => wrap('post', path),
    put: (path: string) => wrap('put', path),
    delete: (path: string) => wrap('delete', path),
    patch: (path: string) => wrap('patch', path),
  };
}

export const serviceAuth = (secret = SECRET_A) => `ServiceSecret ${secret}`;
