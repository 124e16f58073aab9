import { type ApiHandler, ok } from '../../api/types';
import { errors } from '../../google-errors';
import { findAccount } from '../../world';
import { decodeBase64Any } from '../base64';
import { formatMailDate } from '../dates';
import { storeMessage } from '../ingest';
import { sameAddress } from '../mime/addresses';
import { deliveredCopy, prepareOutgoing, senderCopy, wireCopy } from '../outgoing';
import { messageRef } from '../render';
import { ensureMailbox, invalidArgument, isResult, mailboxFor } from './common';

const RAW_REQUIRED = "'raw' RFC822 payload message string or uploading message via /upload/* URL required";

/**
 * messages.send: the sender keeps a SENT copy; every sandbox account among To/Cc/Bcc receives its own copy
 * (new id, INBOX + UNREAD, threaded in its own mailbox); other recipients go to `gmail.outbound`.
 */
export const sendMessage: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const { world, account, now } = call;

  let raw: Buffer | null;
  if (call.media) raw = call.media;
  else if (typeof call.body?.raw === 'string' && call.body.raw !== '') raw = decodeBase64Any(call.body.raw);
  else return invalidArgument(RAW_REQUIRED);
  if (!raw) return invalidArgument('Invalid raw message');
  if (!raw.length) return invalidArgument(RAW_REQUIRED);

  const threadId = typeof call.body?.threadId === 'string' && call.body.threadId !== '' ? call.body.threadId : undefined;
  if (threadId !== undefined) {
    if (!/^[0-9a-f]{1,20}$/i.test(threadId)) return invalidArgument('Invalid thread_id value');
    if (!mb.threads.has(threadId.toLowerCase())) return errors.notFound('gmail');
  }

  const out = prepareOutgoing(raw, account, now, world.random);
  if (isResult(out)) return out;

  const toSelf = out.recipients.some((r) => sameAddress(r.address, account.email));
  const sent = storeMessage(mb, world.random, senderCopy(out), {
    labelIds: toSelf ? ['SENT', 'INBOX', 'UNREAD'] : ['SENT'],
    internalDate: now,
    threading: threadId ? { threadId: threadId.toLowerCase() } : 'new',
  });

  const external: string[] = [];
  for (const r of out.recipients) {
    if (sameAddress(r.address, account.email)) continue;
    const recipient = findAccount(world, r.address);
    if (!recipient) {
      external.push(r.address);
      continue;
    }
    const rmb = ensureMailbox(world.gmail.mailboxes, recipient.email, world.random);
    storeMessage(rmb, world.random, deliveredCopy(out, recipient.email, formatMailDate(now, 0)), {
      labelIds: ['INBOX', 'UNREAD'],
      internalDate: now,
      threading: 'headers',
    });
  }
  if (external.length) {
    world.gmail.outbound.push({
      at: now,
      from: account.email,
      recipients: external,
      messageId: sent.id,
      threadId: sent.threadId,
      rfcMessageId: sent.rfcMessageId ?? '',
      subject: sent.subject,
      raw: wireCopy(out),
    });
  }
  return ok(messageRef(sent));
};
