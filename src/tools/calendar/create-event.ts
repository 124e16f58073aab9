import { z } from 'zod';
import type { CalendarEvent } from '../../core/calendar';
import { fail, hubError, ok } from '../../core/errors';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { checkTimes } from './event-input';
import { attendeesInput, calendarIdInput, dateTimeInput, descriptionInput, locationInput, sendNotificationsInput, titleInput } from './inputs';
import { eventResultSchema, eventTimeMs, toEventResult } from './mapping';
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
    provider: providerInput.optional(),
  })
  .superRefine((v, ctx) => {
    for (const issue of checkTimes(v.start, v.end, 'end')) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  });
type Input = z.infer<typeof input>;

/** A repeat of the create met the event it made before: the same request_id must not stand for a different event. */
const sameEvent = (event: CalendarEvent, args: Input) =>
  event.title === (args.title ?? null) && eventTimeMs(event.start) === offsetDateTimeMs(args.start) && eventTimeMs(event.end) === offsetDateTimeMs(args.end);

export const calendarCreateEvent = defineTool({
  name: 'calendar_create_event',
  version: '1.1.0',
  description:
    'Create an event on the connected calendar (Google Calendar or Outlook; default: the primary calendar) and, by default, email ' +
    'invitations to the attendees (with send_notifications false, some guests may never see the event: see that ' +
    'field). Times are RFC 3339 with an offset; end must be after start. Pass ' +
    'context.request_id and reuse it when retrying: a retried call never creates a second event. Returns the ' +
    "event id (for calendar_update_event / calendar_delete_event), its link, status and each attendee's response.",
  capability: 'calendar',
  permissions: ['calendar.write'],
  sideEffects: 'writes',
  destructive: false,
  // The id derived from the request_id (event-id.ts): a repeat meets Google's 409 and reads the event back.
  deduplicatedUpstream: true,
  input,
  output: eventResultSchema,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    let dedupKey: string | null = null;
    if (ctx.idempotencyKey !== null) {
      const derived = await ctx.settings.eventIds.derive({ customerId: ctx.customerId, userId: ctx.userId, calendarId, requestId: ctx.idempotencyKey });
      if (!derived.ok) return derived;
      dedupKey = derived.value; // null: the key is unreadable on this replica (logged); the adapter picks a random one
    }
    const created = await ctx.calendar.createEvent(
      calendarId,
      {
        title: args.title,
        start: args.start,
        end: args.end,
        ...(args.description !== undefined ? { description: args.description } : {}),
        ...(args.location !== undefined ? { location: args.location } : {}),
        ...(args.attendees !== undefined ? { attendees: args.attendees } : {}),
      },
      { dedupKey, ...(args.send_notifications !== undefined ? { notify: args.send_notifications } : {}) },
    );
    if (!created.ok) return created;
    const { event, replayed } = created.value;
    if (replayed && !sameEvent(event, args)) {
      return fail(
        hubError('CONFLICT', 'This request_id already created a different event; use a new request_id for a new event', {
          retryable: false,
          details: { reason: 'request_id_reused', event_id: event.id },
        }),
      );
    }
    return ok(toEventResult(event));
  },
});
