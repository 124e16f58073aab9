import type { gmail_v1 } from '@googleapis/gmail';
import { type ApiHandler, ok } from '../../api/types';
import type { StoredMessage } from '../mailbox';
import { matchesQuery, mentionsSpamOrTrash } from '../query/match';
import { parseQuery } from '../query/parse';
import { invalidArgument, isResult, mailboxFor, metadataOnly, metadataScopeForbids, stringList } from './common';

const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

/**
 * Gmail documents `resultSizeEstimate` only as "Estimated total number of results", and it is publicly measured
 * to be no count: 201 for every non-empty query, at maxResults 1, 10 and 100, against true counts of 3–21
 * (openclaw/gogcli#983, 2026); 201 on every page of a 495-message folder (postalsys/emailengine#425); "201 whether
 * four messages match or four thousand" (huacnlee/omamail#188). One report saw the exact total on a single
 * page holding everything (emailengine#425), the later one did not: the sandbox gives the placeholder whenever
 * anything matches, so nothing built on it can take it for a count. 0 when nothing matches (gogcli#983).
 */
export const RESULT_SIZE_PLACEHOLDER = 201;

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
  const includeSpamTrash = call.query.includeSpamTrash === true || labelIds.some((l) => l === 'SPAM' || l === 'TRASH') || mentionsSpamOrTrash(query);
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
  body.resultSizeEstimate = matches.length === 0 ? 0 : RESULT_SIZE_PLACEHOLDER;
  return ok(body);
};
