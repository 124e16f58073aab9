import type { RequestHandler, Router } from 'express';
import { NEEDS } from '../identity/scopes';
import { wellFormedItemId } from '../ids';
import { type GraphCtx, type Handler } from './context';
import { GE, type GraphError, graphError } from './errors';
import { checkFilterOrder, checkSearchCombination, parseSearch, SEARCH_RESULT_LIMIT, searchMatches } from './mail-query';
import { type Folder, type MessageRec, findMessage, folderByName, moveMessage, newMessageIds, wellKnownFolder } from './mailbox';
import { readAttachment, readMessageBody } from './message-input';
import { type ListSpec, listAnswer, nextLink, parseQuery, project, queryParam } from './odata';
import { newConversation, newInternetMessageId, submit } from './send';
import { attachmentJson, htmlToText, messageJson } from './serialize';

/**
 * Mail (user-list-messages, message-get, user-post-messages, message-update, message-delete, message-move,
 * message-createreply, message-send, user-sendmail, attachment-get/list). Lists hide what has not arrived yet
 * (send.ts's delays); a moved message gets a new id unless the caller asked for immutable ids.
 */

type Route = (op: string, needs: readonly string[], h: Handler) => RequestHandler;

const folderOf = (ctx: GraphCtx, m: MessageRec) => ctx.box.folders.get(m.folder)!;
const json = (ctx: GraphCtx, m: MessageRec) => messageJson(ctx, m, folderOf(ctx, m).id);

function pickMessage(ctx: GraphCtx): MessageRec | GraphError {
  const id = String(ctx.req.params.messageId);
  if (!wellFormedItemId(id)) return GE.malformedId();
  return findMessage(ctx.box, id) ?? GE.notFound();
}

function pickFolder(ctx: GraphCtx): Folder | GraphError | undefined {
  const id = ctx.req.params.folderId as string | undefined;
  if (id === undefined) return undefined;
  const f = folderByName(ctx.box, id);
  if (f) return f;
  return wellFormedItemId(id) ? GE.notFound() : GE.malformedId();
}

function entity(ctx: GraphCtx, m: MessageRec, status = 200) {
  const select = queryParam(ctx, '$select')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    status,
    type: 'microsoft.graph.message',
    body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/messages/$entity`, ...project(json(ctx, m), select) },
  };
}

function list(ctx: GraphCtx): ReturnType<Handler> {
  const folder = pickFolder(ctx);
  if (folder && 'code' in folder) return folder;
  const combo = checkSearchCombination(ctx);
  if (combo) return combo;
  const spec: ListSpec = {
    entity: 'message',
    defaultTop: 10,
    maxTop: 1000,
    contextPath: `users('${ctx.owner.id}')/${folder ? `mailFolders('${folder.id}')/messages` : 'messages'}`,
    defaultOrder: (a, b) => String(b.receivedDateTime).localeCompare(String(a.receivedDateTime)),
  };
  const query = parseQuery(ctx, spec);
  if ('code' in query) return query;
  const order = checkFilterOrder(query);
  if (order) return order;
  const now = ctx.world.clock.now();
  const visible = ctx.box.messages.filter((m) => m.visibleAt <= now && (!folder || m.folder === folder.id));
  const search = queryParam(ctx, '$search');
  if (search === undefined)
    return listAnswer(
      ctx,
      spec,
      visible.map((m) => json(ctx, m)),
      query,
    );
  const groups = parseSearch(search);
  const hits = visible
    .filter((m) =>
      searchMatches(groups, {
        from: m.from ? `${m.from.name} ${m.from.address}` : '',
        to: m.to.map((r) => `${r.name} ${r.address}`).join(' '),
        cc: m.cc.map((r) => `${r.name} ${r.address}`).join(' '),
        bcc: m.bcc.map((r) => `${r.name} ${r.address}`).join(' '),
        subject: m.subject,
        body: m.bodyType === 'html' ? htmlToText(m.bodyHtml) : m.bodyHtml,
        attachmentNames: m.attachments.map((a) => a.name).join(' '),
        hasAttachments: m.attachments.length > 0,
        importance: m.importance,
        received: m.received,
        sent: m.sent ?? m.received,
      }),
    )
    .sort((a, b) => (b.sent ?? b.received) - (a.sent ?? a.received))
    .slice(0, SEARCH_RESULT_LIMIT);
  // Search pages carry an opaque $skiptoken, not $skip.
  const token = queryParam(ctx, '$skiptoken');
  const offset = token
    ? Number(
        Buffer.from(token, 'base64url')
          .toString('utf8')
          .replace(/^offset:/, ''),
      ) || 0
    : 0;
  const page = hits.slice(offset, offset + query.top);
  const more = offset + query.top < hits.length;
  return {
    status: 200,
    type: 'Collection(microsoft.graph.message)',
    body: {
      '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#${spec.contextPath}`,
      value: page.map((m) => project(json(ctx, m), query.select)),
      ...(more ? { '@odata.nextLink': nextLink(ctx, '$skiptoken', Buffer.from(`offset:${offset + query.top}`).toString('base64url')) } : {}),
    },
  };
}

function createDraft(ctx: GraphCtx): ReturnType<Handler> {
  const folder = pickFolder(ctx) ?? wellKnownFolder(ctx.box, 'drafts');
  if ('code' in folder) return folder;
  const input = readMessageBody(ctx.world, ctx.req.body ?? {}, true);
  if ('code' in input) return input;
  const m = draft(ctx, input);
  m.folder = folder.id;
  ctx.box.messages.push(m);
  return entity(ctx, m, 201);
}

function draft(ctx: GraphCtx, input: ReturnType<typeof readMessageBody> & object, conversation = newConversation(ctx.world)): MessageRec {
  const t = ctx.world.clock.now();
  const me = { name: ctx.owner.displayName, address: ctx.owner.userPrincipalName };
  return {
    ...newMessageIds(ctx.world),
    folder: wellKnownFolder(ctx.box, 'drafts').id,
    created: t,
    modified: t,
    received: t,
    sent: null,
    subject: '',
    bodyHtml: '',
    bodyType: 'html',
    from: me,
    sender: me,
    to: [],
    cc: [],
    bcc: [],
    replyTo: [],
    isRead: true,
    isDraft: true,
    importance: 'normal',
    ...conversation,
    internetMessageId: newInternetMessageId(ctx.world, ctx.owner.userPrincipalName.split('@')[1] ?? 'sandbox.example'),
    categories: [],
    flag: 'notFlagged',
    attachments: [],
    visibleAt: t,
    ...(input as object),
  } as MessageRec;
}

function update(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const input = readMessageBody(ctx.world, ctx.req.body, m.isDraft);
  if ('code' in input) return input;
  Object.assign(m, input, { changeKey: newMessageIds(ctx.world).changeKey, modified: ctx.world.clock.now() });
  return entity(ctx, m);
}

function move(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const dest = (ctx.req.body as { destinationId?: unknown } | undefined)?.destinationId;
  if (typeof dest !== 'string') return GE.badRequest("The parameter 'destinationId' is missing.");
  const f = folderByName(ctx.box, dest);
  if (!f) return wellFormedItemId(dest) ? GE.notFound() : GE.malformedId();
  moveMessage(ctx.world, m, f);
  return entity(ctx, m, 201);
}

function remove(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const deleted = wellKnownFolder(ctx.box, 'deleteditems');
  // DELETE moves the item to Deleted Items (recoverable); from there it is gone.
  if (m.folder === deleted.id) ctx.box.messages.splice(ctx.box.messages.indexOf(m), 1);
  else moveMessage(ctx.world, m, deleted);
  return { status: 204 };
}

function createReply(all: boolean): Handler {
  return (ctx) => {
    const m = pickMessage(ctx);
    if ('code' in m) return m;
    const body = (ctx.req.body ?? {}) as { comment?: unknown; message?: unknown };
    const extra = body.message === undefined ? {} : readMessageBody(ctx.world, body.message, true);
    if ('code' in extra) return extra;
    const meAddr = ctx.owner.userPrincipalName.toLowerCase();
    const to = m.replyTo.length ? m.replyTo : m.from ? [m.from] : [];
    const cc = all ? [...m.to, ...m.cc].filter((r) => r.address.toLowerCase() !== meAddr) : [];
    const quoted = `<html><body>${typeof body.comment === 'string' ? `<div>${body.comment}</div>` : ''}<hr><div><b>From:</b> ${m.from?.name ?? ''}<br><b>Subject:</b> ${m.subject}</div>${m.bodyHtml}</body></html>`;
    const reply = draft(
      ctx,
      { subject: /^re:/i.test(m.subject) ? m.subject : `RE: ${m.subject}`, to, cc, bodyHtml: quoted, bodyType: 'html', ...extra },
      { conversationId: m.conversationId, conversationIndex: m.conversationIndex },
    );
    ctx.box.messages.push(reply);
    return entity(ctx, reply, 201);
  };
}

function send(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  if (!m.isDraft) return graphError(400, 'ErrorInvalidOperation', 'Only a draft can be sent.');
  return submit(ctx.world, ctx.owner, m, true) ?? { status: 202 };
}

/** POST /me/sendMail: 202 Accepted and no body (user-sendmail). */
function sendMail(ctx: GraphCtx): ReturnType<Handler> {
  const body = ctx.req.body as { message?: unknown; saveToSentItems?: unknown } | undefined;
  if (!body || typeof body.message !== 'object' || body.message === null) return GE.badRequest("The parameter 'message' is missing.");
  const input = readMessageBody(ctx.world, body.message, true);
  if ('code' in input) return input;
  const m = draft(ctx, input);
  return submit(ctx.world, ctx.owner, m, body.saveToSentItems !== false && body.saveToSentItems !== 'false') ?? { status: 202 };
}

function attachments(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  return {
    status: 200,
    type: 'Collection(microsoft.graph.attachment)',
    body: {
      '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/messages('${m.restId}')/attachments`,
      value: m.attachments.map((a) => attachmentJson(a, true)),
    },
  };
}

function attachment(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const a = m.attachments.find((x) => x.id === ctx.req.params.attachmentId);
  if (!a) return GE.notFound();
  if (ctx.req.path.endsWith('/$value')) {
    ctx.res.status(200).type(a.contentType).send(a.bytes);
    return { status: 200 };
  }
  return {
    status: 200,
    type: 'microsoft.graph.attachment',
    body: {
      '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/messages('${m.restId}')/attachments/$entity`,
      ...attachmentJson(a, true),
    },
  };
}

function addAttachment(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  if (!m.isDraft) return graphError(400, 'ErrorInvalidPropertyUpdateSentMessage', 'Update to a sent message is not supported.');
  const a = readAttachment(ctx.world, ctx.req.body);
  if ('code' in a) return a;
  m.attachments.push(a);
  return { status: 201, type: 'microsoft.graph.attachment', body: attachmentJson(a, true) };
}

function folderJson(ctx: GraphCtx, f: Folder) {
  const now = ctx.world.clock.now();
  const items = ctx.box.messages.filter((m) => m.folder === f.id && m.visibleAt <= now);
  return {
    id: f.id,
    displayName: f.displayName,
    parentFolderId: f.id,
    childFolderCount: 0,
    unreadItemCount: items.filter((m) => !m.isRead).length,
    totalItemCount: items.length,
    sizeInBytes: 0,
    isHidden: false,
  };
}

export function mountMail(router: Router, route: Route) {
  const R = NEEDS.mailRead;
  const W = NEEDS.mailWrite;
  const S = NEEDS.mailSend;
  router.get(
    '/mailFolders',
    route('mailFolders.list', R, (ctx) => ({
      status: 200,
      type: 'Collection(microsoft.graph.mailFolder)',
      body: {
        '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/mailFolders`,
        value: [...ctx.box.folders.values()].map((f) => folderJson(ctx, f)),
      },
    })),
  );
  router.get(
    '/mailFolders/:folderId',
    route('mailFolders.get', R, (ctx) => {
      const f = pickFolder(ctx)!;
      return 'code' in f ? f : { status: 200, type: 'microsoft.graph.mailFolder', body: folderJson(ctx, f) };
    }),
  );
  for (const base of ['', '/mailFolders/:folderId']) {
    router.get(`${base}/messages`, route('messages.list', R, list));
    router.post(`${base}/messages`, route('messages.create', W, createDraft));
  }
  router.get(
    '/messages/:messageId',
    route('messages.get', R, (ctx) => {
      const m = pickMessage(ctx);
      return 'code' in m ? m : entity(ctx, m);
    }),
  );
  router.patch('/messages/:messageId', route('messages.update', W, update));
  router.delete('/messages/:messageId', route('messages.delete', W, remove));
  router.post('/messages/:messageId/move', route('messages.move', W, move));
  router.post('/messages/:messageId/createReply', route('messages.createReply', W, createReply(false)));
  router.post('/messages/:messageId/createReplyAll', route('messages.createReplyAll', W, createReply(true)));
  router.post('/messages/:messageId/send', route('messages.send', S, send));
  router.get('/messages/:messageId/attachments', route('attachments.list', R, attachments));
  router.post('/messages/:messageId/attachments', route('attachments.create', W, addAttachment));
  router.get('/messages/:messageId/attachments/:attachmentId', route('attachments.get', R, attachment));
  router.get('/messages/:messageId/attachments/:attachmentId/$value', route('attachments.content', R, attachment));
  router.post('/sendMail', route('mail.send', S, sendMail));
}
