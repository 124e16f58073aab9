import type { Request, RequestHandler, Response } from 'express';
import { checkValue, loadGraphSchema } from '../csdl/schema';
import { drawFault, faultError } from '../faults';
import { guid } from '../ids';
import { baseUrlOf } from '../identity/tenants';
import { admit } from '../throttle';
import { type Person, type World, findPerson } from '../world';
import { GE, type GraphError, sendGraphError } from './errors';
import { createMailbox, type Mailbox, settleTransport } from './mailbox';
import { preferences } from './time';

/**
 * What every Graph request goes through, in Graph's order: its request ids, the bearer token, the mailbox it
 * targets, Outlook's per app+mailbox throttling, injected faults, the permission the operation needs, the
 * operation, then (tests) the answer checked against the CSDL.
 */

export interface GraphCtx {
  world: World;
  req: Request;
  res: Response;
  caller: Person;
  clientId: string;
  scopes: string[];
  /** Whose mailbox (`/me` or `/users/{id|upn}`). */
  owner: Person;
  box: Mailbox;
  prefs: Map<string, string>;
  /** Preferences honoured, echoed in Preference-Applied. */
  applied: string[];
  baseUrl: string;
  immutableIds: boolean;
}

export interface Answer {
  status: number;
  body?: unknown;
  /** The CSDL type of the body (`microsoft.graph.event`, `Collection(microsoft.graph.message)` for `value`). */
  type?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: GraphCtx) => Answer | GraphError | Promise<Answer | GraphError>;
const isError = <T extends object>(x: T | GraphError): x is GraphError => 'code' in x && 'status' in x;

export interface GraphOptions {
  checkResponses: boolean;
  onError?: (err: unknown) => void;
}

export function mailboxOf(world: World, person: Person): Mailbox {
  let box = world.mailboxes.get(person.id);
  if (!box) {
    box = createMailbox(world, person.id);
    world.mailboxes.set(person.id, box);
  }
  settleTransport(world, box);
  return box;
}

/** Request ids on every answer, as Graph sends them (request-id, client-request-id echoed, x-ms-ags-diagnostic). */
export const requestIds =
  (getWorld: () => World): RequestHandler =>
  (req, res, next) => {
    const id = guid(getWorld().random);
    const clientRequestId = req.get('client-request-id');
    res.set({
      'request-id': id,
      'client-request-id': clientRequestId && clientRequestId.length <= 100 ? clientRequestId : id,
      'x-ms-ags-diagnostic': JSON.stringify({ ServerInfo: { DataCenter: 'Sandbox', Slice: 'E', Ring: '5', ScaleUnit: '000', RoleInstance: 'SB0000' } }),
      'OData-Version': '4.0',
      'Cache-Control': 'no-cache',
      'Strict-Transport-Security': 'max-age=31536000',
    });
    res.locals.requestId = id;
    next();
  };

function authenticate(world: World, req: Request): { caller: Person; clientId: string; scopes: string[] } | GraphError {
  const header = req.get('authorization');
  if (!header || !/^Bearer\s+\S/i.test(header)) return GE.noToken();
  const token = header.replace(/^Bearer\s+/i, '').trim();
  if (token.split('.').length !== 3) return GE.badToken();
  const grant = world.identity.access.get(token);
  if (!grant) return GE.unknownToken();
  if (grant.expiresAt <= world.clock.now()) return GE.expiredToken();
  const caller = world.people.get(grant.userId);
  // An access token outlives a password change or a disabled account until it expires — Graph does not re-check
  // ("access tokens can't be revoked… remain valid until they expire", access-tokens#token-lifetime).
  if (!caller) return GE.unknownToken();
  return { caller, clientId: grant.clientId, scopes: grant.scopes };
}

export function graphRoute(getWorld: () => World, options: GraphOptions, operation: string, needs: readonly string[], handler: Handler): RequestHandler {
  return async (req, res) => {
    const world = getWorld();
    res.locals.operation = operation;
    const now = () => world.clock.now();
    const auth = authenticate(world, req);
    if (isError(auth)) return sendGraphError(res, auth, now());
    res.locals.client = auth.clientId;
    const userParam = req.params.user as string | undefined;
    const owner = userParam === undefined ? auth.caller : findPerson(world, decodeURIComponent(userParam));
    if (!owner) return sendGraphError(res, GE.userNotFound(String(userParam)), now());
    res.locals.user = owner.userPrincipalName;
    // What was received, not what a header claims: a chunked upload names no Content-Length and still counts.
    const received = (req as { rawBodyBytes?: number }).rawBodyBytes ?? Number(req.get('content-length') ?? 0);
    const bodyBytes = ['POST', 'PATCH', 'PUT'].includes(req.method) ? received || 0 : 0;
    const admitted = admit(world, auth.clientId, owner.id, bodyBytes);
    if (isError(admitted)) return sendGraphError(res, admitted, now());
    // The slot is the mailbox's while the request is processed — a client that gives up does not end that: the
    // server goes on with what it received (the apply-then-fail point of faults.ts), so an abandoned request still
    // holds one of the four (learn.microsoft.com/graph/throttling-limits#outlook-service-limits: "4 concurrent
    // requests" per app and mailbox). Released when processing ends, not when the connection closes.
    const processAdmitted = async () => {
      const rule = drawFault(world, operation, req.method, `${req.baseUrl}${req.path}`.replace(/^\/v1\.0/, ''));
      if (rule) {
        res.locals.fault = rule.id;
        if (rule.latency_ms) await new Promise((r) => setTimeout(r, rule.latency_ms));
        if (!rule.apply_first) {
          if (rule.drop) return void req.socket.destroy();
          const e = faultError(rule);
          if (e) return sendGraphError(res, e, now());
        }
      }
      // Delegated access reaches only the signed-in user's own mailbox here (shared calendars are not emulated).
      if (owner.id !== auth.caller.id || !needs.some((s) => auth.scopes.includes(s)))
        if (needs.length > 0) return sendGraphError(res, GE.accessDenied(), now());
      const prefs = preferences(req.get('prefer'));
      const ctx: GraphCtx = {
        world,
        req,
        res,
        caller: auth.caller,
        clientId: auth.clientId,
        scopes: auth.scopes,
        owner,
        box: mailboxOf(world, owner),
        prefs,
        applied: [],
        baseUrl: baseUrlOf(req),
        immutableIds: prefs.get('idtype')?.toLowerCase() === 'immutableid',
      };
      if (ctx.immutableIds) ctx.applied.push('IdType="ImmutableId"');
      let answer: Answer | GraphError;
      try {
        answer = await handler(ctx);
      } catch (err) {
        options.onError?.(err);
        return sendGraphError(res, { status: 500, code: 'generalException', message: 'General Exception While Processing' }, now());
      }
      if (rule?.apply_first) {
        if (rule.drop) return void req.socket.destroy();
        const e = faultError(rule);
        if (e) return sendGraphError(res, e, now());
      }
      if (res.headersSent) return;
      if (isError(answer)) return sendGraphError(res, answer, now());
      if (ctx.applied.length) res.set('Preference-Applied', ctx.applied.join(', '));
      if (answer.headers) res.set(answer.headers);
      if (options.checkResponses && answer.type && answer.body !== undefined) {
        const schema = loadGraphSchema();
        const collection = /^Collection\((.+)\)$/.exec(answer.type);
        const problems = collection ? checkValue(schema, answer.type, (answer.body as { value: unknown }).value) : checkValue(schema, answer.type, answer.body);
        if (problems.length) world.violations.push({ operation, problems });
      }
      if (answer.body === undefined) return void res.status(answer.status).end();
      res
        .status(answer.status)
        .type('application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8')
        .send(JSON.stringify(answer.body));
    };
    try {
      await processAdmitted();
    } finally {
      admitted.release();
    }
  };
}
