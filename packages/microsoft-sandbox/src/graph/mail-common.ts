import type { RequestHandler } from 'express';
import { wellFormedItemId } from '../ids';
import { type GraphCtx, type Handler } from './context';
import { GE, type GraphError } from './errors';
import { type Folder, type MessageRec, findMessage, folderByName } from './mailbox';
import { project, queryParam } from './odata';
import { messageJson } from './serialize';

/** What the mail handlers share: finding the message or folder a path names, and answering with one message. */

export type Route = (op: string, needs: readonly string[], h: Handler) => RequestHandler;

export const folderOf = (ctx: GraphCtx, m: MessageRec) => ctx.box.folders.get(m.folder)!;
export const json = (ctx: GraphCtx, m: MessageRec) => messageJson(ctx, m, folderOf(ctx, m).id);

export function pickMessage(ctx: GraphCtx): MessageRec | GraphError {
  const id = String(ctx.req.params.messageId);
  if (!wellFormedItemId(id)) return GE.malformedId();
  return findMessage(ctx.box, id, ctx.world.clock.now()) ?? GE.notFound();
}

export function pickFolder(ctx: GraphCtx): Folder | GraphError | undefined {
  const id = ctx.req.params.folderId as string | undefined;
  if (id === undefined) return undefined;
  const f = folderByName(ctx.box, id);
  if (f) return f;
  return wellFormedItemId(id) ? GE.notFound() : GE.malformedId();
}

export function entity(ctx: GraphCtx, m: MessageRec, status = 200) {
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
