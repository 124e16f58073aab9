import { DateTime } from 'luxon';

/**
 * Gmail's search operators on Outlook: the one table. Each row says what Gmail means (support.google.com/mail/
 * answer/7190), what the Hub asks of Graph for it, or why Outlook cannot honour it — and then the Hub refuses the
 * query (VALIDATION_ERROR naming the operator) rather than answer something else. What Graph can do is what its
 * documentation says: `$search` takes KQL over the properties listed in learn.microsoft.com/graph/
 * search-query-parameter (attachment, bcc, body, cc, from, hasAttachments, importance, kind, participants,
 * received, recipients, sent, size, subject, to), `$filter` the message properties marked filterable on the
 * message resource, and a list can be limited to one folder by its path (well-known folder names, mailFolder
 * resource). docs/outlook.md's "Search on Outlook" table is rendered from these rows (search-table.ts), and
 * test/providers/microsoft/mail-search.test.ts runs every row's example against the sandbox.
 */

export type WellKnownFolder = 'inbox' | 'sentitems' | 'drafts' | 'deleteditems' | 'junkemail';

/** A condition `$filter` can state and the Hub can test on a listed message. */
export interface Cond {
  path: 'receivedDateTime' | 'isRead' | 'hasAttachments' | 'flag/flagStatus' | 'internetMessageId';
  op: 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
  value: string | boolean;
}

/** What one Gmail term becomes: KQL (and, when it can, a condition too), a condition only, or a folder. */
export type Leaf = { kind: 'kql'; kql: string; cond?: Cond } | { kind: 'cond'; cond: Cond } | { kind: 'folder'; folder: WellKnownFolder | 'anywhere' };

export interface Refusal {
  refused: string;
}

export interface TermContext {
  /** Epoch ms that relative dates (newer_than:) count back from. */
  now: number;
  /** The mailbox's own address, for `from:me`; null when the query does not need it. */
  ownAddress: string | null;
}

export interface OperatorRow {
  /** As the table shows it: `from:`, `is:unread`, `OR`, `"…"`. */
  operator: string;
  /** A query that uses it (the tests run each one). */
  example: string;
  /** What it means on Outlook, or why it is refused. */
  note: string;
  /** The operator names (lowercase, before the colon) and, for `is:`/`has:`/`in:`, the value this row answers. */
  names?: readonly string[];
  value?: string;
  refused?: true;
  translate?: (value: string, phrase: boolean, ctx: TermContext) => Leaf | Refusal;
}

const PACIFIC = 'America/Los_Angeles';
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A value as one KQL phrase. Quotes, backslashes and `*` (KQL's prefix wildcard) cannot survive inside it, and
 * none of them is indexed as a word anyway, so each becomes a space: whatever an agent writes, the value stays
 * one quoted phrase and cannot end it, add an operator or widen it.
 */
export function kqlPhrase(value: string): string | Refusal {
  const clean = value.replace(/["\\*\s]+/g, ' ').trim();
  if (!/[\p{L}\p{N}]/u.test(clean)) return { refused: `"${value.slice(0, 40)}" has no letters or digits to search for` };
  return `"${clean}"`;
}

const kql = (prefix: string, value: string): Leaf | Refusal => {
  const phrase = kqlPhrase(value);
  return typeof phrase === 'string' ? { kind: 'kql', kql: `${prefix}${phrase}` } : phrase;
};

/** `me` is the account itself (Gmail: "from:me"). */
const address = (prefix: string) => (value: string, _phrase: boolean, ctx: TermContext) =>
  kql(prefix, value.toLowerCase() === 'me' && ctx.ownAddress ? ctx.ownAddress : value);

/**
 * Gmail's date forms: YYYY/MM/DD (and YYYY-MM-DD, MM/DD/YYYY), "interpreted as midnight on that date in the PST
 * timezone", or seconds since the epoch for an exact instant (Gmail API guide "Search and filter messages").
 */
export function gmailDate(value: string): number | undefined {
  if (/^\d{1,12}$/.test(value)) return Number(value) * 1000;
  const ymd = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$/.exec(value);
  const mdy = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  const parts = ymd ? [ymd[1], ymd[2], ymd[3]] : mdy ? [mdy[3], mdy[1], mdy[2]] : undefined;
  if (!parts) return undefined;
  const dt = DateTime.fromObject({ year: Number(parts[0]), month: Number(parts[1]), day: Number(parts[2]) }, { zone: PACIFIC });
  return dt.isValid ? dt.toMillis() : undefined;
}

function dated(at: number, kqlOp: '>' | '<' | '>=', condOp: Cond['op']): Leaf {
  return { kind: 'kql', kql: `received${kqlOp}${iso(at)}`, cond: { path: 'receivedDateTime', op: condOp, value: iso(at) } };
}

const absolute =
  (kqlOp: '>' | '<', condOp: Cond['op']) =>
  (value: string): Leaf | Refusal => {
    const at = gmailDate(value);
    return at === undefined ? { refused: `"${value.slice(0, 40)}" is not a date Gmail reads (YYYY/MM/DD, MM/DD/YYYY or seconds)` } : dated(at, kqlOp, condOp);
  };

/** newer_than:/older_than: with d, m or y (Gmail: "Use d (day), m (month), or y (year)"). */
const relative =
  (kqlOp: '>=' | '<', condOp: Cond['op']) =>
  (value: string, _phrase: boolean, ctx: TermContext): Leaf | Refusal => {
    const m = /^(\d{1,5})([dmy])$/i.exec(value);
    if (!m) return { refused: `"${value.slice(0, 40)}" is not a period Gmail reads (a number then d, m or y)` };
    const unit = { d: 'days', m: 'months', y: 'years' }[m[2]!.toLowerCase() as 'd' | 'm' | 'y'];
    return dated(
      DateTime.fromMillis(ctx.now, { zone: 'UTC' })
        .minus({ [unit]: Number(m[1]) })
        .toMillis(),
      kqlOp,
      condOp,
    );
  };

const cond = (path: Cond['path'], op: Cond['op'], value: Cond['value']) => (): Leaf => ({ kind: 'cond', cond: { path, op, value } });
const folder = (f: WellKnownFolder | 'anywhere') => (): Leaf => ({ kind: 'folder', folder: f });

export const OPERATOR_TABLE: readonly OperatorRow[] = [
  {
    operator: 'words',
    example: 'numbers',
    note: "Searched in the sender, subject and body (KQL's default) and in the recipients and attachment names, as Gmail does",
  },
  { operator: '"…" (phrase)', example: '"draft numbers"', note: 'The words next to each other, as in Gmail' },
  { operator: '+word', example: '+logistics', note: 'The word itself (KQL matches whole words; Gmail does not stem it either)' },
  {
    operator: 'from:',
    names: ['from'],
    example: 'from:ben',
    note: 'Name, address or alias of the sender; `from:me` is the account',
    translate: address('from:'),
  },
  {
    operator: 'to:',
    names: ['to'],
    example: 'to:chen',
    note: "Gmail's to: also finds Cc and Bcc recipients, so this is KQL's recipients:",
    translate: address('recipients:'),
  },
  { operator: 'cc:', names: ['cc'], example: 'cc:chen', note: 'Cc recipients', translate: address('cc:') },
  { operator: 'bcc:', names: ['bcc'], example: 'bcc:ben', note: 'Bcc recipients (known only on mail the account sent)', translate: address('bcc:') },
  {
    operator: 'subject:',
    names: ['subject'],
    example: 'subject:(q3 plan)',
    note: 'Words of the subject; a ( ) group needs all of them, { } any',
    translate: (v) => kql('subject:', v),
  },
  {
    operator: 'filename:',
    names: ['filename'],
    example: 'filename:pdf',
    note: 'Attachment names (KQL attachment:); a type such as pdf matches names ending .pdf',
    translate: (v) => kql('attachment:', v),
  },
  { operator: 'OR, { }', example: '{from:chen from:it}', note: 'Either term; KQL OR. Gmail reads `a b OR c` as a AND (b OR c), and so does the Hub' },
  { operator: '-, NOT', example: 'q3 -from:ben', note: 'Excludes; KQL NOT, or the opposite condition in $filter' },
  { operator: '( )', example: '(from:ben OR from:chen) has:attachment', note: 'Groups terms' },
  {
    operator: 'after:',
    names: ['after'],
    example: 'after:2026/03/07',
    note: 'Received after midnight Pacific time of that day (as Gmail reads dates), or after a time in seconds since 1970',
    translate: absolute('>', 'gt'),
  },
  {
    operator: 'before:',
    names: ['before'],
    example: 'before:1772928000',
    note: 'Received before that day or time, read as after: reads it',
    translate: absolute('<', 'lt'),
  },
  { operator: 'newer:', names: ['newer'], example: 'newer:2026/03/08', note: 'The same as after:', translate: absolute('>', 'gt') },
  { operator: 'older:', names: ['older'], example: 'older:2026/03/07', note: 'The same as before:', translate: absolute('<', 'lt') },
  {
    operator: 'newer_than:',
    names: ['newer_than'],
    example: 'newer_than:3d',
    note: 'Received within the last days (d), months (m) or years (y)',
    translate: relative('>=', 'ge'),
  },
  {
    operator: 'older_than:',
    names: ['older_than'],
    example: 'older_than:4d',
    note: 'Received before the last days (d), months (m) or years (y)',
    translate: relative('<', 'lt'),
  },
  {
    operator: 'is:unread',
    names: ['is'],
    value: 'unread',
    example: 'is:unread',
    note: "isRead; a $filter, or checked by the Hub on a text search's results",
    translate: cond('isRead', 'eq', false),
  },
  { operator: 'is:read', names: ['is'], value: 'read', example: 'is:read from:ben', note: 'isRead', translate: cond('isRead', 'eq', true) },
  {
    operator: 'is:starred',
    names: ['is'],
    value: 'starred',
    example: 'is:starred',
    note: "Outlook's flag (Gmail's star is the flag IMAP clients see)",
    translate: cond('flag/flagStatus', 'eq', 'flagged'),
  },
  {
    operator: 'has:attachment',
    names: ['has'],
    value: 'attachment',
    example: 'has:attachment',
    note: 'hasAttachments (Outlook counts files that are not inline)',
    translate: () => ({ kind: 'kql', kql: 'hasAttachments:true', cond: { path: 'hasAttachments', op: 'eq', value: true } }),
  },
  { operator: 'in:inbox', names: ['in'], value: 'inbox', example: 'in:inbox', note: 'The Inbox folder', translate: folder('inbox') },
  { operator: 'in:sent', names: ['in'], value: 'sent', example: 'in:sent', note: 'Sent Items', translate: folder('sentitems') },
  { operator: 'in:drafts', names: ['in'], value: 'drafts', example: 'in:drafts', note: 'Drafts', translate: folder('drafts') },
  { operator: 'in:trash', names: ['in'], value: 'trash', example: 'in:trash', note: 'Deleted Items', translate: folder('deleteditems') },
  { operator: 'in:spam', names: ['in'], value: 'spam', example: 'in:spam', note: 'Junk Email', translate: folder('junkemail') },
  {
    operator: 'in:anywhere',
    names: ['in'],
    value: 'anywhere',
    example: 'in:anywhere subject:q3',
    note: 'Every folder; without it, as in Gmail, Deleted Items and Junk Email are left out',
    translate: folder('anywhere'),
  },
  {
    operator: 'rfc822msgid:',
    names: ['rfc822msgid'],
    example: 'rfc822msgid:<id@example.com>',
    note: 'internetMessageId, exactly',
    translate: (v) => messageId(v),
  },
  {
    operator: 'label:',
    names: ['label'],
    example: 'label:clients',
    refused: true,
    note: 'Gmail labels have no Outlook counterpart (folders are not labels; categories are not Gmail labels); use in:',
  },
  { operator: 'category:', names: ['category'], example: 'category:social', refused: true, note: "Gmail's inbox tabs do not exist in Outlook" },
  {
    operator: 'is:important',
    names: ['is'],
    value: 'important',
    example: 'is:important',
    refused: true,
    note: "Gmail's importance markers are its own ranking, not Outlook's importance",
  },
  {
    operator: 'is:snoozed, is:muted, is:chat',
    names: ['is'],
    value: '*',
    example: 'is:snoozed',
    refused: true,
    note: 'Gmail states with no Outlook counterpart in Graph',
  },
  {
    operator: 'has:drive, has:document, has:yellow-star, …',
    names: ['has'],
    value: '*',
    example: 'has:drive',
    refused: true,
    note: 'Gmail-only markers (Drive links, star colours, labels)',
  },
  { operator: 'in:chats, in:snoozed, …', names: ['in'], value: '*', example: 'in:snoozed', refused: true, note: 'Gmail-only places' },
  {
    operator: 'larger:, smaller:, size:',
    names: ['larger', 'smaller', 'size'],
    example: 'larger:5M',
    refused: true,
    note: "Outlook's size: is the item's size in the mailbox store, not the message's size Gmail compares: results near the limit would differ",
  },
  { operator: 'list:', names: ['list'], example: 'list:info@example.com', refused: true, note: 'Mailing-list headers are not searchable through Graph' },
  {
    operator: 'deliveredto:',
    names: ['deliveredto'],
    example: 'deliveredto:me@example.com',
    refused: true,
    note: 'The Delivered-To header is not searchable through Graph',
  },
  {
    operator: 'AROUND',
    example: 'plan AROUND 3 numbers',
    refused: true,
    note: "Proximity: KQL's NEAR is documented for SharePoint search, not for Outlook's $search",
  },
];

function messageId(value: string): Leaf | Refusal {
  const bare = value.replace(/^<|>$/g, '');
  if (!/^[\x21-\x3b\x3d\x3f-\x7e]{1,250}$/.test(bare) || bare.includes("'")) return { refused: `"${value.slice(0, 40)}" is not a Message-ID` };
  return { kind: 'cond', cond: { path: 'internetMessageId', op: 'eq', value: `<${bare}>` } };
}

/** The row for `name:value` (name lowercased): the exact `is:`/`has:`/`in:` value first, then its catch-all. */
export function rowFor(name: string, value: string): OperatorRow | undefined {
  const v = value.toLowerCase();
  const rows = OPERATOR_TABLE.filter((r) => r.names?.includes(name));
  return rows.find((r) => r.value === undefined || r.value === v) ?? rows.find((r) => r.value === '*');
}

export const AROUND_ROW = OPERATOR_TABLE.find((r) => r.operator === 'AROUND')!;
