import type { AttachmentInfo, MessageBody, MessageDetail, MessageSummary, ReplyTarget, ThreadMessage } from '../../core/mail';
import { type Result, fail, ok } from '../../core/errors';
import { connectionFactKey } from '../../tools/tool-cache';
import { GRAPH_ID, type MailContext, hasAnyScope, isoUtc, messagePath, notFound, notFoundAs, odataString, unexpectedAnswer } from './mail-context';
import { type GraphMessage, attachmentListSchema, folderSchema, messageListSchema, messageSchema, noContent, userSchema } from './mail-schemas';
import type { WellKnownFolder } from './search-operators';

/**
 * Reading Outlook mail into the port's shapes: addresses bare, dates ISO 8601 UTC (receivedDateTime, Gmail's
 * internalDate's counterpart), bodies as text — a text body as it is, HTML through the Hub's converter (Graph
 * returns every body as HTML unless asked otherwise, message-get "Prefer: outlook.body-content-type"), cut to
 * the configured maximum with the same flags Gmail's bodies carry.
 */

const addressOf = (r: { emailAddress?: { address?: string | null } | null } | null | undefined) => (r?.emailAddress?.address ?? '').trim();

export function toSummary(m: GraphMessage): MessageSummary {
  return {
    message_id: m.id,
    thread_id: m.conversationId ?? '',
    from: addressOf(m.from),
    to: (m.toRecipients ?? []).map(addressOf).filter(Boolean),
    subject: m.subject ?? '',
    snippet: (m.bodyPreview ?? '').replace(/\s+/g, ' ').trim(),
    date: isoUtc(m.receivedDateTime),
    has_attachments: m.hasAttachments === true,
  };
}

/** Cuts text longer than `max` characters, never in the middle of a surrogate pair. */
function cut(text: string, max: number): MessageBody {
  if (text.length <= max) return { body: text };
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return { body: text.slice(0, end), truncated: true };
}

/** `signal`: the answer no longer needs this body (a search already decided), so its conversion may stop. */
export async function bodyOf(ctx: MailContext, m: GraphMessage, signal?: AbortSignal): Promise<MessageBody> {
  const content = m.body?.content ?? '';
  if ((m.body?.contentType ?? '').toLowerCase() === 'text') return cut(content.replace(/\r\n/g, '\n').trim(), ctx.maxBodyChars);
  if (!content) return { body: '' };
  const html = await ctx.htmlToText(content, { maxChars: ctx.maxBodyChars, ...(signal ? { signal } : {}) });
  return { body: html.text, ...(html.truncated ? { truncated: true as const } : {}), ...(html.degraded ? { body_degraded: true as const } : {}) };
}

const DETAIL_FIELDS = 'id,conversationId,subject,receivedDateTime,isRead,from,toRecipients,body,hasAttachments';

/**
 * Every attachment Graph lists, inline ones included when they have a name — Gmail's adapter lists every part
 * with a filename, inline images too. Graph's listing is read with `$select` so no file's bytes travel.
 */
async function attachmentsOf(ctx: MailContext, id: string): Promise<Result<AttachmentInfo[]>> {
  const listed = await ctx.graph(
    { operation: 'attachments.list', idempotent: true },
    { method: 'GET', path: `${messagePath(id)}/attachments`, query: { $select: 'id,name,contentType,size,isInline' } },
    attachmentListSchema,
  );
  if (!listed.ok) return listed;
  return ok(
    listed.value.value
      .filter((a) => !a.isInline || !!a.name)
      .map((a) => ({
        filename: a.name ?? '',
        size: a.size ?? 0,
        mime_type: a.contentType || (a['@odata.type'] === '#microsoft.graph.itemAttachment' ? 'message/rfc822' : 'application/octet-stream'),
        attachment_id: a.id,
      })),
  );
}

export async function getMessage(ctx: MailContext, id: string): Promise<Result<MessageDetail & MessageBody>> {
  if (!GRAPH_ID.test(id)) return fail(notFound('message', id));
  const [got, attachments] = await Promise.all([
    ctx.graph({ operation: 'messages.get', idempotent: true }, { method: 'GET', path: messagePath(id), query: { $select: DETAIL_FIELDS } }, messageSchema),
    attachmentsOf(ctx, id),
  ]);
  if (!got.ok) return fail(notFoundAs(got.error, 'message', id));
  if (!attachments.ok) return fail(notFoundAs(attachments.error, 'message', id));
  const { snippet: _snippet, has_attachments: _has, ...fields } = toSummary(got.value);
  const body = await bodyOf(ctx, got.value);
  return ok({ ...fields, attachments: attachments.value, unread: got.value.isRead === false, ...body });
}

/** PATCH isRead: setting what is already set changes nothing, so repeating it is safe (message-update). */
export async function markRead(ctx: MailContext, id: string): Promise<Result<void>> {
  if (!GRAPH_ID.test(id)) return fail(notFound('message', id));
  const done = await ctx.graph(
    { operation: 'messages.update', idempotent: true },
    { method: 'PATCH', path: messagePath(id), body: { isRead: true } },
    noContent,
  );
  return done.ok ? ok(undefined) : fail(notFoundAs(done.error, 'message', id));
}

/** Facts about a mailbox that change only when the account is replaced (folder ids are constant; mailFolder). */
const FACT_TTL_MS = 3_600_000;

/** GET /me: `mail`, else `userPrincipalName` (a mailbox without a primary SMTP address is rare but exists). */
export function ownAddress(ctx: MailContext): Promise<Result<string>> {
  return ctx.cache.memo(connectionFactKey(ctx.connection, 'graph:own-address'), FACT_TTL_MS, async () => {
    const me = await ctx.graph(
      { operation: 'user.get', idempotent: true },
      { method: 'GET', path: '/me', query: { $select: 'mail,userPrincipalName' } },
      userSchema,
    );
    if (!me.ok) return me;
    const address = me.value.mail || me.value.userPrincipalName;
    return address ? ok(address) : fail(unexpectedAnswer('user.get'));
  });
}

/** A well-known folder's id (Graph takes the name in a path, but parentFolderId is always the id). */
export function folderId(ctx: MailContext, folder: WellKnownFolder): Promise<Result<string>> {
  return ctx.cache.memo(connectionFactKey(ctx.connection, `graph:folder:${folder}`), FACT_TTL_MS, async () => {
    const got = await ctx.graph(
      { operation: 'mailFolders.get', idempotent: true },
      { method: 'GET', path: `/me/mailFolders/${folder}`, query: { $select: 'id' } },
      folderSchema,
    );
    return got.ok ? ok(got.value.id) : got;
  });
}

export async function prepareReply(ctx: MailContext, id: string): Promise<Result<ReplyTarget>> {
  if (!GRAPH_ID.test(id)) return fail(notFound('message', id));
  const got = await ctx.graph(
    { operation: 'messages.get', idempotent: true },
    { method: 'GET', path: messagePath(id), query: { $select: 'id,subject,conversationId' } },
    messageSchema,
  );
  if (!got.ok) return fail(notFoundAs(got.error, 'message', id));
  // createReply threads the reply itself (conversationId, In-Reply-To, References): the id is all send needs.
  return ok({ messageId: got.value.id, threadId: got.value.conversationId ?? '', subject: got.value.subject ?? '', vendor: { replyTo: got.value.id } });
}

/** A conversation longer than this is not read further (100 per page). */
const MAX_THREAD_PAGES = 10;

/**
 * Every message of a conversation in any folder, oldest first. Sorted here: `$orderby` beside this `$filter` is
 * Graph's InefficientFilter unless the ordered property leads the filter (user-list-messages).
 */
export async function thread(ctx: MailContext, conversationId: string): Promise<Result<ThreadMessage[]>> {
  if (!GRAPH_ID.test(conversationId)) return fail(notFound('thread', conversationId));
  const [own, sent] = await Promise.all([ownAddress(ctx), folderId(ctx, 'sentitems')]);
  if (!own.ok) return own;
  if (!sent.ok) return sent;
  const messages: GraphMessage[] = [];
  let path: string = '/me/messages';
  let query: Record<string, string> | undefined = {
    $filter: `conversationId eq ${odataString(conversationId)}`,
    // Mail.ReadBasic reads no preview ("except body, previewBody, …"): with it, snippets are empty.
    $select: `id,from,receivedDateTime,isDraft,parentFolderId${hasAnyScope(ctx.connection.scopes, ['mail.read', 'mail.readwrite']) ? ',bodyPreview' : ''}`,
    $top: '100',
  };
  for (let page = 0; page < MAX_THREAD_PAGES; page++) {
    const listed = await ctx.graph({ operation: 'messages.list', idempotent: true }, { method: 'GET', path, ...(query ? { query } : {}) }, messageListSchema);
    if (!listed.ok) return fail(notFoundAs(listed.error, 'thread', conversationId));
    messages.push(...listed.value.value);
    const next = listed.value['@odata.nextLink'];
    if (!next) break;
    // Graph's own link, followed only on the configured Graph origin (graphFetch checks it).
    path = next;
    query = undefined;
  }
  if (messages.length === 0) return fail(notFound('thread', conversationId));
  const me = own.value.toLowerCase();
  return ok(
    messages
      .map((m) => ({ m, at: Date.parse(m.receivedDateTime ?? '') }))
      .sort((a, b) => (a.at || 0) - (b.at || 0))
      .map(({ m }) => ({
        message_id: m.id,
        from: addressOf(m.from),
        snippet: (m.bodyPreview ?? '').replace(/\s+/g, ' ').trim(),
        date: isoUtc(m.receivedDateTime),
        fromAccount: m.isDraft === true || m.parentFolderId === sent.value || addressOf(m.from).toLowerCase() === me,
      })),
  );
}
