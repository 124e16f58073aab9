import type { Router } from 'express';
import { NEEDS } from '../identity/scopes';
import { type GraphCtx, type Handler } from './context';
import { GE } from './errors';
import { checkFilterOrder, checkSearchCombination, parseSearch, SEARCH_RESULT_LIMIT, searchMatches } from './mail-query';
import { type Folder } from './mailbox';
import { type ListSpec, listAnswer, nextLink, parseQuery, project, queryParam } from './odata';
import { attachmentJson, htmlToText } from './serialize';
import { type Route, entity, json, pickFolder, pickMessage } from './mail-common';
import { addAttachment, createDraft, createReply, move, remove, send, sendMail, update } from './mail-write';

/**
 * Mail (user-list-messages, message-get, user-post-messages, message-update, message-delete, message-move,
 * message-createreply, message-send, user-sendmail, attachment-get/list). Lists hide what has not arrived yet
 * (send.ts's delays); a moved message gets a new id unless the caller asked for immutable ids.
 */

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
