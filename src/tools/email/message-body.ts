import { type Result, ok } from '../../errors';
import type { ToolContext } from '../types';
import { bodySource, charsetOf, decodeCharset, partText, truncate } from './body';
import { attachmentBodySchema, type GmailMessage } from './gmail-schemas';
import { callGmail } from './gmail';
import { htmlToText } from './html-text';

export interface MessageBody {
  body: string;
  /** Only present (true) when the body was cut to HUB_MAX_BODY_CHARS. */
  truncated?: true;
}

/** HTML beyond this many characters is cut before conversion, so a huge message cannot pin the CPU. */
const htmlInputLimit = (maxChars: number) => Math.max(1_000_000, maxChars * 10);

/**
 * A message's text body (see bodySource: text/plain, else text derived from text/html), cut to the configured
 * maximum. Gmail inlines text parts in format=full; one served by attachment id instead costs one more request.
 */
export async function messageBody(ctx: ToolContext, message: GmailMessage): Promise<Result<MessageBody>> {
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
  const max = ctx.settings.maxBodyChars;
  let cutEarly = false;
  if (source.kind === 'html' && content.length > htmlInputLimit(max)) {
    content = content.slice(0, htmlInputLimit(max));
    cutEarly = true;
  }
  const cut = truncate(source.kind === 'html' ? htmlToText(content) : content.trim(), max);
  return ok(cut.truncated || cutEarly ? { body: cut.text, truncated: true } : { body: cut.text });
}
