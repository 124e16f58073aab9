import { z } from 'zod';
import { type HubError, fail, ok } from '../../core/errors';
import { invalidInputs } from '../../core/validation';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { checkTimes } from './event-input';
import { attendeesInput, calendarIdInput, dateTimeInput, descriptionInput, eventIdInput, locationInput, sendNotificationsInput, titleInput } from './inputs';
import { eventResultSchema, toEventResult } from './mapping';

const updates = z
  .strictObject({
    title: titleInput.optional(),
    start: dateTimeInput('New start').optional(),
    end: dateTimeInput('New end').optional(),
    description: descriptionInput.optional(),
    location: locationInput.optional(),
    attendees: attendeesInput
      .optional()
      .describe('The new guest list: everyone who should be invited (guests left out are removed). Guests who stay keep their replies; new ones are invited.'),
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
  provider: providerInput.optional(),
});

export const calendarUpdateEvent = defineTool({
  name: 'calendar_update_event',
  version: '1.1.0',
  description:
    'Change an existing calendar event: only the fields given in `updates` change (title, start, end, ' +
    'description, location, attendees). `attendees` is the complete new guest list: guests left out are removed, ' +
    'guests who stay keep their replies (accepted/declined/tentative), new guests are invited. Attendees are ' +
    'emailed about the change unless send_notifications is false. Returns the event in the same shape as ' +
    'calendar_create_event. An unknown event_id fails with RESOURCE_NOT_FOUND.',
  capability: 'calendar',
  permissions: ['calendar.write'],
  sideEffects: 'writes',
  destructive: true,
  input,
  output: eventResultSchema,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    const { title, start, end, description, location, attendees } = args.updates;
    const patched = await ctx.calendar.updateEvent(
      calendarId,
      args.event_id,
      {
        ...(title !== undefined ? { title } : {}),
        ...(start !== undefined ? { start } : {}),
        ...(end !== undefined ? { end } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(location !== undefined ? { location } : {}),
        ...(attendees !== undefined ? { attendees } : {}),
      },
      args.send_notifications !== undefined ? { notify: args.send_notifications } : {},
    );
    return patched.ok ? ok(toEventResult(patched.value)) : fail(inCallerTerms(patched.error));
  },
});

/** Only one of start/end given, and with the other one as stored the event would end before it starts. */
function inCallerTerms(error: HubError): HubError {
  if (error.code === 'VALIDATION_ERROR' && error.details?.reason === 'time_range_empty') {
    return invalidInputs('calendar_update_event', [
      { path: 'inputs.updates', message: 'with this change the event would end before it starts; give both start and end' },
    ]);
  }
  return error;
}
