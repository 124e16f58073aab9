import type { Express } from 'express';
import request from 'supertest';
import { SECRET_A } from './env';
import { assertMatchesSpec } from './openapi';

/**
 * supertest, with every response checked against openapi.yaml before the test's own assertions.
 * `as` sets the Authorization header (a ServiceSecret by default).
 */
export function client(app: Express) {
  const wrap = (method: 'get' | 'post' | 'put' | 'delete' | 'patch', path: string) => {
    const test = request(app)[method](path);
    return test.expect((res) => assertMatchesSpec(method.toUpperCase(), path, res));
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
