import type { MailPort } from '../../core/mail';
import { type GraphMailDeps, mailContext } from './mail-context';
import { getMessage, markRead, ownAddress, prepareReply, thread } from './mail-read';
import { searchMail } from './mail-search';
import { type PendingDrafts, canVerifySends, findSent, send } from './mail-send';

export type { GraphMailDeps } from './mail-context';

/**
 * Outlook mail (Microsoft Graph v1.0) behind the mail port: the same guarantees as Gmail's adapter — Gmail's
 * query syntax, honoured exactly or refused; sends at most once; bodies as text — for one tool call (`deps` holds
 * that call's deadline and services). docs/outlook.md describes it for agents.
 */
export function createGraphMail(deps: GraphMailDeps): MailPort {
  const ctx = mailContext(deps);
  // Drafts that carry a send marker and were not sent, found by findSent: send() sends those instead of a new one.
  const pending: PendingDrafts = new Map();
  return {
    ownAddress: () => ownAddress(ctx),
    search: (query, options, signal) => searchMail(ctx, query, options, signal),
    getMessage: (id) => getMessage(ctx, id),
    markRead: (id) => markRead(ctx, id),
    thread: (id) => thread(ctx, id),
    prepareReply: (id) => prepareReply(ctx, id),
    send: (mail, marker, reply) => send(ctx, pending, mail, marker, reply),
    findSent: (markers, sinceMs, maxScan) => findSent(ctx, pending, markers, sinceMs, maxScan),
    canVerifySends: () => canVerifySends(ctx),
  };
}
