import type { z } from 'zod';
import { type HubError, hubError } from '../errors';

export interface ValidationIssue {
  path: string;
  message: string;
}

/** `inputs.attendees[2]`: how a person (or an LLM) would point at the field. */
export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? '(root)' : out;
}

export function toIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key], prefix), message: 'unknown field' }))
      : [{ path: formatPath(issue.path, prefix), message: issue.message }],
  );
}

export function validationError(message: string, issues: ValidationIssue[]): HubError {
  return hubError('VALIDATION_ERROR', message, { details: { issues } });
}

/** A tool's inputs are wrong: from its schema at the edge, or found by the tool itself (paths start `inputs.`). */
export const invalidInputs = (tool: string, issues: ValidationIssue[]): HubError => validationError(`Invalid inputs for ${tool}`, issues);

/**
 * A route's path parameters and query string, checked together so one answer lists every problem: the parsed
 * values, or the VALIDATION_ERROR to send (query issues are prefixed `query.`).
 */
export function parseParamsAndQuery<P extends z.ZodType, Q extends z.ZodType>(
  schemas: { params: P; query: Q },
  req: { params: unknown; query: unknown },
  message: string,
): { ok: true; params: z.output<P>; query: z.output<Q> } | { ok: false; error: HubError } {
  const p = schemas.params.safeParse(req.params);
  const q = schemas.query.safeParse(req.query);
  if (p.success && q.success) return { ok: true, params: p.data, query: q.data };
  const issues = [...(p.success ? [] : toIssues(p.error)), ...(q.success ? [] : toIssues(q.error, 'query'))];
  return { ok: false, error: validationError(message, issues) };
}
