import type { ValidationIssue } from '../../core/validation';
import { offsetDateTimeMs } from './time';

/**
 * The contract's event fields in Google's event shape (title → summary, attendees → [{email}], times as
 * dateTime with their offset), shared by create and update so both write the same thing the same way.
 */

export interface EventFieldsInput {
  title?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
  description?: string | undefined;
  location?: string | undefined;
  attendees?: string[] | undefined;
}

export interface GoogleEventBody {
  summary?: string;
  start?: { dateTime: string };
  end?: { dateTime: string };
  description?: string;
  location?: string;
  attendees?: { email: string }[];
}

export function toGoogleEventBody(fields: EventFieldsInput): GoogleEventBody {
  const body: GoogleEventBody = {};
  if (fields.title !== undefined) body.summary = fields.title;
  if (fields.start !== undefined) body.start = { dateTime: fields.start };
  if (fields.end !== undefined) body.end = { dateTime: fields.end };
  if (fields.description !== undefined) body.description = fields.description;
  if (fields.location !== undefined) body.location = fields.location;
  if (fields.attendees !== undefined) body.attendees = fields.attendees.map((email) => ({ email }));
  return body;
}

/** end ≤ start is refused before Google sees it (Google itself accepts a zero-length event). */
export function checkTimes(start: string | undefined, end: string | undefined, endPath: string): ValidationIssue[] {
  if (start === undefined || end === undefined) return [];
  const s = offsetDateTimeMs(start);
  const e = offsetDateTimeMs(end);
  return s !== undefined && e !== undefined && e <= s ? [{ path: endPath, message: 'must be after start' }] : [];
}
