import { loadGraphSchema, propertyType } from '../csdl/schema';
import type { World } from '../world';
import { GE, type GraphError, graphError } from './errors';
import type { Attendee, EventRec, ExtendedProperty, Recipient } from './mailbox';
import { parseDateTimeTimeZone, startOfDayIn } from './time';

/**
 * Reading an event body for create (event-post) and update (event-update): every property must exist on
 * `microsoft.graph.event` in the CSDL (OData's "does not exist on type" otherwise); read-only ones are ignored
 * as Graph ignores them; writable ones are checked and applied.
 */

const READ_ONLY = new Set([
  'id',
  'changeKey',
  'createdDateTime',
  'lastModifiedDateTime',
  'iCalUId',
  'uid',
  'webLink',
  'isOrganizer',
  'responseStatus',
  'organizer',
  'bodyPreview',
  'type',
  'seriesMasterId',
  'hasAttachments',
  'isCancelled',
  'originalStartTimeZone',
  'originalEndTimeZone',
  'isDraft',
]);
const SHOW_AS = ['free', 'tentative', 'busy', 'oof', 'workingElsewhere', 'unknown'];
const SENSITIVITY = ['normal', 'personal', 'private', 'confidential'];
const IMPORTANCE = ['low', 'normal', 'high'];

export type EventPatch = Partial<
  Pick<
    EventRec,
    | 'subject'
    | 'bodyHtml'
    | 'bodyType'
    | 'start'
    | 'end'
    | 'startZone'
    | 'endZone'
    | 'isAllDay'
    | 'showAs'
    | 'sensitivity'
    | 'location'
    | 'importance'
    | 'categories'
    | 'isReminderOn'
    | 'reminderMinutes'
    | 'transactionId'
  >
> & { attendees?: Omit<Attendee, 'response' | 'responseTime'>[]; extendedProperties?: ExtendedProperty[] };

/**
 * The id formats a single-value extended property may have (extended-properties-overview, "id formats"):
 * `{type} {proptag}`, `{type} {guid} Name {name}`, `{type} {guid} Id {hex id}`. Graph's answer to another form is not
 * documented; the sandbox refuses it with 400 BadRequest rather than storing something Exchange would not.
 */
const EXTENDED_ID =
  /^(Binary|Boolean|Currency|CLSID|Double|Integer|Long|Object|Short|String|SystemTime) (0x[0-9A-Fa-f]{4}|\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\} (Name \S.*|Id 0x[0-9A-Fa-f]+))$/;

export const isExtendedPropertyId = (id: string) => EXTENDED_ID.test(id);

/**
 * Whether two extended property ids name the same property: the type and GUID compare case-insensitively, the
 * name case-sensitively (singlevaluelegacyextendedproperty-get: "Filtering the string name (Name) in the id of an
 * extended property is case-sensitive").
 */
export function sameExtendedId(a: string, b: string): boolean {
  const split = (id: string) => {
    const m = /^(\S+ \{[^}]*\} Name )(.*)$/.exec(id);
    return m ? { head: m[1]!.toLowerCase(), name: m[2]! } : { head: id.toLowerCase(), name: '' };
  };
  const x = split(a);
  const y = split(b);
  return x.head === y.head && x.name === y.name;
}

const bad = (message: string) => graphError(400, 'ErrorInvalidRequest', message);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function readRecipient(v: unknown): Recipient | GraphError {
  const e = isObj(v) && isObj(v.emailAddress) ? v.emailAddress : undefined;
  if (!e || typeof e.address !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(e.address))
    return graphError(400, 'ErrorInvalidRecipients', 'At least one recipient is not valid., Recipient is not valid.');
  return { address: e.address, name: typeof e.name === 'string' ? e.name : e.address };
}

export function readEventBody(body: unknown, creating: boolean): EventPatch | GraphError {
  if (!isObj(body)) return GE.badRequest('Empty Payload. JSON content expected.');
  const schema = loadGraphSchema();
  const out: EventPatch = {};
  for (const [key, v] of Object.entries(body)) {
    if (key.startsWith('@odata.') || READ_ONLY.has(key)) continue;
    if (!propertyType(schema, 'microsoft.graph.event', key))
      return graphError(
        400,
        'BadRequest',
        `The property '${key}' does not exist on type 'microsoft.graph.event'. Make sure to only use property names that are defined by the type or mark the type as open type.`,
      );
    switch (key) {
      case 'subject':
        if (typeof v !== 'string') return bad('subject must be a string.');
        out.subject = v;
        break;
      case 'body':
        if (!isObj(v) || typeof v.content !== 'string') return bad('body must have content.');
        out.bodyHtml = v.content;
        out.bodyType = String(v.contentType ?? 'text').toLowerCase() === 'html' ? 'html' : 'text';
        break;
      case 'start':
      case 'end': {
        const ms = parseDateTimeTimeZone(v, key);
        if (typeof ms !== 'number') return ms;
        out[key] = ms;
        out[key === 'start' ? 'startZone' : 'endZone'] = String((v as { timeZone?: string }).timeZone || 'UTC');
        break;
      }
      case 'isAllDay':
      case 'isReminderOn':
        if (typeof v !== 'boolean') return bad(`${key} must be a boolean.`);
        out[key] = v;
        break;
      case 'reminderMinutesBeforeStart':
        if (!Number.isInteger(v)) return bad('reminderMinutesBeforeStart must be an integer.');
        out.reminderMinutes = v as number;
        break;
      case 'showAs':
      case 'sensitivity':
      case 'importance': {
        const allowed = key === 'showAs' ? SHOW_AS : key === 'sensitivity' ? SENSITIVITY : IMPORTANCE;
        if (!allowed.includes(String(v)))
          return GE.badRequest(
            `Cannot convert the literal '${String(v)}' to the expected type 'microsoft.graph.${key === 'showAs' ? 'freeBusyStatus' : key}'.`,
          );
        (out as Record<string, unknown>)[key] = v;
        break;
      }
      case 'location':
        out.location = isObj(v) && typeof v.displayName === 'string' ? v.displayName : '';
        break;
      case 'categories':
        if (!Array.isArray(v) || v.some((c) => typeof c !== 'string')) return bad('categories must be strings.');
        out.categories = v as string[];
        break;
      case 'transactionId':
        if (typeof v !== 'string') return bad('transactionId must be a string.');
        out.transactionId = v;
        break;
      case 'attendees': {
        if (!Array.isArray(v)) return bad('attendees must be an array.');
        const list: EventPatch['attendees'] = [];
        for (const a of v) {
          const r = readRecipient(a);
          if ('code' in r) return r;
          const type = isObj(a) && typeof a.type === 'string' ? a.type : 'required';
          if (!['required', 'optional', 'resource'].includes(type))
            return GE.badRequest(`Cannot convert the literal '${type}' to the expected type 'microsoft.graph.attendeeType'.`);
          list.push({ address: r.address, name: r.name, type: type as Attendee['type'] });
        }
        out.attendees = list;
        break;
      }
      case 'singleValueExtendedProperties': {
        // singlevaluelegacyextendedproperty-post-singlevalueextendedproperties: an array of { id, value }, in a new
        // or an existing event; the value is always written as a string.
        if (!Array.isArray(v)) return bad('singleValueExtendedProperties must be an array.');
        const list: ExtendedProperty[] = [];
        for (const p of v) {
          if (!isObj(p) || typeof p.id !== 'string' || typeof p.value !== 'string' || !isExtendedPropertyId(p.id))
            return GE.badRequest(`The extended property id '${isObj(p) ? String(p.id) : ''}' is not in a supported format.`);
          list.push({ id: p.id, value: p.value });
        }
        out.extendedProperties = list;
        break;
      }
      case 'recurrence':
        if (v === null) break;
        // Recurring series are outside what the sandbox emulates (README): refused rather than silently stored.
        return graphError(400, 'ErrorInvalidRequest', 'The Microsoft sandbox does not emulate recurring events (recurrence).');
      default:
        // Properties Graph accepts that change nothing the sandbox models (isOnlineMeeting, responseRequested…).
        break;
    }
  }
  if (creating && (out.start === undefined || out.end === undefined))
    return bad("Your request can't be completed. The start and end of the event are required.");
  return out;
}

/** Rules that hold for the event as it will be after create or update. */
export function checkEventShape(world: World, e: Pick<EventRec, 'start' | 'end' | 'startZone' | 'endZone' | 'isAllDay'>): GraphError | undefined {
  void world;
  // An end before the start is refused with Graph's generic validation failure, not a message naming the times
  // (reported in microsoftgraph/microsoft-graph-docs, "Graph-API issues non usefull error message").
  if (e.end < e.start) return graphError(400, 'ErrorPropertyValidationFailure', 'At least one property failed validation.');
  if (e.isAllDay && (startOfDayIn(e.start, e.startZone) !== e.start || startOfDayIn(e.end, e.endZone) !== e.end || e.end === e.start))
    // event resource, isAllDay: "If true… the start and end time must be set to midnight and be in the same time zone."
    return graphError(
      400,
      'ErrorInvalidRequest',
      "Your request can't be completed. If the event is an all-day event, the start time and end time must be set to midnight and be in the same time zone.",
    );
  return undefined;
}
