import { setTimeout as sleep } from 'node:timers/promises';
import type { OutgoingMail, ReplyTarget, SentLookup, SentRef } from '../../core/mail';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import { GRAPH_ID, type MailContext, hasAnyScope, messagePath, notFound, notFoundAs, odataString } from './mail-context';
import { messageListSchema, messageSchema, noContent } from './mail-schemas';

/**
 * Sending on Outlook at most once. Graph has two ways to send: `sendMail` answers 202 with no body and no id
 * (user-sendmail), so after a failure nothing can be looked up — unusable here. The other is a draft, then
 * `POST /me/messages/{id}/send`, which is what this does:
 *
 * 1. The draft carries the Hub's marker twice: an `X-Hub-Send-Id` internet header (what recipients see, as on
 *    Gmail) and a single-value extended property in the Hub's own property set, because the copy in Sent Items
 *    keeps no internet headers (Microsoft, microsoftgraph/microsoft-graph-docs#2716) while an extended property
 *    stays with the item and `$filter` finds it (singlevaluelegacyextendedproperty-get). A reply is drafted with
 *    `createReply`, so Exchange threads it (conversationId, In-Reply-To, References) — Graph refuses those headers
 *    when set directly.
 * 2. The draft is sent. Its immutable id is the id of its copy in Sent Items (outlook-immutable-id, "Immutable
 *    ID with sending mail"), so after an uncertain failure (5xx, timeout, dropped connection) the Hub reads that
 *    id: not a draft any more → sent; gone → on its way: unknown until it arrives. Still a draft says less than it
 *    seems: transport leaves a submitted message in Drafts until it takes it, all after the send's 202
 *    (outlook-things-to-know-about-send-mail, steps 2–4), and a 5xx can come back for a send that goes ahead
 *    (Microsoft Q&A 2286986: "fails with 504, but messages get queued and sent"). So the Hub waits a little for it
 *    to leave Drafts, and otherwise says unknown — never "not sent" on the strength of a draft.
 * 3. findSent looks the marker up: a sent copy (any folder) → found. Only a draft, or nothing at all, within
 *    `sentItemsSettleMs` of the first attempt → the send may be in transit, so the lookup answers `pending` (with
 *    when to look again) rather than "absent", which would invite a second send — sending a draft transport has
 *    not taken yet is undocumented and may deliver it twice. After that, a draft is one Graph never took: it is
 *    remembered so send() sends that same draft instead of drafting a second (a crash between the two steps).
 *    A draft this adapter itself saw refused (a 4xx: nothing submitted) is "absent" at once.
 */

export const SEND_ID_HEADER = 'X-Hub-Send-Id';
/** A property set only the Hub writes (extended-properties-overview: `{type} {guid} Name {name}`). */
export const SEND_ID_PROPERTY = 'String {0d7f3a2c-5e91-4b6a-8c3d-2f4e6a8b1c90} Name HubSendId';

const MARKER = /^[A-Za-z0-9_-]{1,128}$/;
const DEFAULT_SETTLE_MS = 60_000;
/** Exchange's clock against the Hub's: a copy stamped a little before the recorded start still counts. */
const CLOCK_SKEW_MS = 2 * 60_000;
/** After a send Graph did not confirm, how long the Hub waits for the copy to reach Sent Items within the call. */
const ARRIVAL_WAITS_MS = [1000, 2000];

/** Drafts found carrying a marker, by marker: what send() sends instead of a new draft. Per adapter instance. */
export type PendingDrafts = Map<string, { id: string; conversationId: string }>;

const READ_SCOPES = ['mail.read', 'mail.readwrite'];

/** Mail.ReadBasic reads "except body, previewBody, attachments and any extended properties": not enough to find a marker. */
export const canVerifySends = (ctx: MailContext) => hasAnyScope(ctx.connection.scopes, READ_SCOPES);

const recipients = (list: OutgoingMail['to']) => list.map((r) => ({ emailAddress: { address: r.address, ...(r.name ? { name: r.name } : {}) } }));

/** Whether a failure leaves the request's effect unknown: Graph failed (5xx) or did not answer at all. */
const uncertain = (e: HubError) =>
  e.details?.outcome === 'unknown' ||
  (e.code === 'EXTERNAL_API_ERROR' &&
    ((typeof e.details?.upstream_status === 'number' && e.details.upstream_status >= 500) ||
      e.details?.reason === 'timeout' ||
      e.details?.reason === 'network'));

/** A send whose outcome the Hub cannot know (yet): `verification` says why. */
const outcomeUnknown = (e: HubError, verification: string): HubError => ({
  ...e,
  details: { ...e.details, outcome: 'unknown', verification },
});

async function createDraft(
  ctx: MailContext,
  mail: OutgoingMail,
  marker: string,
  reply: ReplyTarget | null,
): Promise<Result<{ id: string; conversationId: string }>> {
  const message = {
    subject: mail.subject,
    body: { contentType: mail.bodyType === 'html' ? 'HTML' : 'Text', content: mail.body },
    toRecipients: recipients(mail.to),
    ccRecipients: recipients(mail.cc),
    bccRecipients: recipients(mail.bcc),
    internetMessageHeaders: [{ name: SEND_ID_HEADER, value: marker }],
    singleValueExtendedProperties: [{ id: SEND_ID_PROPERTY, value: marker }],
  };
  if (reply && !GRAPH_ID.test(reply.messageId)) return fail(notFound('message', reply.messageId));
  const made = reply
    ? await ctx.graph(
        { operation: 'messages.createReply', idempotent: false },
        { method: 'POST', path: `${messagePath(reply.messageId)}/createReply`, body: { message } },
        messageSchema,
      )
    : await ctx.graph({ operation: 'messages.create', idempotent: false }, { method: 'POST', path: '/me/messages', body: message }, messageSchema);
  if (!made.ok) {
    if (reply && made.error.code === 'RESOURCE_NOT_FOUND') return fail(notFoundAs(made.error, 'message', reply.messageId));
    // Writing a draft sends nothing: at most a draft exists, which findSent finds and send() then sends. Said
    // plainly (outcome not_sent, Graph's status left out of the details), so the tool does not ask Sent Items
    // about a message that cannot have gone out. This answer reaches the caller as it is, so it carries only what
    // the contract's envelope documents for a send (error-details.ts): `verification` says why an outcome stays
    // unknown, and this one is known.
    if (!uncertain(made.error)) return made;
    const { upstream_status: _status, ...details } = made.error.details ?? {};
    return fail({ ...made.error, details: { ...details, outcome: 'not_sent' } });
  }
  return ok({ id: made.value.id, conversationId: made.value.conversationId ?? '' });
}

/** The marker's draft after a send Graph did not confirm: sent, or (still a draft, or gone) unknown after a short wait. */
async function afterUncertainSend(ctx: MailContext, draft: { id: string; conversationId: string }, error: HubError) {
  for (let attempt = 0; ; attempt++) {
    const got = await ctx.graph(
      { operation: 'messages.get', idempotent: true },
      { method: 'GET', path: messagePath(draft.id), query: { $select: 'id,isDraft,conversationId' } },
      messageSchema,
    );
    if (got.ok && got.value.isDraft === false) {
      ctx.logger.info(
        { upstream: error.details?.upstream_status ?? error.details?.reason },
        'Microsoft failed a send it had carried out; the message is in Sent Items',
      );
      return ok({ id: got.value.id, threadId: got.value.conversationId ?? draft.conversationId });
    }
    // Still a draft (it may be waiting for transport) or gone (on its way to Sent Items): look again shortly.
    if (!got.ok && got.error.code !== 'RESOURCE_NOT_FOUND') return fail(outcomeUnknown(error, 'failed'));
    const wait = ARRIVAL_WAITS_MS[attempt];
    if (wait === undefined || ctx.deadline.aborted) return fail(outcomeUnknown(error, 'in_transit'));
    try {
      await sleep(wait, undefined, { signal: ctx.deadline });
    } catch {
      return fail(outcomeUnknown(error, 'in_transit'));
    }
  }
}

export async function send(ctx: MailContext, pending: PendingDrafts, mail: OutgoingMail, marker: string, reply: ReplyTarget | null): Promise<Result<SentRef>> {
  if (!MARKER.test(marker)) throw new Error('send marker outside [A-Za-z0-9_-]{1,128}'); // the caller's bug, never an input
  const scopes = ctx.connection.scopes;
  if (scopes.length > 0 && !(hasAnyScope(scopes, ['mail.readwrite']) && hasAnyScope(scopes, ['mail.send']))) {
    return fail(
      hubError('INTEGRATION_PERMISSION_DENIED', 'Sending on Outlook needs Mail.ReadWrite (to draft the message, so the send can be checked) and Mail.Send', {
        details: { reason: 'insufficient_scopes', required_scopes: ['Mail.ReadWrite', 'Mail.Send'], granted_scopes: [...scopes] },
      }),
    );
  }
  let draft = pending.get(marker);
  if (!draft) {
    const made = await createDraft(ctx, mail, marker, reply);
    if (!made.ok) return made;
    draft = made.value;
  }
  const sent = await ctx.graph({ operation: 'messages.send', idempotent: false }, { method: 'POST', path: `${messagePath(draft.id)}/send` }, noContent);
  if (sent.ok) {
    pending.delete(marker);
    return ok({ id: draft.id, threadId: draft.conversationId });
  }
  // Refused (4xx, the sending limits, throttling): not sent. The draft stays, and a retry sends it.
  if (!uncertain(sent.error)) {
    pending.set(marker, draft);
    return sent;
  }
  return afterUncertainSend(ctx, draft, sent.error);
}

export async function findSent(
  ctx: MailContext,
  pending: PendingDrafts,
  markers: readonly string[],
  sinceMs: number,
  maxScan: number,
): Promise<Result<SentLookup>> {
  if (!canVerifySends(ctx)) return ok({ kind: 'unverifiable', reason: 'no_read_scope' });
  const ours = [...new Set(markers)].filter((m) => MARKER.test(m));
  const top = String(Math.max(1, Math.min(maxScan, 50)));
  const lists = await Promise.all(
    ours.map((marker) =>
      ctx.graph(
        { operation: 'messages.list', idempotent: true },
        {
          method: 'GET',
          path: '/me/messages',
          query: {
            $filter: `singleValueExtendedProperties/Any(ep: ep/id eq ${odataString(SEND_ID_PROPERTY)} and ep/value eq ${odataString(marker)})`,
            $select: 'id,conversationId,isDraft,sentDateTime',
            $top: top,
          },
        },
        messageListSchema,
      ),
    ),
  );
  const horizon = sinceMs - CLOCK_SKEW_MS;
  let more = false;
  const drafts = new Map<string, { id: string; conversationId: string }>();
  for (const [i, listed] of lists.entries()) {
    if (!listed.ok) return listed;
    more ||= !!listed.value['@odata.nextLink'];
    for (const m of listed.value.value) {
      if (m.isDraft === true) drafts.set(ours[i]!, { id: m.id, conversationId: m.conversationId ?? '' });
      else if (!m.sentDateTime || Date.parse(m.sentDateTime) >= horizon) return ok({ kind: 'found', id: m.id, threadId: m.conversationId ?? '' });
    }
  }
  if (more) return ok({ kind: 'unverifiable', reason: 'scan_limit' });
  // Drafts this adapter saw Graph refuse to send: never submitted, so sending them is safe now.
  if (drafts.size > 0 && [...drafts].every(([marker, d]) => pending.get(marker)?.id === d.id)) return ok({ kind: 'absent' });
  const settle = ctx.sentItemsSettleMs ?? DEFAULT_SETTLE_MS;
  const elapsed = ctx.now() - sinceMs;
  if (elapsed >= settle) {
    for (const [marker, d] of drafts) pending.set(marker, d);
    return ok({ kind: 'absent' });
  }
  // Not absent: a send begun moments ago may still be waiting for transport in Drafts, or on its way to Sent
  // Items, where Outlook shows it only once it arrives. Said as what it is, so the tool neither sends again nor
  // calls the lookup a failure.
  return ok({ kind: 'pending', retryAfterS: Math.max(1, Math.ceil((settle - elapsed) / 1000)) });
}
