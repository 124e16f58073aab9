import { z } from 'zod';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import { invalidInputs } from '../../core/validation';
import { googleScope } from '../../integrations/integrations';
import { type ToolContext, defineTool } from '../types';
import { type GoogleEventBody, checkTimes, toGoogleEventBody } from './event-input';
import { getEvent } from './google';
import { type GuestEntry, rewriteGuestList } from './guest-list';
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
import { type GoogleEvent, eventResultSchema, googleEventSchema, toEventResult } from './mapping';
import { createdRecently, settle } from './settle';

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
});

type Input = z.infer<typeof input>;

/** Read → patch rounds when the event keeps changing between the two (Google's 412 to If-Match). */
const GUEST_LIST_TRIES = 3;

export const calendarUpdateEvent = defineTool({
  name: 'calendar_update_event',
  version: '1.0.0',
  description:
    'Change an existing Google Calendar event: only the fields given in `updates` change (title, start, end, ' +
    'description, location, attendees). `attendees` is the complete new guest list: guests left out are removed, ' +
    'guests who stay keep their replies (accepted/declined/tentative), new guests are invited. Attendees are ' +
    'emailed about the change unless send_notifications is false. Returns the event in the same shape as ' +
    'calendar_create_event. An unknown event_id fails with RESOURCE_NOT_FOUND.',
  integration: 'google_calendar',
  requiredScopes: [googleScope('calendar.events')],
  sideEffects: 'writes',
  destructive: true,
  input,
  output: eventResultSchema,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    const justCreated = await createdRecently(ctx, calendarId, args.event_id);
    const { attendees } = args.updates;
    const patched =
      attendees === undefined
        ? await settle(ctx, justCreated, () => patchEvent(ctx, args, calendarId, toGoogleEventBody(args.updates)))
        : await patchGuestList(ctx, args, calendarId, attendees, justCreated);
    return patched.ok ? ok(toEventResult(patched.value)) : fail(inCallerTerms(patched.error, args, calendarId));
  },
});

/**
 * A new guest list that keeps the replies: read the event, write the list rebuilt from what Google holds
 * (guest-list.ts) only if the event is still the version read (If-Match, Google's "conditional modification",
 * https://developers.google.com/calendar/api/guides/version-resources). If someone answered or edited in
 * between, Google answers 412 and the list is read and rebuilt again; a change that keeps racing is CONFLICT.
 */
async function patchGuestList(ctx: ToolContext, args: Input, calendarId: string, emails: string[], justCreated: boolean): Promise<Result<GoogleEvent>> {
  for (let round = 1; round <= GUEST_LIST_TRIES; round++) {
    const current = await settle(ctx, justCreated, () => getEvent(ctx, calendarId, args.event_id));
    if (!current.ok) return current;
    const body = { ...toGoogleEventBody(args.updates), attendees: rewriteGuestList(current.value.attendees ?? [], emails) };
    const patched = await settle(ctx, justCreated, () => patchEvent(ctx, args, calendarId, body, current.value.etag));
    if (patched.ok || !changedMeanwhile(patched.error)) return patched;
  }
  return fail(
    hubError('CONFLICT', 'The event kept changing while its guest list was being updated; try again', {
      retryable: true,
      details: { reason: 'concurrent_change', event_id: args.event_id },
    }),
  );
}

const changedMeanwhile = (error: HubError) => error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 412;

async function patchEvent(
  ctx: ToolContext,
  args: Input,
  calendarId: string,
  body: GoogleEventBody | (Omit<GoogleEventBody, 'attendees'> & { attendees: GuestEntry[] }),
  etag?: string,
): Promise<Result<GoogleEvent>> {
  // The same patch sent again ends in the same state (with If-Match: a 412, and a fresh read): safe to retry.
  const patched = await ctx.callGoogle({ integration: 'google_calendar', operation: 'calendar.events.patch', idempotent: true }, (signal, auth) =>
    ctx.google
      .calendar(auth)
      .events.patch(
        { calendarId, eventId: args.event_id, sendUpdates: sendUpdatesOf(args.send_notifications), requestBody: body },
        { signal, retry: false, ...(etag ? { headers: { 'If-Match': etag } } : {}) },
      ),
  );
  return patched.ok ? parseGoogle(googleEventSchema, patched.value.data, 'calendar.events.patch', ctx) : patched;
}

function inCallerTerms(error: HubError, args: Input, calendarId: string): HubError {
  if (error.code === 'RESOURCE_NOT_FOUND') return eventNotFound(error, args.event_id, calendarId);
  // Only one of start/end given, and with the other one as stored the event would end before it starts.
  if (error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 400 && error.details.reason === 'timeRangeEmpty') {
    return invalidInputs('calendar_update_event', [
      { path: 'inputs.updates', message: 'with this change the event would end before it starts; give both start and end' },
    ]);
  }
  return error;
}
