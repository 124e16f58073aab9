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
