import { z } from 'zod';
import { type Result, fail, ok } from '../../core/errors';
import type { ReplyTarget } from '../../core/mail';
import { validationError } from '../../core/validation';
import type { Permission } from '../../core/capabilities';
import { type ToolContext, defineTool } from '../types';
import { providerInput } from '../provider-input';
import { type Mailbox, parseRecipient } from './addresses';
import { checkExtraScopes } from './extra-scopes';
import { MAX_BODY_CHARS_IN, MAX_RECIPIENTS, MAX_SUBJECT_CHARS, inputId, headerText, recipient } from './inputs';
import { checkEarlierSend, sendChecked } from './send-once';
import { sendTokens } from './send-tokens';
import { baseSubject, replySubject } from './threading';

const PERMISSIONS: readonly Permission[] = ['mail.send'];
/** Reading the original's headers for a reply: the narrowest scope messages.get(format=metadata) accepts. */
const REPLY_PERMISSIONS: readonly Permission[] = ['mail.metadata'];

const recipients = () => z.array(recipient).max(MAX_RECIPIENTS);

const input = z
  .strictObject({
    to: recipients().describe('Recipients: "name@example.com" or "Name <name@example.com>", one address per entry.'),
    cc: recipients().nullish().describe('Carbon-copy recipients, same form as `to`.'),
    bcc: recipients().nullish().describe('Blind-copy recipients (hidden from the others), same form as `to`.'),
    subject: headerText(MAX_SUBJECT_CHARS)
      .nullish()
      .describe('Subject line. Required for a new message; for a reply leave it out to use "Re: <original subject>".'),
    body: z.string().max(MAX_BODY_CHARS_IN).describe('Message body: plain text, or HTML when body_type is "html".'),
    body_type: z.enum(['text', 'html']).default('text').describe('"text" (default) or "html" (sent with a plain-text alternative).'),
    reply_to_message_id: inputId('message')
      .nullish()
      .describe('To reply in a conversation: the id of the message being answered (from email_search or email_read).'),
    provider: providerInput.optional(),
  })
  .superRefine((v, issue) => {
    const total = v.to.length + (v.cc?.length ?? 0) + (v.bcc?.length ?? 0);
    if (total === 0) issue.addIssue({ code: 'custom', path: ['to'], message: 'at least one recipient (to, cc or bcc) is required' });
    if (total > MAX_RECIPIENTS) issue.addIssue({ code: 'custom', path: ['to'], message: `at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together` });
    if (v.reply_to_message_id == null && !v.subject?.trim()) {
      issue.addIssue({ code: 'custom', path: ['subject'], message: 'a subject is required unless reply_to_message_id is given' });
    }
  });
type Input = z.output<typeof input>;

const output = z.object({
  message_id: z.string().describe('Id of the sent message.'),
  thread_id: z.string().describe('Id of its conversation (Gmail thread, Outlook conversation).'),
  status: z.literal('sent'),
});
type Output = z.output<typeof output>;

const mailboxes = (values: readonly string[] | null | undefined): Mailbox[] =>
  (values ?? []).map((v) => {
    const parsed = parseRecipient(v);
    if (!parsed.ok) throw new Error('recipient passed input validation but does not parse'); // a bug, not an input
    return parsed.mailbox;
  });

/** The original of a reply, through the mail port, and the reply's subject: the original's unless one is given, and it must match. */
async function replyTo(ctx: ToolContext, v: Input, originalId: string): Promise<Result<{ target: ReplyTarget; subject: string }>> {
  const denied = checkExtraScopes(ctx, PERMISSIONS, REPLY_PERMISSIONS, 'to read the message being replied to');
  if (denied) return fail(denied);
  const original = await ctx.mail.prepareReply(originalId);
  if (!original.ok) return original;
  const originalSubject = original.value.subject;
  const subject = v.subject?.trim() ? v.subject : replySubject(originalSubject);
  // Gmail keeps a reply in the conversation only when the subjects match once "Re:"-style prefixes are stripped.
  if (baseSubject(subject) !== baseSubject(originalSubject)) {
    return fail(
      validationError('A reply must keep the original subject (leave subject out to use "Re: <original subject>")', [
        { path: 'inputs.subject', message: `must match the original subject "${originalSubject}" (a "Re: " prefix is fine)` },
      ]),
    );
  }
  return ok({ target: original.value, subject });
}

export const emailSend = defineTool({
  name: 'email_send',
  version: '1.1.0',
  description:
    'Send an email from the connected mailbox (Gmail or Outlook). Give recipients in to/cc/bcc (at least one, at most 100 in all), a subject and a ' +
    'body (plain text, or HTML with body_type "html"). To answer a message in its conversation, pass its id as reply_to_message_id: ' +
    'the reply is threaded (same thread or conversation) and the subject defaults to "Re: <original subject>". ' +
    'The email is really sent and cannot be recalled. Pass context.request_id and reuse it on retries: the Hub then sends at most once, ' +
    'and checks the Sent folder before repeating a send whose outcome was uncertain.',
  capability: 'mail',
  permissions: PERMISSIONS,
  sideEffects: 'writes',
  destructive: false,
  input,
  recipients: (v) => [...mailboxes(v.to), ...mailboxes(v.cc), ...mailboxes(v.bcc)].map((m) => m.address),
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const sent = (ref: { id: string; threadId: string }) => ok({ message_id: ref.id, thread_id: ref.threadId, status: 'sent' as const });
    // Every attempt of one request carries the same token, so an earlier attempt's message can be recognised.
    const tokens = await sendTokens(ctx, v);
    if (!tokens.ok) return tokens;
    const token = tokens.value[0]!;
    const earlier = await checkEarlierSend(ctx, tokens.value);
    if (!earlier.ok) return earlier;
    if (earlier.value) return sent(earlier.value);

    let subject = v.subject ?? '';
    let reply: ReplyTarget | null = null;
    if (v.reply_to_message_id != null) {
      const found = await replyTo(ctx, v, v.reply_to_message_id);
      if (!found.ok) return found;
      ({ subject } = found.value);
      reply = found.value.target;
    }
    const mail = { to: mailboxes(v.to), cc: mailboxes(v.cc), bcc: mailboxes(v.bcc), subject, body: v.body, bodyType: v.body_type };
    const done = await sendChecked(ctx, mail, token, reply);
    return done.ok ? sent(done.value) : done;
  },
});
