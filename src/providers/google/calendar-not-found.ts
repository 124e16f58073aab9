import { type HubError, hubError } from '../../core/errors';

/**
 * Google's 404 for an event, said in the caller's terms (which event, on which calendar), keeping Google's details.
 * For an event this Hub created moments ago (read-after-create.ts) it says so, and a retry may succeed.
 */
export const eventNotFound = (error: HubError, eventId: string, calendarId: string): HubError =>
  error.details?.recently_created === true
    ? hubError(
        'RESOURCE_NOT_FOUND',
        `Google does not show event "${eventId}" on calendar "${calendarId}" yet, although it was created moments ago; retry shortly`,
        {
          retryable: true,
          details: { ...error.details, event_id: eventId, calendar_id: calendarId },
        },
      )
    : hubError('RESOURCE_NOT_FOUND', `No event "${eventId}" on calendar "${calendarId}" (or that calendar is not accessible to the connected account)`, {
        details: { ...error.details, event_id: eventId, calendar_id: calendarId },
      });
