import { z } from 'zod';
import { ok } from '../../core/errors';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { calendarIdInput, eventIdInput, sendNotificationsInput } from './inputs';

const input = z.strictObject({
  event_id: eventIdInput,
  send_notifications: sendNotificationsInput.optional(),
  calendar_id: calendarIdInput.optional(),
  provider: providerInput.optional(),
});

const output = z.object({
  event_id: z.string(),
  deleted: z.literal(true),
  already_deleted: z.literal(true).optional().describe('Present when the event had already been deleted before this call.'),
});

export const calendarDeleteEvent = defineTool({
  name: 'calendar_delete_event',
  version: '1.1.0',
  description:
    'Delete (cancel) a calendar event by its event_id; attendees are emailed a cancellation unless ' +
    'send_notifications is false. Deleting an event that is already deleted succeeds with already_deleted: true; ' +
    'an unknown event_id fails with RESOURCE_NOT_FOUND.',
  capability: 'calendar',
  permissions: ['calendar.write'],
  sideEffects: 'writes',
  destructive: true,
  input,
  output,
  run: async (ctx, args) => {
    const calendarId = args.calendar_id ?? 'primary';
    const deleted = await ctx.calendar.deleteEvent(calendarId, args.event_id, args.send_notifications !== undefined ? { notify: args.send_notifications } : {});
    if (!deleted.ok) return deleted;
    return ok({ event_id: args.event_id, deleted: true as const, ...(deleted.value.alreadyDeleted ? { already_deleted: true as const } : {}) });
  },
});
