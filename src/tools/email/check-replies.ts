import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import type { Permission } from '../../core/capabilities';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { inputId } from './inputs';
import { dateField, messageFields } from './result-fields';

/** threads.get(format=metadata) and getProfile both accept gmail.metadata: no message content is read. */
const PERMISSIONS: readonly Permission[] = ['mail.metadata'];

const ISO_INSTANT = z.iso.datetime({ offset: true });

const input = z.strictObject({
  thread_id: inputId('thread'),
  // Checked with zod's ISO parser but declared as a plain string: a `format: date-time` keyword in the catalog
  // trips strict JSON Schema validators that load no format plug-ins.
  since: z
    .string()
    .max(64)
    .refine((s) => ISO_INSTANT.safeParse(s).success, 'must be an ISO 8601 date-time with Z or an offset, e.g. 2024-01-10T09:30:00Z')
    .describe('ISO 8601 date-time with Z or an offset, e.g. "2024-01-10T09:30:00Z": only messages received after it count.'),
  provider: providerInput.optional(),
});

const output = z.object({
  has_new_replies: z.boolean(),
  replies: z.array(
    z.object({
      message_id: messageFields.message_id,
      from: messageFields.from,
      snippet: z.string(),
      date: dateField,
    }),
  ),
});
type Output = z.output<typeof output>;

export const emailCheckReplies = defineTool({
  name: 'email_check_replies',
  version: '1.1.0',
  description:
    'Check an email conversation (Gmail or Outlook) for replies: given its thread_id (from email_send or email_search) and a time, returns the messages ' +
    'in that thread received after it that were not sent by the connected account itself, oldest first. Use it to follow up on an ' +
    'email you sent: pass the send time, or the date of the last reply you already saw.',
  capability: 'mail',
  permissions: PERMISSIONS,
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const thread = await ctx.mail.thread(v.thread_id);
    if (!thread.ok) return thread;
    const sinceMs = Date.parse(v.since);
    const replies = thread.value
      .filter((m) => !m.fromAccount && Date.parse(m.date) > sinceMs)
      .map((m) => ({ message_id: m.message_id, from: m.from, snippet: m.snippet, date: m.date }));
    return ok({ has_new_replies: replies.length > 0, replies });
  },
});
