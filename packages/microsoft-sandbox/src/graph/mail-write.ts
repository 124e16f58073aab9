import { wellFormedItemId } from '../ids';
import { type GraphCtx, type Handler } from './context';
import { actionParam, checkActionBody } from './actions';
import { GE, graphError } from './errors';
import { type MessageRec, folderByName, moveMessage, newMessageIds, wellKnownFolder } from './mailbox';
import { readAttachment, readMessageBody } from './message-input';
import { newConversation, newInternetMessageId, submit } from './send';
import { attachmentJson } from './serialize';
import { entity, pickFolder, pickMessage } from './mail-common';

/**
 * Writing mail: drafts, updates, moves, deletes, replies, sending (user-post-messages, message-update,
 * message-move, message-delete, message-createreply, message-send, user-sendmail, attachment-post).
 */

export function createDraft(ctx: GraphCtx): ReturnType<Handler> {
  const folder = pickFolder(ctx) ?? wellKnownFolder(ctx.box, 'drafts');
  if ('code' in folder) return folder;
  const input = readMessageBody(ctx.world, ctx.req.body ?? {}, true, true);
  if ('code' in input) return input;
  const m = draft(ctx, input);
  m.folder = folder.id;
  ctx.box.messages.push(m);
  return entity(ctx, m, 201);
}

export function draft(ctx: GraphCtx, input: ReturnType<typeof readMessageBody> & object, conversation = newConversation(ctx.world)): MessageRec {
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
    headers: [],
    internetHeaders: null,
    extended: [],
    visibleAt: t,
    ...(input as object),
  } as MessageRec;
}

export function update(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  // The same change-key check as events: a stale @odata.etag in If-Match loses (412 ErrorIrresolvableConflict).
  const ifMatch = ctx.req.get('if-match');
  if (ifMatch && ifMatch !== '*' && ifMatch !== `W/"${m.changeKey}"`) return GE.conflict();
  const input = readMessageBody(ctx.world, ctx.req.body, m.isDraft);
  if ('code' in input) return input;
  // Extended properties given in a PATCH are added to (or replace, by id) those the item has.
  const extended = input.extended ? [...m.extended.filter((p) => !input.extended!.some((q) => q.id === p.id)), ...input.extended] : m.extended;
  Object.assign(m, input, { extended, changeKey: newMessageIds(ctx.world).changeKey, modified: ctx.world.clock.now() });
  return entity(ctx, m);
}

export function move(ctx: GraphCtx): ReturnType<Handler> {
  const params = checkActionBody(ctx, 'move', 'message');
  if (params) return params;
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const dest = actionParam(ctx.req.body, 'destinationId');
  if (typeof dest !== 'string') return GE.badRequest("The parameter 'destinationId' is missing.");
  const f = folderByName(ctx.box, dest);
  if (!f) return wellFormedItemId(dest) ? GE.notFound() : GE.malformedId();
  moveMessage(ctx.world, m, f);
  return entity(ctx, m, 201);
}

export function remove(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  const deleted = wellKnownFolder(ctx.box, 'deleteditems');
  // DELETE moves the item to Deleted Items (recoverable); from there it is gone. message-delete does not say where
  // the item goes; this is the store's rule for clients (learn.microsoft.com/office/client-developer/outlook/mapi/
  // pidtagipmwastebasketentryid-canonical-property: "A client application should move deleted interpersonal
  // messages to the Deleted Items folder. If the message is already in this folder … the client should delete the
  // message"), and message-permanentdelete exists for the other case.
  if (m.folder === deleted.id) ctx.box.messages.splice(ctx.box.messages.indexOf(m), 1);
  else moveMessage(ctx.world, m, deleted);
  return { status: 204 };
}

export function createReply(all: boolean): Handler {
  return (ctx) => {
    const params = checkActionBody(ctx, all ? 'createReplyAll' : 'createReply', 'message');
    if (params) return params;
    const m = pickMessage(ctx);
    if ('code' in m) return m;
    const message = actionParam(ctx.req.body, 'message');
    const comment = actionParam(ctx.req.body, 'comment');
    const extra = message === undefined ? {} : readMessageBody(ctx.world, message, true, true);
    if ('code' in extra) return extra;
    // message-createreply: "Specify either a comment or the body property of the message parameter. Specifying
    // both will return an HTTP 400 Bad Request error."
    if (typeof comment === 'string' && extra.bodyHtml !== undefined)
      return GE.badRequest('Specify either a comment or the body property of the message parameter, not both.');
    const meAddr = ctx.owner.userPrincipalName.toLowerCase();
    const to = m.replyTo.length ? m.replyTo : m.from ? [m.from] : [];
    const cc = all ? [...m.to, ...m.cc].filter((r) => r.address.toLowerCase() !== meAddr) : [];
    const quoted = `<html><body>${typeof comment === 'string' ? `<div>${comment}</div>` : ''}<hr><div><b>From:</b> ${m.from?.name ?? ''}<br><b>Subject:</b> ${m.subject}</div>${m.bodyHtml}</body></html>`;
    const reply = draft(
      ctx,
      { subject: /^re:/i.test(m.subject) ? m.subject : `RE: ${m.subject}`, to, cc, bodyHtml: quoted, bodyType: 'html', ...extra },
      { conversationId: m.conversationId, conversationIndex: m.conversationIndex },
    );
    ctx.box.messages.push(reply);
    return entity(ctx, reply, 201);
  };
}

export function send(ctx: GraphCtx): ReturnType<Handler> {
  const params = checkActionBody(ctx, 'send', 'message');
  if (params) return params;
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  if (!m.isDraft) return graphError(400, 'ErrorInvalidOperation', 'Only a draft can be sent.');
  return submit(ctx.world, ctx.owner, m, true) ?? { status: 202 };
}

/** POST /me/sendMail: 202 Accepted and no body (user-sendmail). */
export function sendMail(ctx: GraphCtx): ReturnType<Handler> {
  const params = checkActionBody(ctx, 'sendMail', 'user');
  if (params) return params;
  const message = actionParam(ctx.req.body, 'message');
  if (typeof message !== 'object' || message === null) return GE.badRequest("The parameter 'message' is missing.");
  const input = readMessageBody(ctx.world, message, true, true);
  if ('code' in input) return input;
  const m = draft(ctx, input);
  return submit(ctx.world, ctx.owner, m, actionParam(ctx.req.body, 'saveToSentItems') !== false) ?? { status: 202 };
}

export function addAttachment(ctx: GraphCtx): ReturnType<Handler> {
  const m = pickMessage(ctx);
  if ('code' in m) return m;
  if (!m.isDraft) return graphError(400, 'ErrorInvalidPropertyUpdateSentMessage', 'Update to a sent message is not supported.');
  const a = readAttachment(ctx.world, ctx.req.body);
  if ('code' in a) return a;
  m.attachments.push(a);
  return { status: 201, type: 'microsoft.graph.attachment', body: attachmentJson(a, true) };
}
