import { z } from 'zod';
import { type GraphError, graphError } from './graph/errors';
import type { World } from './world';

/**
 * Fault injection: chosen Graph requests fail the way Graph fails — a status with Graph's error body and
 * Retry-After, added latency, a dropped connection — every time, N times, or with a probability drawn from the
 * seeded random source.
 *
 * `apply_first`: the operation runs and its effects stay, then the answer is replaced by the fault. A 504 is
 * Graph's gateway saying it "did not receive a timely response from the upstream server" (learn.microsoft.com/
 * graph/errors): it says nothing about whether the mailbox applied the write, and neither does a connection lost
 * after the request was written. Identity-platform endpoints take no faults.
 */

export const PRESETS = {
  /** 429 from the Outlook limits (throttle.ts words it the same way). */
  mailboxConcurrency: () => graphError(429, 'ApplicationThrottled', 'Application is over its MailboxConcurrency limit.'),
  /** 503: "The service is temporarily unavailable for maintenance or is overloaded" (graph/errors, serviceNotAvailable), with Retry-After (graph/throttling). */
  serviceUnavailable: () =>
    graphError(
      503,
      'serviceNotAvailable',
      'The service is temporarily unavailable for maintenance or is overloaded. You may repeat the request after a delay, which may be specified in a Retry-After header.',
    ),
  /** 504: the gateway gave up on the mailbox server; reported with an empty UnknownError body. */
  gatewayTimeout: () => graphError(504, 'UnknownError', ''),
  internalError: () => graphError(500, 'ErrorInternalServerError', 'An internal server error occurred. The operation failed.'),
  tokenExpired: () => graphError(401, 'InvalidAuthenticationToken', 'Lifetime validation failed, the token is expired.'),
  accessDenied: () => graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.'),
  itemNotFound: () => graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.'),
  conflict: () =>
    graphError(
      412,
      'ErrorIrresolvableConflict',
      'The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.',
    ),
} as const satisfies Record<string, () => GraphError>;

/**
 * Retry-After (seconds) a preset carries unless the rule says otherwise: no value is documented, reports show small
 * ones. Graph documents Retry-After for 429 and 503 (learn.microsoft.com/graph/throttling: "…may include a
 * Retry-After header"; graph/errors: 503 "…may be specified in a Retry-After header") and not for 504, a gateway that
 * gave up waiting: a 504 carries none, so a client must choose its own wait.
 */
const DEFAULT_RETRY_AFTER: Partial<Record<keyof typeof PRESETS, number>> = { mailboxConcurrency: 2, serviceUnavailable: 10 };

export const faultSpecSchema = z
  .strictObject({
    /** An operation name (`events.create`, `mail.send`…; the README lists them). */
    operation: z.string().min(1).optional(),
    method: z.string().toUpperCase().optional(),
    /** Path glob under /v1.0: `*` within a segment, `**` across segments. */
    path: z.string().startsWith('/').optional(),
    preset: z.enum(Object.keys(PRESETS) as [keyof typeof PRESETS, ...(keyof typeof PRESETS)[]]).optional(),
    status: z.number().int().min(400).max(599).optional(),
    code: z.string().min(1).optional(),
    message: z.string().optional(),
    retry_after_s: z.number().int().min(0).max(86_400).optional(),
    latency_ms: z.number().int().min(0).max(120_000).optional(),
    drop: z.boolean().optional(),
    apply_first: z.boolean().optional(),
    times: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).optional(),
  })
  .refine((f) => f.operation || f.path, { message: 'give operation or path' })
  .refine((f) => f.preset || f.status || f.latency_ms !== undefined || f.drop, { message: 'give preset, status, latency_ms or drop' })
  .refine((f) => !(f.preset && f.status), { message: 'give preset or status, not both' })
  .refine((f) => !f.apply_first || f.preset || f.status || f.drop, { message: 'apply_first needs preset, status or drop' });

export type FaultSpec = z.infer<typeof faultSpecSchema>;
export interface FaultRule extends FaultSpec {
  id: string;
  hits: number;
  pattern: RegExp | undefined;
}
export interface FaultState {
  rules: FaultRule[];
}
export const createFaultState = (): FaultState => ({ rules: [] });

function glob(path: string): RegExp {
  const source = path
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

export function addFault(world: World, spec: FaultSpec): FaultRule {
  const rule: FaultRule = { ...spec, id: `fault-${world.random.hex(8)}`, hits: 0, pattern: spec.path ? glob(spec.path) : undefined };
  world.faults.rules.push(rule);
  return rule;
}

export const describeFault = ({ pattern: _pattern, ...rule }: FaultRule) => rule;

/** The first live rule for this request, drawn (and counted) now; undefined when none fires. */
export function drawFault(world: World, operation: string, method: string, path: string): FaultRule | undefined {
  const rule = world.faults.rules.find(
    (r) =>
      (r.times === undefined || r.hits < r.times) &&
      (!r.method || r.method === method) &&
      (!r.operation || r.operation === operation) &&
      (!r.pattern || r.pattern.test(path)),
  );
  if (!rule || (rule.probability !== undefined && world.random.next() >= rule.probability)) return undefined;
  rule.hits++;
  return rule;
}

/** The error a fired rule answers with (undefined: latency only). */
export function faultError(rule: FaultRule): GraphError | undefined {
  const base = rule.preset
    ? PRESETS[rule.preset]()
    : rule.status
      ? graphError(rule.status, rule.code ?? 'UnknownError', rule.message ?? 'Injected fault.')
      : undefined;
  if (!base) return undefined;
  const retry = rule.retry_after_s ?? (rule.preset ? DEFAULT_RETRY_AFTER[rule.preset] : undefined);
  return retry === undefined ? base : { ...base, headers: { ...base.headers, 'Retry-After': String(retry) } };
}
