import type { gmail_v1 } from '@googleapis/gmail';
import { type ApiHandler, ok } from '../../api/types';
import { errors } from '../../google-errors';
import { SYSTEM_LABELS, userLabelResource } from '../labels';
import { threadMessages } from '../mailbox';
import { findPart } from '../mime/parse';
import { base64url } from '../base64';
import { type MessageFormat, renderMessage, renderThread } from '../render';
import { checkFormatScope, findMessage, invalidArgument, isResult, mailboxFor, stringList } from './common';

export const getProfile: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const profile: gmail_v1.Schema$Profile = {
    emailAddress: call.account.email,
    messagesTotal: mb.messages.size,
    threadsTotal: mb.threads.size,
    historyId: String(mb.historyId),
  };
  return ok(profile);
};

export const listLabels: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const labels = [...SYSTEM_LABELS.map((l) => ({ ...l })), ...[...mb.userLabels.values()].map(userLabelResource)];
  return ok({ labels } satisfies gmail_v1.Schema$ListLabelsResponse);
};

export const getMessage: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const format = (call.query.format as MessageFormat | undefined) ?? 'full';
  const denied = checkFormatScope(call, format);
  if (denied) return denied;
  const msg = findMessage(mb, call.params.id ?? '');
  if (isResult(msg)) return msg;
  return ok(renderMessage(msg, format, call.world.random, stringList(call.query.metadataHeaders)));
};

export const getThread: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const format = (call.query.format as MessageFormat | undefined) ?? 'full';
  const denied = checkFormatScope(call, format);
  if (denied) return denied;
  const id = call.params.id ?? '';
  if (!/^[0-9a-f]{1,20}$/i.test(id)) return invalidArgument('Invalid id value');
  const messages = threadMessages(mb, id.toLowerCase());
  if (!messages.length) return errors.notFound('gmail');
  return ok(renderThread(mb, messages, id.toLowerCase(), format, call.world.random, stringList(call.query.metadataHeaders)));
};

/**
 * Attachment bodies by the ids messages.get handed out. Ids are per message: a token issued for another
 * message, or never issued, is rejected as Gmail does ("Invalid attachment token").
 */
export const getAttachment: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const msg = findMessage(mb, call.params.messageId ?? '');
  if (isResult(msg)) return msg;
  const partId = msg.attachmentIds.get(call.params.id ?? '');
  const part = partId === undefined ? undefined : findPart(msg.mime, partId);
  if (!part) return invalidArgument('Invalid attachment token');
  const body: gmail_v1.Schema$MessagePartBody = { size: part.body.length, data: base64url(Buffer.from(part.body, 'latin1'), false) };
  return ok(body);
};
