import { SYSTEM_LABEL_IDS } from '../labels';
import type { Mailbox, StoredMessage } from '../mailbox';
import { type EmailAddress, parseAddressList, sameAddress } from '../mime/addresses';
import { findField, rawValue } from '../mime/headers';
import { isAttachment, walkParts } from '../mime/parse';
import { bodyTexts } from '../mime/text';
import { normalizeMessageId } from '../threading';
import { parseDateBound, parseSize, relativeBound } from './bounds';
import type { QueryNode } from './parse';

/**
 * Evaluates a parsed query against one message. Gmail matches whole words, not substrings ("meet" does not
 * find "meeting"), case-insensitively; a phrase or a multi-word value must appear as adjacent words.
 */

export interface MatchContext {
  mailbox: Mailbox;
  /** The mailbox owner, for `from:me` / `to:me`. */
  email: string;
  now: number;
}

interface SearchDoc {
  from: EmailAddress[];
  to: EmailAddress[];
  cc: EmailAddress[];
  bcc: EmailAddress[];
  deliveredTo: EmailAddress[];
  subject: string[];
  body: string[];
  filenames: string[];
  listId: string[];
}

export const words = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return true;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Messages never change content, so what search needs is computed once per message. */
const docs = new WeakMap<StoredMessage, SearchDoc>();

function searchDoc(msg: StoredMessage): SearchDoc {
  let doc = docs.get(msg);
  if (doc) return doc;
  const fields = msg.mime.fields;
  const addresses = (name: string) => fields.filter((f) => f.name.toLowerCase() === name).flatMap((f) => parseAddressList(rawValue(f)).addresses);
  const { plain, html } = bodyTexts(msg.mime);
  const filenames: string[] = [];
  walkParts(msg.mime, (node) => {
    if (node.filename && isAttachment(node)) filenames.push(node.filename.toLowerCase());
  });
  const listField = findField(fields, 'list-id');
  doc = {
    from: addresses('from'),
    to: addresses('to'),
    cc: addresses('cc'),
    bcc: addresses('bcc'),
    deliveredTo: addresses('delivered-to'),
    subject: words(msg.subject),
    body: words([...plain, ...html].join(' ')),
    filenames,
    listId: listField ? words(rawValue(listField)) : [],
  };
  docs.set(msg, doc);
  return doc;
}

function matchAddresses(list: readonly EmailAddress[], value: string, ctx: MatchContext): boolean {
  const v = value.toLowerCase();
  if (v === 'me') return list.some((a) => sameAddress(a.address, ctx.email));
  const needle = words(v);
  return list.some((a) => a.address.toLowerCase() === v || containsSequence(words(`${a.name} ${a.address}`), needle));
}

export function matchesQuery(node: QueryNode, msg: StoredMessage, ctx: MatchContext): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((n) => matchesQuery(n, msg, ctx));
    case 'or':
      return node.items.some((n) => matchesQuery(n, msg, ctx));
    case 'not':
      return !matchesQuery(node.item, msg, ctx);
    case 'term':
      return matchTerm(node.op, node.value, msg, ctx);
  }
}

function matchTerm(op: string | undefined, value: string, msg: StoredMessage, ctx: MatchContext): boolean {
  const doc = searchDoc(msg);
  const v = value.toLowerCase().trim();
  const has = (label: string) => msg.labelIds.includes(label);
  switch (op) {
    case undefined: {
      const needle = words(value);
      if (needle.length === 0) return true;
      const people = [...doc.from, ...doc.to, ...doc.cc, ...doc.bcc].flatMap((a) => words(`${a.name} ${a.address}`));
      return [doc.subject, doc.body, people, words(doc.filenames.join(' '))].some((h) => containsSequence(h, needle));
    }
    case 'from':
      return matchAddresses(doc.from, value, ctx);
    case 'to': // Gmail's to: also finds mail where the person was only Cc'd or Bcc'd
      return matchAddresses([...doc.to, ...doc.cc, ...doc.bcc], value, ctx);
    case 'cc':
      return matchAddresses(doc.cc, value, ctx);
    case 'bcc':
      return matchAddresses(doc.bcc, value, ctx);
    case 'deliveredto':
      return matchAddresses(doc.deliveredTo, value, ctx);
    case 'subject':
      return containsSequence(doc.subject, words(value));
    case 'list':
      return containsSequence(doc.listId, words(value));
    case 'is':
      return matchIs(v, has);
    case 'in':
      return v === 'anywhere' ? true : matchLabel(v, msg, ctx.mailbox);
    case 'label':
      return matchLabel(v, msg, ctx.mailbox);
    case 'category':
      return has(`CATEGORY_${v === 'primary' ? 'PERSONAL' : v.toUpperCase()}`);
    case 'has':
      if (v === 'attachment') return doc.filenames.length > 0;
      if (v === 'userlabels') return msg.labelIds.some((l) => ctx.mailbox.userLabels.has(l));
      if (v === 'nouserlabels') return !msg.labelIds.some((l) => ctx.mailbox.userLabels.has(l));
      return false; // has:drive, has:yellow-star ...: nothing in the sandbox carries those
    case 'filename':
      return doc.filenames.some((f) => f === v || f.endsWith(`.${v}`) || containsSequence(words(f), words(v)));
    case 'rfc822msgid':
      return msg.rfcMessageId !== undefined && msg.rfcMessageId === normalizeMessageId(value);
    case 'after':
    case 'newer':
    case 'before':
    case 'older': {
      const bound = parseDateBound(v);
      if (bound === undefined) return false;
      return op === 'after' || op === 'newer' ? msg.internalDate >= bound : msg.internalDate < bound;
    }
    case 'newer_than':
    case 'older_than': {
      const bound = relativeBound(v, ctx.now);
      if (bound === undefined) return false;
      return op === 'newer_than' ? msg.internalDate > bound : msg.internalDate < bound;
    }
    case 'larger':
    case 'size':
    case 'smaller': {
      const size = parseSize(v);
      if (size === undefined) return false;
      return op === 'smaller' ? msg.raw.length < size : msg.raw.length > size;
    }
    default:
      return false;
  }
}

function matchIs(v: string, has: (label: string) => boolean): boolean {
  switch (v) {
    case 'unread':
      return has('UNREAD');
    case 'read':
      return !has('UNREAD');
    case 'starred':
      return has('STARRED');
    case 'important':
      return has('IMPORTANT');
    default:
      return false; // is:snoozed, is:muted, is:chat ...
  }
}

/** Label names in queries are case-insensitive and write spaces and slashes as dashes (`label:my-project`). */
const labelKey = (name: string) => name.toLowerCase().replace(/[\s/]+/g, '-');

function matchLabel(v: string, msg: StoredMessage, mb: Mailbox): boolean {
  const upper = v.toUpperCase() === 'DRAFTS' ? 'DRAFT' : v.toUpperCase();
  if (SYSTEM_LABEL_IDS.has(upper)) return msg.labelIds.includes(upper);
  const key = labelKey(v);
  return msg.labelIds.some((id) => {
    const label = mb.userLabels.get(id);
    return label !== undefined && (labelKey(label.name) === key || id.toLowerCase() === v);
  });
}

/** Whether the query asks for Spam/Trash explicitly (then they are not excluded, as in Gmail's UI). */
export function mentionsSpamOrTrash(node: QueryNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.some(mentionsSpamOrTrash);
    case 'not':
      return false;
    case 'term': {
      const v = node.value.toLowerCase();
      return (node.op === 'in' && ['trash', 'spam', 'anywhere'].includes(v)) || (node.op === 'label' && ['trash', 'spam'].includes(v));
    }
  }
}
