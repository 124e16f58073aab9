import { ALPHABETS } from '../random';
import { conversationId } from '../ids';
import type { Person, World } from '../world';
import { findPerson } from '../world';
import { mailboxOf } from './context';
import { type GraphError, graphError } from './errors';
import { type MessageRec, newMessageIds, wellKnownFolder } from './mailbox';

/**
 * Submitting mail: the sender's copy goes to Sent Items and each recipient with a sandbox mailbox gets one in
 * the Inbox — neither at once. Exchange's sending limits (learn.microsoft.com/office365/servicedescriptions/
 * exchange-online-service-description/exchange-online-limits#sending-limits): 500 recipients per message,
 * 10,000 recipients per 24 hours, 30 messages per minute — "any excess in message submission will be throttled
 * and successively carried over to the following minutes", so mail over the rate is accepted and delivered
 * later, while the recipient limits refuse it. Graph's code for those refusals is not documented; the sandbox
 * answers ErrorSubmissionQuotaExceeded (Exchange's name for the quota, SubmissionQuotaExceededException).
 */

export const SENDING_LIMITS = { recipientsPerMessage: 500, recipientsPerDay: 10_000, messagesPerMinute: 30 };

export function newInternetMessageId(world: World, domain: string) {
  return `<${world.random.string(20, ALPHABETS.alnum).toUpperCase()}@${domain.toUpperCase()}>`;
}

export const newConversation = (world: World) => ({
  conversationId: conversationId(world.random),
  conversationIndex: Buffer.from(world.random.hex(44), 'hex').toString('base64'),
});

/** Refuses what Exchange refuses; answers how long delivery waits behind the per-minute rate. */
function sendingLimits(world: World, sender: Person, recipients: number): GraphError | number {
  const box = mailboxOf(world, sender);
  const now = world.clock.now();
  box.sentLog = box.sentLog.filter((s) => s.at > now - 86_400_000);
  if (recipients > SENDING_LIMITS.recipientsPerMessage)
    return graphError(
      400,
      'ErrorSubmissionQuotaExceeded',
      `The message has ${recipients} recipients; Exchange Online accepts at most ${SENDING_LIMITS.recipientsPerMessage}.`,
    );
  const today = box.sentLog.reduce((n, s) => n + s.recipients, 0);
  if (today + recipients > SENDING_LIMITS.recipientsPerDay)
    return graphError(
      403,
      'ErrorSubmissionQuotaExceeded',
      'Cannot submit message. The sender has exceeded the recipient rate limit of 10,000 recipients per day.',
    );
  const lastMinute = box.sentLog.filter((s) => s.at > now - 60_000).length;
  box.sentLog.push({ at: now, recipients });
  return lastMinute >= SENDING_LIMITS.messagesPerMinute ? 60_000 * Math.floor(lastMinute / SENDING_LIMITS.messagesPerMinute) : 0;
}

/** Sends `m` (a draft of `sender`'s, or a new message): Sent Items (unless told not to) and every recipient's Inbox. */
export function submit(world: World, sender: Person, m: MessageRec, saveToSentItems: boolean): GraphError | undefined {
  const all = [...m.to, ...m.cc, ...m.bcc];
  if (all.length === 0)
    return graphError(400, 'ErrorInvalidRecipients', "At least one recipient isn't valid., A message can't be sent because it contains no recipients.");
  const delay = sendingLimits(world, sender, all.length);
  if (typeof delay !== 'number') return delay;
  const now = world.clock.now();
  const box = mailboxOf(world, sender);
  const from = { name: sender.displayName, address: sender.userPrincipalName };
  Object.assign(m, { from, sender: from });
  // The sender's item stays a draft in Drafts until transport takes it (settleTransport): sendMail's message is
  // created there first, as a draft is ("Outlook creates a new message in the sender's Drafts folder", step 1).
  if (!box.messages.includes(m)) {
    m.folder = wellKnownFolder(box, 'drafts').id;
    box.messages.push(m);
  }
  // Sending an item transport has not taken yet again: Microsoft documents no answer for it. The sandbox accepts
  // it and delivers it again, the costlier answer, so a client that re-sends a draft it sees still in Drafts after
  // a send it could not confirm learns here what that may cost.
  if (!m.transit) {
    m.transit = { until: now + world.consistency.sentItemsDelayMs, sentAt: now, saveToSentItems };
    box.inTransit.push(m);
  }
  for (const r of all) {
    const person = findPerson(world, r.address);
    if (!person) continue;
    const inbox = mailboxOf(world, person);
    inbox.messages.push({
      ...m,
      ...newMessageIds(world),
      folder: wellKnownFolder(inbox, 'inbox').id,
      bcc: m.bcc.filter((b) => b.address.toLowerCase() === person.userPrincipalName.toLowerCase()),
      isRead: false,
      isDraft: false,
      attachments: m.attachments.map((a) => ({ ...a })),
      // What crosses the wire: the custom headers, not the sender's MAPI properties.
      internetHeaders: [...m.headers, { name: 'Message-ID', value: m.internetMessageId }],
      extended: [],
      visibleAt: now + world.consistency.deliveryDelayMs + delay,
    });
  }
  return undefined;
}
