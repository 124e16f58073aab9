import { z } from 'zod';
import { type Result, fail, ok } from '../../core/errors';
import type { Permission } from '../../core/capabilities';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { checkExtraScopes } from './extra-scopes';
import { inputId } from './inputs';
import { bodyDegradedField, dateField, messageFields, truncatedField } from './result-fields';

const PERMISSIONS: readonly Permission[] = ['mail.read'];
/** messages.modify accepts nothing narrower. */
const MARK_PERMISSIONS: readonly Permission[] = ['mail.modify'];

const input = z.strictObject({
  message_id: inputId('message'),
  mark_as_read: z.boolean().default(false).describe('Also mark the message as read in the mailbox (default false).'),
  provider: providerInput.optional(),
});

const output = z.object({
  ...messageFields,
  body: z.string().describe('The text/plain body, or text derived from the HTML body when there is no plain one.'),
  date: dateField,
  attachments: z.array(
    z.object({
      filename: z.string(),
      size: z.number().int().describe('Bytes.'),
      mime_type: z.string(),
      attachment_id: z.string().describe("The provider's id of this attachment."),
    }),
  ),
  truncated: truncatedField,
  body_degraded: bodyDegradedField,
});
type Output = z.output<typeof output>;

export const emailRead = defineTool({
  name: 'email_read',
  version: '1.2.0',
  description:
    'Read one email from the connected mailbox (Gmail or Outlook) by its message id (from email_search): sender, recipients, subject, date, ' +
    'the full text body (HTML-only mail converted to text) and the list of attachments. Set mark_as_read to mark it read, ' +
    'as opening it would.',
  capability: 'mail',
  permissions: PERMISSIONS,
  // The one change it can make (clearing UNREAD) is idempotent at Gmail and is what opening the mail does; treating
  // the call as a write would keep whole message bodies in the idempotency store for a day to replay them.
  sideEffects: 'reads',
  changesWhen: (v) => v.mark_as_read === true,
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    if (v.mark_as_read) {
      // Before reading anything, so a call that cannot do all it was asked does nothing.
      const denied = checkExtraScopes(ctx, PERMISSIONS, MARK_PERMISSIONS, 'to mark messages as read');
      if (denied) return fail(denied);
    }
    const got = await ctx.mail.getMessage(v.message_id);
    if (!got.ok) return got;
    const { unread, ...message } = got.value;
    // One change, and only when there is something to change.
    if (v.mark_as_read && unread) {
      const marked = await ctx.mail.markRead(message.message_id);
      if (!marked.ok) return fail(marked.error);
    }
    return ok(message);
  },
});
