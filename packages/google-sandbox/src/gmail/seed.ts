import { z } from 'zod';
import { ALPHABETS } from '../random';
import { type Account, type World, accountKey } from '../world';
import { decodeBase64Any } from './base64';
import { formatMailDate, rfc3339OffsetMinutes } from './dates';
import { storeMessage } from './ingest';
import { SYSTEM_LABEL_IDS } from './labels';
import { type Mailbox, type StoredMessage, cloneMailbox, createMailbox, userLabelByName } from './mailbox';
import { type EmailAddress, formatAddress, parseAddressList } from './mime/addresses';
import { composeMessage } from './mime/compose';
import { findField, rawValue, splitHeaders, toCrlf } from './mime/headers';
import { normalizeMessageId, parseMessageIds } from './threading';

/**
 * Mail "arriving" in a sandbox mailbox: at account creation (`POST /_sandbox/accounts`) and later
 * (`POST /_sandbox/accounts/{email}/messages`). Seeded mail is received mail: it lands in this mailbox only
 * and is threaded by Gmail's rules for incoming mail (References/In-Reply-To + matching subject).
 */

const attachmentSchema = z.strictObject({
  filename: z.string().min(1),
  content_type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as application/pdf'),
  content_base64: z.string(),
});

const composedSchema = z.strictObject({
  from: z.string().min(1),
  to: z.array(z.string().min(1)),
  cc: z.array(z.string().min(1)).optional(),
  /** Only kept on SENT/DRAFT seeds: a recipient never sees the Bcc header. */
  bcc: z.array(z.string().min(1)).optional(),
  subject: z.string(),
  text: z.string().optional(),
  html: z.string().optional(),
  /** RFC 3339; the Date header keeps its offset. Defaults to now. */
  date: z.iso.datetime({ offset: true }).optional(),
  /** System label ids (INBOX, STARRED ...) or user label names (created on first use). */
  labels: z.array(z.string().min(1)).optional(),
  attachments: z.array(attachmentSchema).optional(),
  message_id: z.string().min(1).optional(),
  in_reply_to: z.string().min(1).optional(),
  references: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  /** Reply to a message already in the mailbox (its Gmail id or Message-ID): fills In-Reply-To/References. */
  thread_with: z.string().min(1).optional(),
});

const rawSchema = z.strictObject({
  /** base64url (or base64) RFC 2822 message, stored as is. */
  raw: z.string().min(1),
  labels: z.array(z.string().min(1)).optional(),
});

export const gmailSeedFields = {
  messages: z.array(z.union([composedSchema, rawSchema])).optional(),
};

const gmailSeedSchema = z.object(gmailSeedFields); // not strict: callers pass whole account specs

export type GmailSeed = z.infer<typeof gmailSeedSchema>;
type ComposedSeed = z.infer<typeof composedSchema>;
type RawSeed = z.infer<typeof rawSchema>;

type Step = { ok: true; msg: StoredMessage } | { ok: false; message: string };

/**
 * Creates the account's mailbox if needed and adds the seed's messages, all or nothing: the work happens on
 * a copy that replaces the mailbox only when every message went in.
 */
export function seedMailbox(world: World, account: Account, seed: GmailSeed): { ok: true; ids: string[] } | { ok: false; message: string } {
  const parsed = gmailSeedSchema.safeParse(seed);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const key = accountKey(account.email);
  const existing = world.gmail.mailboxes.get(key);
  const mb = existing ? cloneMailbox(existing) : createMailbox(account.email, world.random);
  const ids: string[] = [];
  for (const [i, m] of (parsed.data.messages ?? []).entries()) {
    const step = 'raw' in m ? seedRaw(world, mb, m) : seedComposed(world, account, mb, m);
    if (!step.ok) return { ok: false, message: `messages.${i}: ${step.message}` };
    ids.push(step.msg.id);
  }
  world.gmail.mailboxes.set(key, mb);
  return { ok: true, ids };
}

/** System label ids match case-insensitively; anything else names a user label, created on first use. */
function resolveLabels(mb: Mailbox, labels: readonly string[] | undefined): string[] {
  return (labels ?? ['INBOX', 'UNREAD']).map((l) => (SYSTEM_LABEL_IDS.has(l.toUpperCase()) ? l.toUpperCase() : userLabelByName(mb, l, true)!.id));
}

function seedRaw(world: World, mb: Mailbox, m: RawSeed): Step {
  const bytes = decodeBase64Any(m.raw);
  if (!bytes) return { ok: false, message: 'raw: not base64url' };
  const raw = toCrlf(bytes.toString('latin1'));
  const { fields } = splitHeaders(raw);
  if (!fields.length) return { ok: false, message: 'raw: not an RFC 2822 message (no header fields)' };
  const dateField = findField(fields, 'date');
  const date = dateField ? Date.parse(rawValue(dateField)) : NaN;
  const internalDate = Number.isNaN(date) ? world.clock.now() : date;
  return { ok: true, msg: storeMessage(mb, world.random, raw, { labelIds: resolveLabels(mb, m.labels), internalDate, threading: 'headers' }) };
}

/** Each entry must be (or contain) valid addresses; the first unusable one is named. */
function addressList(values: readonly string[], what: string): { ok: true; list: EmailAddress[] } | { ok: false; message: string } {
  const list: EmailAddress[] = [];
  for (const v of values) {
    const { addresses, invalid } = parseAddressList(v);
    if (invalid || !addresses.length) return { ok: false, message: `${what}: "${v}" is not an email address` };
    list.push(...addresses);
  }
  return { ok: true, list };
}

const bracket = (id: string) => `<${normalizeMessageId(id)}>`;

interface ReplyHeaders {
  inReplyTo: string | undefined;
  references: string[] | undefined;
  /** The message `thread_with` named, which the seed must end up threaded with. */
  target: StoredMessage | undefined;
}

/** In-Reply-To/References as given, or derived from the `thread_with` message like a mail client would. */
function replyHeaders(mb: Mailbox, account: Account, m: ComposedSeed): ReplyHeaders | string {
  const references = typeof m.references === 'string' ? parseMessageIds(m.references) : m.references?.map(normalizeMessageId);
  if (m.thread_with === undefined) return { inReplyTo: m.in_reply_to, references, target: undefined };
  const target = mb.messages.get(m.thread_with) ?? lastByRfcId(mb, normalizeMessageId(m.thread_with));
  if (!target) return `thread_with: no message ${m.thread_with} in ${account.email}'s mailbox`;
  if (!target.rfcMessageId) return `thread_with: message ${m.thread_with} has no Message-ID to reply to`;
  const targetReferences = findField(target.mime.fields, 'references');
  return {
    inReplyTo: m.in_reply_to ?? target.rfcMessageId,
    references: references ?? [...parseMessageIds(targetReferences ? rawValue(targetReferences) : undefined), target.rfcMessageId],
    target,
  };
}

function seedComposed(world: World, account: Account, mb: Mailbox, m: ComposedSeed): Step {
  const lists: EmailAddress[][] = [];
  for (const [values, what] of [
    [[m.from], 'from'],
    [m.to, 'to'],
    [m.cc ?? [], 'cc'],
    [m.bcc ?? [], 'bcc'],
  ] as const) {
    const r = addressList(values, what);
    if (!r.ok) return r;
    lists.push(r.list);
  }
  const [from = [], to = [], cc = [], bcc = []] = lists;
  const sender = from[0]!;

  const attachments = [];
  for (const [i, a] of (m.attachments ?? []).entries()) {
    const content = decodeBase64Any(a.content_base64);
    if (!content) return { ok: false, message: `attachments.${i}.content_base64: not base64` };
    attachments.push({ filename: a.filename, contentType: a.content_type.toLowerCase(), content });
  }
  const reply = replyHeaders(mb, account, m);
  if (typeof reply === 'string') return { ok: false, message: reply };

  const labelIds = resolveLabels(mb, m.labels);
  // Mail the account sent itself carries no delivery trace, and is the only place a Bcc header survives.
  const outgoing = labelIds.includes('SENT') || labelIds.includes('DRAFT');
  const dateMs = m.date ? Date.parse(m.date) : world.clock.now();
  const list = (addresses: EmailAddress[]) => addresses.map(formatAddress).join(', ');
  const headers: [string, string][] = [];
  if (!outgoing) headers.push(['Delivered-To', account.email]);
  headers.push(['From', formatAddress(sender)]);
  if (to.length) headers.push(['To', list(to)]);
  if (cc.length) headers.push(['Cc', list(cc)]);
  if (outgoing && bcc.length) headers.push(['Bcc', list(bcc)]);
  headers.push(['Subject', m.subject]);
  headers.push(['Date', formatMailDate(dateMs, m.date ? rfc3339OffsetMinutes(m.date) : 0)]);
  headers.push(['Message-ID', m.message_id ? bracket(m.message_id) : `<${world.random.string(32, ALPHABETS.alnum)}@${sender.address.split('@')[1]}>`]);
  if (reply.inReplyTo) headers.push(['In-Reply-To', bracket(reply.inReplyTo)]);
  if (reply.references?.length) headers.push(['References', reply.references.map(bracket).join(' ')]);

  const raw = composeMessage({ headers, text: m.text, html: m.html, attachments, boundary: () => `0000000000${world.random.hex(18)}` });
  const msg = storeMessage(mb, world.random, raw, { labelIds, internalDate: dateMs, threading: 'headers' });
  if (reply.target && msg.threadId !== reply.target.threadId) {
    return {
      ok: false,
      message: `thread_with: subject "${m.subject}" does not match "${reply.target.subject}"; Gmail only threads replies whose subject matches`,
    };
  }
  return { ok: true, msg };
}

function lastByRfcId(mb: Mailbox, rfcId: string): StoredMessage | undefined {
  const ids = mb.byRfcId.get(rfcId) ?? [];
  return ids.length ? mb.messages.get(ids[ids.length - 1]!) : undefined;
}
