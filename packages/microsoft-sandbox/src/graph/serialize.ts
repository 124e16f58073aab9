import { convert } from 'html-to-text';
import type { GraphCtx } from './context';
import type { Attachment, EventRec, MessageRec, Recipient } from './mailbox';
import { formatDateTimeTimeZone, isoZ } from './time';

/**
 * Items as Graph serialises them (property names and types from the CSDL; tests check each answer). Times of
 * events come in UTC unless `Prefer: outlook.timezone` names a zone (event-get: "If not specified, those time
 * values are returned in UTC"); bodies in HTML unless `Prefer: outlook.body-content-type="text"` (message-get).
 */

export const recipient = (r: Recipient) => ({ emailAddress: { name: r.name, address: r.address } });

export const htmlToText = (html: string) => convert(html, { wordwrap: false }).trim();

/** The body as the caller prefers it; records the preference as applied. */
function body(ctx: GraphCtx, html: string, original: 'html' | 'text') {
  const wanted = ctx.prefs.get('outlook.body-content-type')?.toLowerCase();
  if (wanted === 'text' || wanted === 'html') {
    const applied = `outlook.body-content-type="${wanted}"`;
    if (!ctx.applied.includes(applied)) ctx.applied.push(applied);
  }
  const type = wanted === 'text' ? 'text' : wanted === 'html' ? 'html' : 'html';
  if (type === 'text') return { contentType: 'text', content: original === 'text' ? html : htmlToText(html) };
  return {
    contentType: 'html',
    content: original === 'text' ? `<html><body>${html.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\n/g, '<br>')}</body></html>` : html,
  };
}

export const preview = (html: string, original: 'html' | 'text') => (original === 'text' ? html : htmlToText(html)).replace(/\s+/g, ' ').slice(0, 255);

/** The zone times are written in: the Prefer header's, when it names a zone Graph knows. */
export function outputZone(ctx: GraphCtx, known: (z: string) => boolean): string {
  const asked = ctx.prefs.get('outlook.timezone');
  if (asked && known(asked)) {
    const applied = `outlook.timezone="${asked}"`;
    if (!ctx.applied.includes(applied)) ctx.applied.push(applied);
    return asked;
  }
  return 'UTC';
}

/** Graph's "no time" for a response not yet given. */
const NO_TIME = '0001-01-01T00:00:00Z';

const allDay = (ms: number, ownZone: string, label: string) => ({ dateTime: formatDateTimeTimeZone(ms, ownZone).dateTime, timeZone: label });

const itemId = (ctx: GraphCtx, rest: string, immutable: string) => (ctx.immutableIds ? immutable : rest);

/** Whether `$select` names a property (internetMessageHeaders is "Returned only on applying a $select query option"). */
const selected = (ctx: GraphCtx, property: string) =>
  String(ctx.req.query.$select ?? ctx.req.query.select ?? '')
    .split(',')
    .some((s) => s.trim().toLowerCase() === property.toLowerCase());

export function messageJson(ctx: GraphCtx, m: MessageRec, folderId: string): Record<string, unknown> {
  return {
    '@odata.etag': `W/"${m.changeKey}"`,
    id: itemId(ctx, m.restId, m.immutableId),
    createdDateTime: isoZ(m.created),
    lastModifiedDateTime: isoZ(m.modified),
    changeKey: m.changeKey,
    categories: m.categories,
    receivedDateTime: isoZ(m.received),
    sentDateTime: m.sent === null ? null : isoZ(m.sent),
    hasAttachments: m.attachments.some((a) => !a.isInline),
    internetMessageId: m.internetMessageId,
    subject: m.subject,
    bodyPreview: preview(m.bodyHtml, m.bodyType),
    importance: m.importance,
    parentFolderId: folderId,
    conversationId: m.conversationId,
    conversationIndex: m.conversationIndex,
    isDeliveryReceiptRequested: false,
    isReadReceiptRequested: false,
    isRead: m.isRead,
    isDraft: m.isDraft,
    webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(m.restId)}&exvsurl=1&viewmodel=ReadMessageItem`,
    inferenceClassification: 'focused',
    body: body(ctx, m.bodyHtml, m.bodyType),
    sender: m.sender ? recipient(m.sender) : null,
    from: m.from ? recipient(m.from) : null,
    toRecipients: m.to.map(recipient),
    ccRecipients: m.cc.map(recipient),
    bccRecipients: m.bcc.map(recipient),
    replyTo: m.replyTo.map(recipient),
    flag: { flagStatus: m.flag },
    ...(m.internetHeaders && selected(ctx, 'internetMessageHeaders') ? { internetMessageHeaders: m.internetHeaders.map((h) => ({ ...h })) } : {}),
  };
}

export function attachmentJson(a: Attachment, withBytes: boolean): Record<string, unknown> {
  return {
    '@odata.type': '#microsoft.graph.fileAttachment',
    '@odata.mediaContentType': a.contentType,
    id: a.id,
    lastModifiedDateTime: isoZ(a.lastModified),
    name: a.name,
    contentType: a.contentType,
    size: a.bytes.length,
    isInline: a.isInline,
    contentId: null,
    contentLocation: null,
    ...(withBytes ? { contentBytes: a.bytes.toString('base64') } : {}),
  };
}

export function eventJson(ctx: GraphCtx, e: EventRec, zone: string): Record<string, unknown> {
  const location = { displayName: e.location, locationType: 'default', uniqueIdType: e.location ? 'private' : 'unknown', address: {}, coordinates: {} };
  return {
    '@odata.etag': `W/"${e.changeKey}"`,
    id: itemId(ctx, e.id, e.immutableId),
    createdDateTime: isoZ(e.created),
    lastModifiedDateTime: isoZ(e.modified),
    changeKey: e.changeKey,
    categories: e.categories,
    transactionId: e.transactionId,
    originalStartTimeZone: e.startZone,
    originalEndTimeZone: e.endZone,
    iCalUId: e.iCalUId,
    reminderMinutesBeforeStart: e.reminderMinutes,
    isReminderOn: e.isReminderOn,
    hasAttachments: false,
    subject: e.subject,
    bodyPreview: preview(e.bodyHtml, e.bodyType),
    importance: e.importance,
    sensitivity: e.sensitivity,
    isAllDay: e.isAllDay,
    isCancelled: e.isCancelled,
    isOrganizer: e.isOrganizer,
    responseRequested: true,
    seriesMasterId: null,
    showAs: e.showAs,
    type: 'singleInstance',
    webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(e.id)}&exvsurl=1&path=/calendar/item`,
    onlineMeetingUrl: null,
    isOnlineMeeting: false,
    onlineMeetingProvider: 'unknown',
    allowNewTimeProposals: true,
    isDraft: false,
    hideAttendees: false,
    responseStatus: { response: e.isOrganizer ? 'organizer' : e.response, time: e.responseTime === null ? NO_TIME : isoZ(e.responseTime) },
    body: body(ctx, e.bodyHtml, e.bodyType),
    // All-day events are dates, not instants: their midnights come back as written, labelled with the zone asked
    // for (event resource: an all-day event's "start and end time must be set to midnight").
    start: e.isAllDay ? allDay(e.start, e.startZone, zone) : formatDateTimeTimeZone(e.start, zone),
    end: e.isAllDay ? allDay(e.end, e.endZone, zone) : formatDateTimeTimeZone(e.end, zone),
    location,
    locations: e.location ? [location] : [],
    recurrence: null,
    attendees: e.attendees.map((a) => ({
      type: a.type,
      status: { response: a.response, time: a.responseTime === null ? NO_TIME : isoZ(a.responseTime) },
      emailAddress: { name: a.name, address: a.address },
    })),
    organizer: recipient(e.organizer),
    onlineMeeting: null,
  };
}
