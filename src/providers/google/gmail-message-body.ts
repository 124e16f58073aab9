import { type Result, ok } from '../../core/errors';
import type { MessageBody } from '../../core/mail';
import { bodySource, charsetOf, decodeCharset, partText, truncate } from './gmail-body';
import { attachmentBodySchema, type GmailMessage } from './gmail-schemas';
import { type GoogleMailDeps, callGmail } from './gmail-request';

/**
 * A message's text body (see bodySource: text/plain, else text derived from text/html), cut to the configured
 * maximum. Gmail inlines text parts in format=full; one served by attachment id instead costs one more request.
 * `signal`: the caller no longer needs the body (a search whose answer is already decided).
 */
export async function messageBody(deps: GoogleMailDeps, message: GmailMessage, signal?: AbortSignal): Promise<Result<MessageBody>> {
  const source = bodySource(message.payload);
  if (!source) return ok({ body: '' });
  let content = partText(source.part);
  if (content === undefined) {
    const attachmentId = source.part.body?.attachmentId ?? '';
    const fetched = await callGmail(deps, { operation: 'gmail.users.messages.attachments.get', idempotent: true }, attachmentBodySchema, (api, options) =>
      api.users.messages.attachments.get({ userId: 'me', messageId: message.id, id: attachmentId }, options),
    );
    if (!fetched.ok) return fetched;
    content = decodeCharset(Buffer.from(fetched.value.data ?? '', 'base64url'), charsetOf(source.part)).replace(/\r\n/g, '\n');
  }
  const maxChars = deps.maxBodyChars;
  if (source.kind === 'plain') {
    const cut = truncate(content.trim(), maxChars);
    return ok(cut.truncated ? { body: cut.text, truncated: true } : { body: cut.text });
  }
  const html = await deps.htmlToText(content, { maxChars, ...(signal ? { signal } : {}) });
  return ok({ body: html.text, ...(html.truncated ? { truncated: true as const } : {}), ...(html.degraded ? { body_degraded: true as const } : {}) });
}
