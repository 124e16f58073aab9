import { gzip } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import type { DiscoveryDocument, DiscoveryMethod } from '../discovery/documents';
import { type ApiRoute, matchRoute } from '../discovery/routes';
import { checkQuery, checkRequestBody, checkResponseBody } from '../discovery/schema-check';
import { faultAfterApply } from '../faults';
import { type ApiFamily, type ApiResult, errors } from '../google-errors';
import { resolveAccessToken } from '../oauth/tokens';
import { findAccount, type World } from '../world';
import { extractMedia } from './media';
import type { ApiHandler } from './types';

/**
 * Google's front end, in the order Google applies it: route by the Discovery path, authenticate the bearer
 * token, check that it holds a scope the method accepts, check the query and body against the Discovery
 * document, then run the method. Every answer is recorded in the request log.
 */

export interface DispatchOptions {
  world: () => World;
  routes: ApiRoute[];
  handlers: Readonly<Record<string, ApiHandler>>;
  checkResponses: boolean;
}

export const familyOf = (doc: DiscoveryDocument): ApiFamily => (doc.name === 'calendar' ? 'calendar' : 'gmail');

/** `calendar.events.insert` → `calendar.v3.Events.Insert`, the RPC name Google puts in ErrorInfo metadata. */
function rpcName(doc: DiscoveryDocument, method: DiscoveryMethod): string {
  const parts = method.id.split('.').slice(1);
  return [doc.name, doc.version, ...parts.map((p) => p[0]!.toUpperCase() + p.slice(1))].join('.');
}

const SERVICE: Record<string, string> = { calendar: 'calendar-json.googleapis.com', gmail: 'gmail.googleapis.com' };

/** The access token a request presents: the Authorization header (`''` when malformed), else `access_token`/`oauth_token`. */
export function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? m[1] : '';
  }
  const q = req.query.access_token ?? req.query.oauth_token;
  return typeof q === 'string' ? q : undefined;
}

/**
 * Whether Google would compress its answer: it gzips when the request asks twice — `Accept-Encoding: gzip` and a
 * User-Agent containing "gzip" (Calendar and Gmail "Performance tips", developers.google.com/workspace/calendar/api/guides/performance#gzip
 * and developers.google.com/workspace/gmail/api/guides/performance#gzip). googleapis asks both ways, so a client
 * of real Google reads gzip — and pays for inflating it.
 */
function wantsGzip(req: Request | undefined): boolean {
  const accept = req?.headers['accept-encoding'];
  const agent = req?.headers['user-agent'];
  return typeof accept === 'string' && /\bgzip\b/i.test(accept) && typeof agent === 'string' && agent.includes('gzip');
}

export function sendResult(res: Response, result: ApiResult): void {
  for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
  res.status(result.status);
  if (result.body === undefined) return void res.end();
  // Indented, as Google's JSON answers are.
  const text = JSON.stringify(result.body, null, 2);
  res.type('application/json; charset=UTF-8');
  if (!wantsGzip(res.req)) return void res.send(text);
  res.setHeader('Vary', 'Origin, X-Origin, Referer'); // what Google's API answers vary on
  gzip(text, (err, packed) => {
    if (res.destroyed) return;
    if (err) return void res.send(text); // never seen: zlib fails only on exhausted memory; answer uncompressed
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', packed.length);
    res.end(packed);
  });
}

export function apiDispatcher(options: DispatchOptions): RequestHandler {
  return (req, res, next) => {
    const match = matchRoute(options.routes, req.method, req.path);
    if (!match || match === 'method-not-allowed') return next(); // Google's HTML 404 page
    const world = options.world();
    const { route, params } = match;
    const { doc, method } = route;
    const fam = familyOf(doc);
    res.locals.operation = method.id;

    const token = bearerToken(req);
    if (token === undefined) return sendResult(res, errors.loginRequired());
    const record = token ? resolveAccessToken(world, token) : undefined;
    const account = record && findAccount(world, record.email);
    if (!record || !account) return sendResult(res, errors.invalidCredentials());
    res.locals.account = account.email;
    const accepted = method.scopes ?? [];
    const used = record.scopes.filter((s) => accepted.includes(s));
    res.locals.scopesUsed = used;
    if (used.length === 0) return sendResult(res, errors.insufficientScopes(SERVICE[doc.name] ?? doc.name, rpcName(doc, method), accepted));

    const rawQuery = { ...(req.query as Record<string, unknown>) };
    delete rawQuery.access_token; // consumed above, like the Authorization header
    delete rawQuery.oauth_token;
    if (route.upload) delete rawQuery.uploadType; // the upload protocol's own parameter
    const query = checkQuery(doc, method, rawQuery);
    if (!query.ok) return sendResult(res, errors.invalidPayload(query.message, fam));

    let body: unknown;
    let media: Buffer | undefined;
    if (route.upload) {
      const extracted = extractMedia(req);
      if (!extracted.ok) return sendResult(res, errors.badRequest(extracted.message, fam));
      ({ body, media } = extracted);
    } else if (method.request) {
      body = req.body === undefined || (Buffer.isBuffer(req.body) && req.body.length === 0) ? {} : req.body;
    }
    if (method.request && body !== undefined) {
      const problem = checkRequestBody(doc, method.request.$ref, body);
      if (problem) return sendResult(res, errors.invalidPayload(problem, fam));
    }

    const handler = options.handlers[method.id];
    if (!handler) return sendResult(res, errors.notImplemented(method.id));
    const ifMatch = req.get('if-match');
    const result = handler({
      world,
      methodId: method.id,
      family: fam,
      params,
      query: query.query,
      body,
      media,
      account,
      scopes: record.scopes,
      now: world.clock.now(),
      ...(ifMatch !== undefined ? { ifMatch } : {}),
    });
    if (options.checkResponses && method.response && result.status < 300 && result.body !== undefined) {
      const problems = checkResponseBody(doc, method.response.$ref, result.body);
      if (problems.length) world.violations.push({ operation: method.id, problems });
    }
    const fault = faultAfterApply(req, res, fam);
    if (fault === true) return; // dropped after the method ran: its effects stay, the client hears nothing
    sendResult(res, fault ?? result);
  };
}
