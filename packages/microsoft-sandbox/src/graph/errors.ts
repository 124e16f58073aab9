import type { Response } from 'express';

/**
 * Graph's error body (learn.microsoft.com/graph/errors#error-resource-type): `{ error: { code, message,
 * innerError: { date, request-id, client-request-id } } }` — `date` without fractional seconds, the ids the
 * response headers carry too.
 */
export interface GraphError {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

export const graphError = (status: number, code: string, message: string, headers?: Record<string, string>): GraphError => ({
  status,
  code,
  message,
  ...(headers ? { headers } : {}),
});

export function sendGraphError(res: Response, e: GraphError, nowMs: number) {
  const requestId = String(res.getHeader('request-id') ?? '');
  const clientRequestId = String(res.getHeader('client-request-id') ?? requestId);
  if (e.headers) res.set(e.headers);
  res
    .status(e.status)
    .type('application/json')
    .send(
      JSON.stringify({
        error: {
          code: e.code,
          message: e.message,
          innerError: { date: new Date(nowMs).toISOString().replace(/\.\d+Z$/, ''), 'request-id': requestId, 'client-request-id': clientRequestId },
        },
      }),
    );
}

/** The codes a client meets, worded as Graph words them (errors page; Outlook's Exchange codes as reported). */
export const GE = {
  noToken: () => graphError(401, 'InvalidAuthenticationToken', 'Access token is empty.'),
  badToken: () => graphError(401, 'InvalidAuthenticationToken', 'IDX14100: JWT is not well formed, there are no dots (.).'),
  unknownToken: () => graphError(401, 'InvalidAuthenticationToken', 'Access token validation failure. Invalid audience.'),
  expiredToken: () => graphError(401, 'InvalidAuthenticationToken', 'Lifetime validation failed, the token is expired.'),
  accessDenied: () => graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.'),
  notFound: () => graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.'),
  malformedId: () => graphError(400, 'ErrorInvalidIdMalformed', 'Id is malformed.'),
  conflict: () =>
    graphError(
      412,
      'ErrorIrresolvableConflict',
      'The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.',
    ),
  invalidRequest: (message: string) => graphError(400, 'ErrorInvalidRequest', message),
  badProperty: (name: string, type: string) =>
    graphError(400, 'RequestBroker--ParseUri', `Could not find a property named '${name}' on type 'microsoft.graph.${type}'.`),
  badRequest: (message: string) => graphError(400, 'BadRequest', message),
  userNotFound: (id: string) => graphError(404, 'ErrorInvalidUser', `The requested user '${id}' is invalid.`),
  unsupported: (path: string) => graphError(400, 'BadRequest', `Resource not found for the segment '${path}'.`),
};
