import { checkValue, loadGraphSchema } from '../csdl/schema';
import type { GraphCtx } from './context';
import { GE, type GraphError } from './errors';

/**
 * The body of a bound action (sendMail, createReply, move, accept, getSchedule…) against the action's parameters
 * in the CSDL: names match case-insensitively (the CSDL says `Message`, the docs write `message`), an unknown one
 * is refused as OData refuses it, and a primitive parameter must have its Edm type. Complex parameters (a
 * message) are read by their handler, which checks them property by property.
 */
export function checkActionBody(ctx: GraphCtx, action: string, bindingType: string): GraphError | undefined {
  const schema = loadGraphSchema();
  const overload = schema.operations.get(action)?.find((o) => o.parameters.get('bindingParameter')?.replace(/^graph\./, '') === bindingType);
  if (!overload) return undefined;
  const body = ctx.req.body as unknown;
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) return GE.badRequest('Empty Payload. JSON content expected.');
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const param = [...overload.parameters].find(([name]) => name !== 'bindingParameter' && name.toLowerCase() === key.toLowerCase());
    if (!param) return GE.badRequest(`The parameter '${key}' in the request payload is not a valid parameter for the operation '${action}'.`);
    // An integer may come as a string of digits: the free/busy concept page's own example sends
    // "availabilityViewInterval": "15".
    const digits = /^Edm\.Int(16|32|64)$/.test(param[1]) && typeof value === 'string' && /^\d+$/.test(value);
    if (param[1].startsWith('Edm.') && value !== null && !digits && checkValue(schema, param[1], value).length > 0)
      return GE.badRequest(`Cannot convert the literal '${String(value)}' to the expected type '${param[1]}'.`);
  }
  return undefined;
}

/** A parameter of an action body, its name matched case-insensitively. */
export function actionParam(body: unknown, name: string): unknown {
  if (!body || typeof body !== 'object') return undefined;
  return Object.entries(body as Record<string, unknown>).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}
