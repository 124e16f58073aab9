import { z } from 'zod';
import { type Result, fail, ok } from '../../core/errors';
import { googleScope } from '../../integrations/integrations';
import { defineTool } from '../types';
import { callGmail, checkExtraScopes, notFoundAs } from './gmail';
import { messageRefSchema, messageSchema } from './gmail-schemas';
import { inputId } from './inputs';
import { bodyDegradedField, dateField, messageFields, toDetail, truncatedField } from './map';
import { messageBody } from './message-body';

const SCOPES = [googleScope('gmail.readonly')];
/** messages.modify accepts nothing narrower. */
const MARK_SCOPES = [googleScope('gmail.modify')];

const input = z.strictObject({
  message_id: inputId('message'),
  mark_as_read: z.boolean().default(false).describe('Also mark the message as read in Gmail (default false).'),
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
      attachment_id: z.string().describe("Gmail's id for downloading this attachment."),
    }),
  ),
  truncated: truncatedField,
  body_degraded: bodyDegradedField,
});
type Output = z.output<typeof output>;

export const emailRead = defineTool({
  name: 'email_read',
  version: '1.1.0',
  description:
    'Read one email from the connected Gmail mailbox by its message id (from email_search): sender, recipients, subject, date, ' +
    'the full text body (HTML-only mail converted to text) and the list of attachments. Set mark_as_read to mark it read in Gmail, ' +
    'as opening it in Gmail would.',
  integration: 'google_gmail',
  requiredScopes: SCOPES,
  // The one change it can make (clearing UNREAD) is idempotent at Gmail and is what opening the mail does; treating
  // the call as a write would keep whole message bodies in the idempotency store for a day to replay them.
  sideEffects: 'reads',
  changesWhen: (v) => v.mark_as_read === true,
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    if (v.mark_as_read) {
      // Before reading anything, so a call that cannot do all it was asked does nothing.
      const denied = checkExtraScopes(ctx, SCOPES, MARK_SCOPES, 'to mark messages as read');
      if (denied) return fail(denied);
    }
    const got = await callGmail(ctx, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
      api.users.messages.get({ userId: 'me', id: v.message_id, format: 'full' }, options),
    );
    if (!got.ok) return fail(notFoundAs(got.error, 'message', v.message_id));
    const body = await messageBody(ctx, got.value);
    if (!body.ok) return body;
    // One modify, and only when there is something to change.
    if (v.mark_as_read && (got.value.labelIds ?? []).includes('UNREAD')) {
      const marked = await callGmail(ctx, { operation: 'gmail.users.messages.modify', idempotent: true }, messageRefSchema, (api, options) =>
        api.users.messages.modify({ userId: 'me', id: got.value.id, requestBody: { removeLabelIds: ['UNREAD'] } }, options),
      );
      if (!marked.ok) return fail(notFoundAs(marked.error, 'message', v.message_id));
    }
    const detail = toDetail(got.value);
    return ok({ ...detail, ...body.value });
  },
});
