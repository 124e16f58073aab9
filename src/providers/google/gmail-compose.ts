import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Mailbox } from '../../tools/email/addresses';
import type { HtmlToText } from '../../tools/email/html-text';
import { MAX_BODY_CHARS_IN } from '../../tools/email/inputs';

/**
 * The RFC 2822 message email_send hands to Gmail, built by nodemailer's MailComposer rather than by hand: it
 * encodes non-ASCII subjects and display names as RFC 2047 words, picks quoted-printable or base64 per part,
 * folds long headers, and lays out HTML mail as multipart/alternative with a text/plain part (derived from the
 * HTML in a worker thread, see html-text.ts) so clients that do not render HTML still show the message.
 */

export interface OutgoingMail {
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  subject: string;
  body: string;
  bodyType: 'text' | 'html';
  /** Threading: the original's Message-ID (angle brackets included). */
  inReplyTo?: string | undefined;
  /** Threading: the Message-IDs of the conversation so far, oldest first, the original's own last. */
  references?: readonly string[] | undefined;
  /** Right-hand side of the generated Message-ID (the sending account's domain). */
  messageIdDomain: string;
}

/**
 * The message as bytes. No From header: Gmail sets it to the authenticated account (with its display name),
 * which is the only sender it would accept anyway. Bcc is kept in the header on purpose — Gmail reads the
 * recipients from To/Cc/Bcc and strips Bcc before the message leaves.
 */
export async function buildRawMessage(mail: OutgoingMail, htmlToText: HtmlToText): Promise<Buffer> {
  // The agent's HTML is as untrusted as any mail's: converted within the call's budget, tag-stripped if it
  // cannot be (the text alternative is a courtesy; the HTML part is what clients show).
  const text = mail.bodyType === 'html' ? (await htmlToText(mail.body, { maxChars: MAX_BODY_CHARS_IN })).text : mail.body;
  const composer = new MailComposer({
    to: mail.to,
    ...(mail.cc.length ? { cc: mail.cc } : {}),
    ...(mail.bcc.length ? { bcc: mail.bcc } : {}),
    subject: mail.subject,
    ...(mail.bodyType === 'html' ? { html: mail.body, text } : { text }),
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references?.length ? { references: [...mail.references] } : {}),
    // Without it nodemailer would name this machine's hostname in the Message-ID.
    messageId: `<${randomUUID()}@${mail.messageIdDomain}>`,
  });
  const root = composer.compile();
  root.keepBcc = true;
  return root.build();
}

/** base64url without padding, as messages.send takes `raw`. */
export const toGmailRaw = (message: Buffer) => message.toString('base64url');
