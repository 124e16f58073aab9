import type { gmail_v1 } from 'googleapis/build/src/apis/gmail';
import { type ApiHandler, ok } from '../../api/types';
import type { StoredMessage } from '../mailbox';
import { matchesQuery, mentionsSpamOrTrash } from '../query/match';
import { parseQuery } from '../query/parse';
import { invalidArgument, isResult, mailboxFor, metadataOnly, metadataScopeForbids, stringList } from './common';

const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

/**
 * messages.list: newest first (internalDate, then arrival), Spam and Trash left out unless asked for
 * (includeSpamTrash, a TRASH/SPAM labelId, or in:trash / in:spam / in:anywhere in q).
 */
export const listMessages: ApiHandler = (call) => {
  const mb = mailboxFor(call);
  if (isResult(mb)) return mb;
  const q = typeof call.query.q === 'string' ? call.query.q : '';
  if (q && metadataOnly(call)) return metadataScopeForbids("Metadata scope does not support 'q' parameter");
  const labelIds = stringList(call.query.labelIds);
  const query = parseQuery(q);
  const includeSpamTrash =
    call.query.includeSpamTrash === true || labelIds.some((l) => l === 'SPAM' || l === 'TRASH') || mentionsSpamOrTrash(query);
  const ctx = { mailbox: mb, email: call.account.email, now: call.now };

  const matches = [...mb.messages.values()]
    .filter((m) => includeSpamTrash || !m.labelIds.some((l) => l === 'SPAM' || l === 'TRASH'))
    .filter((m) => labelIds.every((l) => m.labelIds.includes(l)))
    .filter((m) => matchesQuery(query, m, ctx))
    .sort((a, b) => b.internalDate - a.internalDate || b.seq - a.seq);

  // Page tokens are opaque 20-digit strings (like Gmail's), valid only for the listing that issued them.
  const listing = JSON.stringify([q, labelIds, includeSpamTrash]);
  let offset = 0;
  const pageToken = typeof call.query.pageToken === 'string' ? call.query.pageToken : '';
  if (pageToken) {
    const cursor = mb.pageTokens.get(pageToken);
    if (!cursor || cursor.listing !== listing) return invalidArgument('Invalid pageToken');
    offset = cursor.offset;
  }
  const requested = typeof call.query.maxResults === 'number' && call.query.maxResults > 0 ? call.query.maxResults : DEFAULT_PAGE;
  const size = Math.min(requested, MAX_PAGE);
  const page = matches.slice(offset, offset + size);

  const body: gmail_v1.Schema$ListMessagesResponse = {};
  if (page.length) body.messages = page.map((m: StoredMessage) => ({ id: m.id, threadId: m.threadId }));
  if (offset + size < matches.length) {
    const token = call.world.random.string(20, '0123456789');
    mb.pageTokens.set(token, { offset: offset + size, listing });
    body.nextPageToken = token;
  }
  body.resultSizeEstimate = matches.length;
  return ok(body);
};
