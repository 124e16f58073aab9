import type { Router } from 'express';
import { NEEDS } from '../identity/scopes';
import { type GraphCtx, type Handler } from './context';
import { GE } from './errors';
import { parseKql } from './kql';
import { kqlMatches } from './kql-match';
import { checkFilterOrder, checkSearchCombination, SEARCH_RESULT_LIMIT } from './mail-query';
import { type Folder, type MessageRec } from './mailbox';
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
    hidden: [EXTENDED],
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
      // Extended properties are not part of the message's JSON, but $filter can test them.
      visible.map((m) => ({ ...json(ctx, m), [EXTENDED]: m.extended.map((p) => ({ ...p })) })),
      query,
    );
  const kql = parseKql(search);
  if ('code' in kql) return kql;
  const hits = visible
    .filter((m) =>
      kqlMatches(kql, {
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
        size: sizeOf(m),
      }),
    )
    .sort((a, b) => (b.sent ?? b.received) - (a.sent ?? a.received))
    .slice(0, SEARCH_RESULT_LIMIT);
  // Search pages carry an opaque $skiptoken, not $skip; one the sandbox did not issue is refused, never read as 0.
  const token = queryParam(ctx, '$skiptoken');
  const issued = token === undefined ? 'offset:0' : Buffer.from(token, 'base64url').toString('utf8');
  if (!/^offset:\d{1,7}$/.test(issued)) return GE.badRequest('The $skiptoken is not valid.');
  const offset = Number(issued.slice('offset:'.length));
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

const EXTENDED = 'singleValueExtendedProperties';

/** A message's size in the store: what `size:` compares (headers, body and attachments; an estimate of Exchange's). */
const sizeOf = (m: MessageRec) => 1024 + Buffer.byteLength(m.subject) + Buffer.byteLength(m.bodyHtml) + m.attachments.reduce((n, a) => n + a.bytes.length, 0);

/** `$select` on attachments: the chosen properties, the id and the derived type (never the bytes unless chosen). */
function selectAttachment(json: Record<string, unknown>, select: string[] | undefined) {
  if (!select) return json;
  const out: Record<string, unknown> = { '@odata.type': json['@odata.type'], id: json.id };
  for (const s of select) if (s in json) out[s] = json[s];
  return out;
}

function attachments(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const select = queryParam(ctx, '$select')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const known = new Set(['id', 'name', 'contentType', 'size', 'isInline', 'lastModifiedDateTime', 'contentBytes', 'contentId', 'contentLocation']);
  const unknown = select?.find((s) => !known.has(s));
  if (unknown) return GE.badProperty(unknown, 'attachment');
  return {
    status: 200,
    type: 'Collection(microsoft.graph.attachment)',
    body: {
      '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/messages('${m.restId}')/attachments`,
      value: m.attachments.map((a) => selectAttachment(attachmentJson(a, true), select)),
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

/** A mailFolder with the v1.0 CSDL's properties (sizeInBytes is beta's only: v1.0 never sends it). */
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
