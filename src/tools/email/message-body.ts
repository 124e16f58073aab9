import { type Result, ok } from '../../core/errors';
import type { ToolContext } from '../types';
import { bodySource, charsetOf, decodeCharset, partText, truncate } from './body';
import { attachmentBodySchema, type GmailMessage } from './gmail-schemas';
import { callGmail } from './gmail';

export interface MessageBody {
  body: string;
  /** Only present (true) when the body was cut to HUB_MAX_BODY_CHARS (or its HTML to the conversion's input limit). */
  truncated?: true;
  /** Only present (true) when an HTML body is its tag-stripped text: it could not be laid out in time, or nests too deeply. */
  body_degraded?: true;
}

/**
 * A message's text body (see bodySource: text/plain, else text derived from text/html), cut to the configured
 * maximum. Gmail inlines text parts in format=full; one served by attachment id instead costs one more request.
 * `signal`: the caller no longer needs the body (a search whose answer is already decided).
 */
export async function messageBody(ctx: ToolContext, message: GmailMessage, signal?: AbortSignal): Promise<Result<MessageBody>> {
  const source = bodySource(message.payload);
  if (!source) return ok({ body: '' });
  let content = partText(source.part);
  if (content === undefined) {
    const attachmentId = source.part.body?.attachmentId ?? '';
    const fetched = await callGmail(ctx, { operation: 'gmail.users.messages.attachments.get', idempotent: true }, attachmentBodySchema, (api, options) =>
      api.users.messages.attachments.get({ userId: 'me', messageId: message.id, id: attachmentId }, options),
    );
    if (!fetched.ok) return fetched;
    content = decodeCharset(Buffer.from(fetched.value.data ?? '', 'base64url'), charsetOf(source.part)).replace(/\r\n/g, '\n');
  }
  const maxChars = ctx.settings.maxBodyChars;
  if (source.kind === 'plain') {
    const cut = truncate(content.trim(), maxChars);
    return ok(cut.truncated ? { body: cut.text, truncated: true } : { body: cut.text });
  }
  const html = await ctx.htmlToText(content, { maxChars, ...(signal ? { signal } : {}) });
  return ok({ body: html.text, ...(html.truncated ? { truncated: true as const } : {}), ...(html.degraded ? { body_degraded: true as const } : {}) });
}
