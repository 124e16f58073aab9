import type { MailPort, ReplyTarget } from '../../core/mail';
import { type HubError, type Result, fail, ok } from '../../core/errors';
import { validationError } from '../../core/validation';
import { replyHeaders } from '../../tools/email/threading';
import { buildRawMessage, toGmailRaw } from './gmail-compose';
import { type GoogleMailDeps, callGmail, notFoundAs, ownAddress } from './gmail-request';
import { toDetail, threadMessages } from './gmail-map';
import { messageBody } from './gmail-message-body';
import { headerOf, messageRefSchema, messageSchema, threadSchema } from './gmail-schemas';
import { searchPage } from './gmail-search';
import { canVerifySends, findSent, withSendToken } from './gmail-sent-lookup';

export type { GoogleMailDeps } from './gmail-request';

/**
 * Gmail (v1) behind the mail port: one adapter per tool call (its deps carry the call's deadline and HTML
 * converter), sharing the per-process facts cache with every other call of the connection. The contract's query
 * is Gmail's own search syntax, passed through.
 */

/** What a Gmail reply needs from its original to thread: its Message-ID chain. */
interface GmailReply {
  inReplyTo: string;
  references: string[];
}

/** Gmail refuses a token it did not issue for this query with 400 "Invalid pageToken": the agent's input is wrong. */
function badToken(error: HubError): HubError {
  const invalid =
    error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 400 && /invalid page ?token/i.test(String(error.details?.message ?? ''));
  if (!invalid) return error;
  return validationError('The page_token is not one Gmail issued for this query', [
    { path: 'inputs.page_token', message: 'unknown or expired page token, or one from a search with a different query' },
  ]);
}

/** The port's recipient as nodemailer takes it (no name: an empty one, as the Hub's own parser gives). */
const mailbox = (m: { name?: string; address: string }) => ({ name: m.name ?? '', address: m.address });

export function createGmail(deps: GoogleMailDeps): MailPort {
  return {
    ownAddress: () => ownAddress(deps),
    async search(query, options, signal) {
      const page = await searchPage(deps, query, options, signal);
      return page.ok || options.pageToken === undefined ? page : fail(badToken(page.error));
    },
    async getMessage(messageId) {
      const got = await callGmail(deps, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
        api.users.messages.get({ userId: 'me', id: messageId, format: 'full' }, options),
      );
      if (!got.ok) return fail(notFoundAs(got.error, 'message', messageId));
      const body = await messageBody(deps, got.value);
      if (!body.ok) return body;
      return ok({ ...toDetail(got.value), unread: (got.value.labelIds ?? []).includes('UNREAD'), ...body.value });
    },
    async markRead(messageId) {
      const marked = await callGmail(deps, { operation: 'gmail.users.messages.modify', idempotent: true }, messageRefSchema, (api, options) =>
        api.users.messages.modify({ userId: 'me', id: messageId, requestBody: { removeLabelIds: ['UNREAD'] } }, options),
      );
      return marked.ok ? ok(undefined) : fail(notFoundAs(marked.error, 'message', messageId));
    },
    async thread(threadId) {
      // Both at once: the address is usually cached, and when it is not it costs no extra round trip.
      const [own, thread] = await Promise.all([
        ownAddress(deps),
        callGmail(deps, { operation: 'gmail.users.threads.get', idempotent: true }, threadSchema, (api, options) =>
          api.users.threads.get({ userId: 'me', id: threadId, format: 'metadata', metadataHeaders: ['From'] }, options),
        ),
      ]);
      if (!thread.ok) return fail(notFoundAs(thread.error, 'thread', threadId));
      if (!own.ok) return own;
      return ok(threadMessages(thread.value.messages ?? [], own.value));
    },
    async prepareReply(messageId): Promise<Result<ReplyTarget>> {
      const original = await callGmail(deps, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
        api.users.messages.get(
          { userId: 'me', id: messageId, format: 'metadata', metadataHeaders: ['Subject', 'Message-ID', 'References', 'In-Reply-To'] },
          options,
        ),
      );
      if (!original.ok) return fail(notFoundAs(original.error, 'message', messageId));
      const header = (name: string) => headerOf(original.value.payload, name);
      const headers = replyHeaders({ messageId: header('message-id'), references: header('references'), inReplyTo: header('in-reply-to') });
      if (!headers) {
        return fail(
          validationError('The message has no Message-ID header, so a reply to it cannot be threaded', [
            { path: 'inputs.reply_to_message_id', message: 'message has no Message-ID header' },
          ]),
        );
      }
      const vendor: GmailReply = { inReplyTo: headers.inReplyTo, references: headers.references };
      return ok({ messageId, threadId: original.value.threadId, subject: header('subject') ?? '', vendor });
    },
    async send(mail, marker, reply) {
      const threading = reply?.vendor as GmailReply | undefined;
      const raw = await buildRawMessage(
        {
          to: mail.to.map(mailbox),
          cc: mail.cc.map(mailbox),
          bcc: mail.bcc.map(mailbox),
          subject: mail.subject,
          body: mail.body,
          bodyType: mail.bodyType,
          inReplyTo: threading?.inReplyTo,
          references: threading?.references,
          messageIdDomain: deps.connection.accountEmail?.split('@')[1] ?? 'hub.invalid',
        },
        deps.htmlToText,
      );
      const requestBody = { raw: toGmailRaw(withSendToken(raw, marker)), ...(reply?.threadId ? { threadId: reply.threadId } : {}) };
      // Not idempotent at Gmail: the resilience layer never repeats it once bytes left; the tool's lookup decides.
      return callGmail(deps, { operation: 'gmail.users.messages.send', idempotent: false }, messageRefSchema, (api, options) =>
        api.users.messages.send({ userId: 'me', requestBody }, options),
      );
    },
    findSent: (markers, sinceMs, maxScan) => findSent(deps, markers, sinceMs, maxScan),
    canVerifySends: () => canVerifySends(deps),
  };
}
