import { changeKey, folderId, immutableItemId, restItemId } from '../ids';
import type { World } from '../world';

/** One person's Exchange mailbox: folders, messages, calendars and events, in memory. */

export interface Recipient {
  name: string;
  address: string;
}

export interface Attachment {
  id: string;
  name: string;
  contentType: string;
  bytes: Buffer;
  isInline: boolean;
  lastModified: number;
}

export interface MessageRec {
  /** The default id: a new one each time the item moves (ids.ts). */
  restId: string;
  immutableId: string;
  folder: string;
  changeKey: string;
  created: number;
  modified: number;
  received: number;
  sent: number | null;
  subject: string;
  bodyHtml: string;
  /** The body as the sender wrote it: html or text. */
  bodyType: 'html' | 'text';
  from: Recipient | null;
  sender: Recipient | null;
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
  replyTo: Recipient[];
  isRead: boolean;
  isDraft: boolean;
  importance: 'low' | 'normal' | 'high';
  conversationId: string;
  conversationIndex: string;
  internetMessageId: string;
  categories: string[];
  flag: 'notFlagged' | 'flagged' | 'complete';
  attachments: Attachment[];
  /** Custom `x-` internet headers given when the message was created (they travel with it when it is sent). */
  headers: InternetHeader[];
  /**
   * What `$select=internetMessageHeaders` shows: a received copy's transport headers. Null on drafts and on the
   * copy in Sent Items — "internet headers just do not exist on the copy in Sent Items" (Microsoft's answer in
   * microsoftgraph/microsoft-graph-docs#2716, again #12726; microsoftgraph/msgraph-sdk-dotnet#3025).
   */
  internetHeaders: InternetHeader[] | null;
  /** Single-value extended properties (MAPI): kept by the item wherever it moves, never sent to recipients. */
  extended: ExtendedProperty[];
  /** Not yet visible where a client looks (eventual consistency) before this instant. */
  visibleAt: number;
  /** Submitted and not yet taken by transport: still a draft in Drafts until `until` (settleTransport). */
  transit?: { until: number; sentAt: number; saveToSentItems: boolean };
}

export interface InternetHeader {
  name: string;
  value: string;
}

export interface ExtendedProperty {
  id: string;
  value: string;
}

export interface Attendee {
  address: string;
  name: string;
  type: 'required' | 'optional' | 'resource';
  response: 'none' | 'organizer' | 'tentativelyAccepted' | 'accepted' | 'declined' | 'notResponded';
  responseTime: number | null;
}

export interface EventRec {
  id: string;
  immutableId: string;
  calendarId: string;
  changeKey: string;
  iCalUId: string;
  transactionId: string | null;
  created: number;
  modified: number;
  subject: string;
  bodyHtml: string;
  bodyType: 'html' | 'text';
  /** UTC instants; all-day events start and end at midnight in `startZone`. */
  start: number;
  end: number;
  startZone: string;
  endZone: string;
  isAllDay: boolean;
  showAs: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere' | 'unknown';
  sensitivity: 'normal' | 'personal' | 'private' | 'confidential';
  location: string;
  organizer: Recipient;
  attendees: Attendee[];
  isOrganizer: boolean;
  /** The attendee's own answer, on an attendee's copy. */
  response: Attendee['response'];
  responseTime: number | null;
  isCancelled: boolean;
  importance: 'low' | 'normal' | 'high';
  categories: string[];
  isReminderOn: boolean;
  reminderMinutes: number;
  visibleAt: number;
  /** Single-value extended properties the client set (MAPI named properties): only the mailbox's own copy keeps them. */
  extendedProperties?: ExtendedProperty[];
}

/** A singleValueLegacyExtendedProperty: `id` as the client wrote it ("String {guid} Name x"), its value as a string. */
export interface ExtendedProperty {
  id: string;
  value: string;
}

export interface Calendar {
  id: string;
  name: string;
  isDefault: boolean;
  color: string;
  changeKey: string;
  /** Another person's calendar shared with this mailbox: whether it may be written and re-shared, and whose it is (undefined: the mailbox's own). */
  canEdit?: boolean;
  canShare?: boolean;
  owner?: Recipient;
}

export interface Folder {
  id: string;
  wellKnown: string | null;
  displayName: string;
}

export interface Mailbox {
  userId: string;
  folders: Map<string, Folder>;
  messages: MessageRec[];
  calendars: Map<string, Calendar>;
  events: EventRec[];
  /** Recipients this mailbox sent to in the last 24 hours (Exchange's recipient rate limit). */
  sentLog: { at: number; recipients: number }[];
  /** Its messages submitted and still waiting for transport (send.ts), oldest first. */
  inTransit: MessageRec[];
}

/** The folders every mailbox has; Graph accepts these well-known names in place of their ids. */
export const WELL_KNOWN = [
  ['inbox', 'Inbox'],
  ['drafts', 'Drafts'],
  ['sentitems', 'Sent Items'],
  ['deleteditems', 'Deleted Items'],
  ['archive', 'Archive'],
  ['junkemail', 'Junk Email'],
] as const;

export function createMailbox(world: World, userId: string): Mailbox {
  const folders = new Map<string, Folder>();
  for (const [wellKnown, displayName] of WELL_KNOWN) {
    const id = folderId(world.random);
    folders.set(id, { id, wellKnown, displayName });
  }
  const calId = folderId(world.random);
  const calendars = new Map([[calId, { id: calId, name: 'Calendar', isDefault: true, color: 'auto', changeKey: changeKey(world.random) }]]);
  return { userId, folders, messages: [], calendars, events: [], sentLog: [], inTransit: [] };
}

export function folderByName(box: Mailbox, idOrName: string): Folder | undefined {
  const lower = idOrName.toLowerCase();
  for (const f of box.folders.values()) if (f.id === idOrName || f.wellKnown === lower) return f;
  return undefined;
}

export const wellKnownFolder = (box: Mailbox, name: (typeof WELL_KNOWN)[number][0]) => folderByName(box, name)!;

export const defaultCalendar = (box: Mailbox) => [...box.calendars.values()].find((c) => c.isDefault)!;

/**
 * The message an id names, once it can be seen: a message on its way to a recipient is not there yet. A sent
 * message reaches Sent Items only when transport has taken it — "Getting the message in Sent Items may not succeed
 * immediately after sending the message. The copy of the message is not created until the message successfully
 * sends" (learn.microsoft.com/graph/outlook-immutable-id, "Immutable ID with sending mail") — and until then its id
 * still names the draft (settleTransport).
 */
export function findMessage(box: Mailbox, id: string, now: number): MessageRec | undefined {
  return box.messages.find((m) => (m.restId === id || m.immutableId === id) && m.visibleAt <= now);
}

export function findEvent(box: Mailbox, id: string): EventRec | undefined {
  return box.events.find((e) => e.id === id || e.immutableId === id);
}

/** Moving changes the default id (never the immutable one) and the change key. */
export function moveMessage(world: World, m: MessageRec, folder: Folder) {
  m.folder = folder.id;
  m.restId = restItemId(world.random);
  m.changeKey = changeKey(world.random);
  m.modified = world.clock.now();
}

export function newMessageIds(world: World) {
  return { restId: restItemId(world.random), immutableId: immutableItemId(world.random), changeKey: changeKey(world.random) };
}

/**
 * Transport takes what was submitted: "the Exchange store updates the message and moves it from the Drafts folder
 * to the Sent Items folder", or deletes it when the sender asked not to keep a copy (learn.microsoft.com/graph/
 * outlook-things-to-know-about-send-mail, steps 3–4, all after the send's 202). Run before each request reads the
 * mailbox; costs nothing while nothing is in transit.
 */
export function settleTransport(world: World, box: Mailbox) {
  if (box.inTransit.length === 0) return;
  const now = world.clock.now();
  box.inTransit = box.inTransit.filter((m) => {
    const t = m.transit!;
    if (t.until > now) return true;
    delete m.transit;
    Object.assign(m, { isDraft: false, sent: t.sentAt, received: t.sentAt, isRead: true });
    if (t.saveToSentItems) moveMessage(world, m, wellKnownFolder(box, 'sentitems'));
    else box.messages.splice(box.messages.indexOf(m), 1);
    return false;
  });
}
