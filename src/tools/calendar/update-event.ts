import { z } from 'zod';
import { fail, ok } from '../../errors';
import { invalidInputs } from '../../http/validation';
import { googleScope } from '../../integrations/integrations';
import { defineTool } from '../types';
import { checkTimes, toGoogleEventBody } from './event-input';
import { eventNotFound } from './not-found';
import {
  attendeesInput,
  calendarIdInput,
  dateTimeInput,
  descriptionInput,
  eventIdInput,
  locationInput,
  sendNotificationsInput,
  sendUpdatesOf,
  titleInput,
} from './inputs';
import { parseGoogle } from '../google-answer';
import { eventResultSchema, googleEventSchema, toEventResult } from './mapping';

const updates = z
  .strictObject({
    title: titleInput.optional(),
    start: dateTimeInput('New start').optional(),
    end: dateTimeInput('New end').optional(),
    description: descriptionInput.optional(),
    location: locationInput.optional(),
    attendees: attendeesInput.optional().describe('The new guest list: replaces the current one (include everyone who should stay invited).'),
  })
  .superRefine((v, ctx) => {
    if (Object.values(v).every((x) => x === undefined)) ctx.addIssue({ code: 'custom', path: [], message: 'give at least one field to change' });
    for (const issue of checkTimes(v.start, v.end, 'end')) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  })
  .describe('Only the fields to change; the others stay as they are.');

const input = z.strictObject({
  event_id: eventIdInput,
  updates,
  send_notifications: sendNotificationsInput.optional(),
  calendar_id: calendarIdInput.optional(),
});

export const calendarUpdateEvent = defineTool({
  name: 'calendar_update_event',
  version: '1.0.0',
  description:
    'Change an existing Google Calendar event: only the fields given in `updates` change (title, start, end, ' +
    'description, location, attendees — attendees replaces the whole guest list). Attendees are emailed about ' +
    'the change unless send_notifications is false. Returns the event in the same shape as calendar_create_event. ' +
    'An unknown event_id fails with RESOURCE_NOT_FOUND.',
  integration: 'google_calendar',
  requiredScopes: [googleScope('calendar.events')],
  sideEffects: 'writes',
  input,
  output: eventResultSchema,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    // A patch sends the same fields again on a repeat: safe to retry.
    const patched = await ctx.callGoogle({ integration: 'google_calendar', operation: 'calendar.events.patch', idempotent: true }, (signal, auth) =>
      ctx.google.calendar(auth).events.patch(
        { calendarId, eventId: args.event_id, sendUpdates: sendUpdatesOf(args.send_notifications), requestBody: toGoogleEventBody(args.updates) },
        { signal, retry: false },
      ),
    );
    if (!patched.ok) {
      const { error } = patched;
      if (error.code === 'RESOURCE_NOT_FOUND') return fail(eventNotFound(error, args.event_id, calendarId));
      // Only one of start/end given, and with the other one as stored the event would end before it starts.
      if (error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 400 && error.details.reason === 'timeRangeEmpty') {
        return fail(
          invalidInputs('calendar_update_event', [
            { path: 'inputs.updates', message: 'with this change the event would end before it starts; give both start and end' },
          ]),
        );
      }
      return patched;
    }
    const event = parseGoogle(googleEventSchema, patched.value.data, 'calendar.events.patch', ctx.logger);
    return event.ok ? ok(toEventResult(event.value)) : event;
  },
});
