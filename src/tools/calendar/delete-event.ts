import { z } from 'zod';
import { fail, ok } from '../../core/errors';
import { googleScope } from '../../integrations/integrations';
import { defineTool } from '../types';
import { calendarIdInput, eventIdInput, sendNotificationsInput, sendUpdatesOf } from './inputs';
import { eventNotFound } from './not-found';
import { createdRecently, settle } from './settle';

const input = z.strictObject({
  event_id: eventIdInput,
  send_notifications: sendNotificationsInput.optional(),
  calendar_id: calendarIdInput.optional(),
});

const output = z.object({
  event_id: z.string(),
  deleted: z.literal(true),
  already_deleted: z.literal(true).optional().describe('Present when the event had already been deleted before this call.'),
});

export const calendarDeleteEvent = defineTool({
  name: 'calendar_delete_event',
  version: '1.0.0',
  description:
    'Delete (cancel) a Google Calendar event by its event_id; attendees are emailed a cancellation unless ' +
    'send_notifications is false. Deleting an event that is already deleted succeeds with already_deleted: true; ' +
    'an unknown event_id fails with RESOURCE_NOT_FOUND.',
  integration: 'google_calendar',
  requiredScopes: [googleScope('calendar.events')],
  sideEffects: 'writes',
  destructive: true,
  input,
  output,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    // Deleting twice ends in the same state (Google answers 410 the second time): safe to retry. Right after
    // this Hub created the event, Google's 404 may be its lag (settle.ts).
    const deleted = await settle(ctx, await createdRecently(ctx, calendarId, args.event_id), () =>
      ctx.callGoogle({ integration: 'google_calendar', operation: 'calendar.events.delete', idempotent: true }, (signal, auth) =>
        ctx.google
          .calendar(auth)
          .events.delete({ calendarId, eventId: args.event_id, sendUpdates: sendUpdatesOf(args.send_notifications) }, { signal, retry: false }),
      ),
    );
    if (deleted.ok) return ok({ event_id: args.event_id, deleted: true as const });
    const { error } = deleted;
    if (error.code !== 'RESOURCE_NOT_FOUND') return deleted;
    // Google keeps a deleted event's id and answers 410 Gone for it; 404 means it never existed (here).
    if (error.details?.upstream_status === 410) return ok({ event_id: args.event_id, deleted: true as const, already_deleted: true as const });
    return fail(eventNotFound(error, args.event_id, calendarId));
  },
});
