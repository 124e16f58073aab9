import type { z } from 'zod';
import { type HubError, hubError } from './errors';

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

/** An answer lists at most this many issues: enough to fix a request, and bounded however broken it is. */
export const MAX_ISSUES = 20;
/** Paths and messages are cut to this length: a field name is the caller's own text and can be huge. */
const MAX_ISSUE_TEXT = 200;

const bounded = (text: string) => (text.length <= MAX_ISSUE_TEXT ? text : `${text.slice(0, MAX_ISSUE_TEXT)}…`);

/**
 * Options for every safeParse of caller input. zod words each issue as it builds the error, and its default
 * message for unknown keys joins every key: 30,000 unknown keys cost ~4 ms of CPU for a sentence no answer uses
 * (toIssues reports one `unknown field` per key, the first MAX_ISSUES of them).
 */
export const PARSE_OPTIONS = { error: (issue: { code?: string }) => (issue.code === 'unrecognized_keys' ? 'unknown fields' : undefined) };

/** The issues to report, the first MAX_ISSUES of them (`truncated` when there were more). */
export interface IssueList {
  issues: ValidationIssue[];
  truncated: boolean;
}

/**
 * zod's issues as the contract reports them, one per unknown key. Stops at MAX_ISSUES, so 125,000 unknown
 * keys cost no more to answer than 21.
 */
export function toIssues(error: z.ZodError, prefix = ''): IssueList {
  const issues: ValidationIssue[] = [];
  const entry = (path: readonly PropertyKey[], message: string): ValidationIssue => ({
    path: bounded(
      formatPath(
        path.map((p) => (typeof p === 'string' ? bounded(p) : p)),
        prefix,
      ),
    ),
    message: bounded(message),
  });
  for (const issue of error.issues) {
    const unknownKeys: readonly (string | undefined)[] = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    for (const key of unknownKeys) {
      if (issues.length === MAX_ISSUES) return { issues, truncated: true };
      issues.push(key === undefined ? entry(issue.path, issue.message) : entry([...issue.path, key], 'unknown field'));
    }
  }
  return { issues, truncated: false };
}

export function validationError(message: string, list: ValidationIssue[] | IssueList): HubError {
  const { issues, truncated } = Array.isArray(list) ? { issues: list, truncated: false } : list;
  return hubError('VALIDATION_ERROR', message, { details: truncated ? { issues, truncated: true } : { issues } });
}

/** A tool's inputs are wrong: from its schema at the edge, or found by the tool itself (paths start `inputs.`). */
export const invalidInputs = (tool: string, issues: ValidationIssue[] | IssueList): HubError => validationError(`Invalid inputs for ${tool}`, issues);

/**
 * A route's path parameters and query string, checked together so one answer lists every problem: the parsed
 * values, or the VALIDATION_ERROR to send (query issues are prefixed `query.`).
 */
export function parseParamsAndQuery<P extends z.ZodType, Q extends z.ZodType>(
  schemas: { params: P; query: Q },
  req: { params: unknown; query: unknown },
  message: string,
): { ok: true; params: z.output<P>; query: z.output<Q> } | { ok: false; error: HubError } {
  const p = schemas.params.safeParse(req.params, PARSE_OPTIONS);
  const q = schemas.query.safeParse(req.query, PARSE_OPTIONS);
  if (p.success && q.success) return { ok: true, params: p.data, query: q.data };
  const pIssues = p.success ? { issues: [], truncated: false } : toIssues(p.error);
  const qIssues = q.success ? { issues: [], truncated: false } : toIssues(q.error, 'query');
  const issues = [...pIssues.issues, ...qIssues.issues];
  const truncated = pIssues.truncated || qIssues.truncated || issues.length > MAX_ISSUES;
  return { ok: false, error: validationError(message, { issues: issues.slice(0, MAX_ISSUES), truncated }) };
}
