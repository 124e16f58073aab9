import { z } from 'zod';
import { PRINTABLE } from '../printable';

/** Echoed in the X-Request-Id header, so it must be header-safe: 1–128 visible ASCII characters. */
const REQUEST_ID = /^[\x21-\x7E]{1,128}$/;
const printable = (max: number) => z.string().min(1).max(max).regex(PRINTABLE, 'must not contain control characters');

/** An end user's id within the customer's own system. */
export const userIdSchema = printable(255);

/** The body of POST /api/internal/tools/execute/, per the contract. Unknown fields are refused, not ignored. */
// The descriptions are openapi.yaml's (src/codegen/openapi-tools.ts generates the request's fields from this schema).
export const executeRequestSchema = z.strictObject({
  tool: z.string().min(1).max(100),
  agent_id: z.guid('must be a UUID').describe('The calling agent instance (any 8-4-4-4-12 hex form; normalised to lower case).'),
  customer_id: z.guid('must be a UUID').describe('The customer whose connection (credentials) the tool uses.'),
  user_id: userIdSchema
    .nullable()
    .optional()
    .describe("The end user within the customer's system: their own connection takes precedence over the customer-wide one."),
  // Checked as a plain JSON object here (not copied key by key); the tool's own schema validates its content.
  inputs: z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be a JSON object'),
  context: z
    .strictObject({
      conversation_id: printable(255).nullable().optional().describe('The conversation the call belongs to (logged, and counted by conversation budgets).'),
      request_id: z
        .string()
        .regex(REQUEST_ID, 'must be 1-128 visible ASCII characters')
        .nullable()
        .optional()
        .describe('Echoed as `metadata.request_id` and `X-Request-Id`; for a write, its idempotency key: a retry with the same one runs at most once.'),
    })
    .nullable()
    .optional()
    .describe('Optional context of the call.'),
});

export const isValidRequestId = (value: unknown): value is string => typeof value === 'string' && REQUEST_ID.test(value);

/** The tool name to put in an error envelope when the body could not be fully read. */
export function readableToolName(body: unknown): string | null {
  const tool = (body as { tool?: unknown } | null | undefined)?.tool;
  return typeof tool === 'string' && tool.length > 0 && tool.length <= 100 ? tool : null;
}

/** context.request_id when it is usable, even if something else in the body is not. */
export function readableRequestId(body: unknown): string | undefined {
  const context = (body as { context?: unknown } | null | undefined)?.context;
  const id = (context as { request_id?: unknown } | null | undefined)?.request_id;
  return isValidRequestId(id) ? id : undefined;
}

/** user_id when it is usable (for the access line of a call refused before the full parse). */
export function readableUserId(body: unknown): string | null {
  const id = (body as { user_id?: unknown } | null | undefined)?.user_id;
  return typeof id === 'string' && userIdSchema.safeParse(id).success ? id : null;
}

/** What the rate limits are charged to, read before the full parse. */
export interface ChargeKey {
  customerId: string;
  agentId: string;
  tool: string;
}

/**
 * The caller and the tool, read from three fields with the schema's own checks and nothing else — a bounded
 * cost whatever else the body holds — so a request is charged to its limits before its body is validated in
 * full (a body of 125,000 unknown keys is then limited like any other call). Undefined when they cannot be read.
 */
export function readChargeKey(body: unknown): ChargeKey | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { customer_id: customerId, agent_id: agentId, tool } = body as Record<string, unknown>;
  const fields = executeRequestSchema.shape;
  if (!fields.tool.safeParse(tool).success || !fields.customer_id.safeParse(customerId).success || !fields.agent_id.safeParse(agentId).success)
    return undefined;
  return { customerId: (customerId as string).toLowerCase(), agentId: (agentId as string).toLowerCase(), tool: tool as string };
}
