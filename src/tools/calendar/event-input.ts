import type { ValidationIssue } from '../../core/validation';
import { offsetDateTimeMs } from './time';

/** end ≤ start is refused before Google sees it (Google itself accepts a zero-length event). */
export function checkTimes(start: string | undefined, end: string | undefined, endPath: string): ValidationIssue[] {
  if (start === undefined || end === undefined) return [];
  const s = offsetDateTimeMs(start);
  const e = offsetDateTimeMs(end);
  return s !== undefined && e !== undefined && e <= s ? [{ path: endPath, message: 'must be after start' }] : [];
}
