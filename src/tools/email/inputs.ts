import { z } from 'zod';
import { headerValueProblem, parseRecipient } from './addresses';

/** Input pieces the email tools share. Limits keep one call's work and Gmail's header lines bounded. */

export const MAX_RECIPIENTS = 100;
export const MAX_SUBJECT_CHARS = 500;
/** Well under the Hub's 1 MiB request body limit once JSON-escaped. */
export const MAX_BODY_CHARS_IN = 500_000;

/** One recipient; checked here so every bad entry is reported with its own path (`inputs.to[1]`). */
export const recipient = z
  .string()
  .max(320)
  .superRefine((value, issue) => {
    const parsed = parseRecipient(value);
    if (!parsed.ok) issue.addIssue({ code: 'custom', message: parsed.message });
  });

/** A value that ends up in a header (the subject): no CR/LF, no other control characters. */
export const headerText = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((value, issue) => {
      const problem = headerValueProblem(value);
      if (problem) issue.addIssue({ code: 'custom', message: problem });
    });

/** Gmail message and thread ids: the shared id alphabets (src/tools/ids.ts). */
export { mailIdInput as inputId } from '../ids';
