import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Result, fail, hubError, ok } from '../../core/errors';
import { googleScope } from '../../integrations/integrations';
import { type ToolContext, defineTool } from '../types';
import { checkTimes, toGoogleEventBody } from './event-input';
import { attendeesInput, calendarIdInput, dateTimeInput, descriptionInput, locationInput, sendNotificationsInput, sendUpdatesOf, titleInput } from './inputs';
import { parseGoogle } from '../google-answer';
import { type EventResult, type GoogleEvent, eventResultSchema, eventTimeMs, googleEventSchema, toEventResult } from './mapping';
import { getEvent } from './google';
import { base32hex } from './event-id';
import { eventNotFound } from './not-found';
import { rememberCreated, settle } from './settle';
import { offsetDateTimeMs } from './time';

const input = z
  .strictObject({
    title: titleInput,
    start: dateTimeInput('When the event starts'),
    end: dateTimeInput('When the event ends; must be after start'),
    description: descriptionInput.optional(),
    location: locationInput.optional(),
    attendees: attendeesInput.optional(),
    send_notifications: sendNotificationsInput.optional(),
    calendar_id: calendarIdInput.optional(),
  })
  .superRefine((v, ctx) => {
    for (const issue of checkTimes(v.start, v.end, 'end')) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  });
type Input = z.infer<typeof input>;

/**
 * A retried create found its event already at Google (the deterministic id): answer with that event — unless
 * the request_id was reused for a different event, which must not silently return the first one. Google's 409
 * proves the event exists, so a 404 from the read is its lag (settle.ts), not absence.
 */
async function existingEvent(ctx: ToolContext, calendarId: string, eventId: string, args: Input): Promise<Result<EventResult>> {
  const got = await settle(ctx, true, () => getEvent(ctx, calendarId, eventId));
  if (!got.ok) return got.error.code === 'RESOURCE_NOT_FOUND' ? fail(eventNotFound(got.error, eventId, calendarId)) : got;
  const event = got;
  if (!sameEvent(event.value, args)) {
    return fail(
      hubError('CONFLICT', 'This request_id already created a different event; use a new request_id for a new event', {
        retryable: false,
        details: { reason: 'request_id_reused', event_id: eventId },
      }),
    );
  }
  return ok(toEventResult(event.value));
}

const sameEvent = (event: GoogleEvent, args: Input) =>
  event.summary === args.title && eventTimeMs(event.start) === offsetDateTimeMs(args.start) && eventTimeMs(event.end) === offsetDateTimeMs(args.end);

export const calendarCreateEvent = defineTool({
  name: 'calendar_create_event',
  version: '1.0.0',
  description:
    'Create an event on the connected Google Calendar (default: the primary calendar) and, by default, email ' +
    'invitations to the attendees (with send_notifications false, some guests may never see the event: see that ' +
    'field). Times are RFC 3339 with an offset; end must be after start. Pass ' +
    'context.request_id and reuse it when retrying: a retried call never creates a second event. Returns the ' +
    "event id (for calendar_update_event / calendar_delete_event), its link, status and each attendee's response.",
  integration: 'google_calendar',
  requiredScopes: [googleScope('calendar.events')],
  sideEffects: 'writes',
  destructive: false,
  // The id derived from the request_id (event-id.ts): a repeat meets Google's 409 and reads the event back.
  deduplicatedUpstream: true,
  input,
  output: eventResultSchema,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    let id: string | null = null;
    if (ctx.idempotencyKey !== null) {
      const derived = await ctx.settings.eventIds.derive({ customerId: ctx.customerId, userId: ctx.userId, calendarId, requestId: ctx.idempotencyKey });
      if (!derived.ok) return derived;
      id = derived.value; // null: the key is unreadable on this replica (logged); a random id below
    }
    // Without a request_id (or its key) the call still names its event: a random id (160 bits, base32hex as
    // Google requires), so the Hub's own retry after a 5xx or a timeout that Google had in fact applied meets
    // 409 `duplicate` and reads the event back instead of creating a second one. Only the agent's own repeat
    // of the whole call — a new call, a new id — can still duplicate; context.request_id closes that too.
    id ??= base32hex(randomBytes(20));
    const body = { ...toGoogleEventBody(args), id };
    // With a client-chosen id a repeat cannot duplicate the event (Google answers 409), so retrying is safe.
    const inserted = await ctx.callGoogle({ integration: 'google_calendar', operation: 'calendar.events.insert', idempotent: true }, (signal, auth) =>
      ctx.google.calendar(auth).events.insert({ calendarId, sendUpdates: sendUpdatesOf(args.send_notifications), requestBody: body }, { signal, retry: false }),
    );
    if (!inserted.ok) {
      const { error } = inserted;
      if (error.code !== 'CONFLICT' || error.details?.reason !== 'duplicate') return inserted;
      const existing = await existingEvent(ctx, calendarId, id, args);
      if (existing.ok) await rememberCreated(ctx, calendarId, id);
      return existing;
    }
    const event = parseGoogle(googleEventSchema, inserted.value.data, 'calendar.events.insert', ctx);
    if (!event.ok) return event;
    await rememberCreated(ctx, calendarId, event.value.id);
    return ok(toEventResult(event.value));
  },
});
