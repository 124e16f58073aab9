import { type ApiHandler, type ApiResult, ok } from '../../api/types';
import { SYSTEM_LABEL_IDS, UNMODIFIABLE_LABELS } from '../labels';
import { type Mailbox, setLabels } from '../mailbox';
import { messageRef } from '../render';
import { findMessage, invalidArgument, isResult, mailboxFor, stringList } from './common';

/** Label ids messages.modify may add or remove: system ones except SENT/DRAFT/CHAT, and this mailbox's own. */
function checkLabels(mb: Mailbox, ids: readonly string[]): ApiResult | undefined {
  for (const id of ids) {
    const known = (SYSTEM_LABEL_IDS.has(id) && !UNMODIFIABLE_LABELS.has(id)) || mb.userLabels.has(id);
    if (!known) return invalidArgument(`Invalid label: ${id}`);
  }
  return undefined;
}

export const modifyMessage: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const add = stringList(call.body?.addLabelIds);
  const remove = stringList(call.body?.removeLabelIds);
  if (!add.length && !remove.length) return invalidArgument('No label add or removes specified');
  const msg = findMessage(mb, call.params.id ?? '');
  if (isResult(msg)) return msg;
  const bad = checkLabels(mb, add) ?? checkLabels(mb, remove);
  if (bad) return bad;
  const next = [...msg.labelIds, ...add.filter((l) => !msg.labelIds.includes(l))].filter((l) => !remove.includes(l));
  setLabels(mb, msg, [...new Set(next)]);
  return ok(messageRef(msg));
};

/** Moving to Trash: TRASH added, INBOX dropped (the message leaves the inbox); repeating it changes nothing. */
export const trashMessage: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const msg = findMessage(mb, call.params.id ?? '');
  if (isResult(msg)) return msg;
  setLabels(mb, msg, [...msg.labelIds.filter((l) => l !== 'INBOX' && l !== 'TRASH'), 'TRASH']);
  return ok(messageRef(msg));
};
