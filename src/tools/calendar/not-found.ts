import { type HubError, hubError } from '../../errors';

/** Google's 404 for an event, said in the caller's terms (which event, on which calendar), keeping Google's details. */
export const eventNotFound = (error: HubError, eventId: string, calendarId: string): HubError =>
  hubError('RESOURCE_NOT_FOUND', `No event "${eventId}" on calendar "${calendarId}" (or that calendar is not accessible to the connected account)`, {
    details: { ...error.details, event_id: eventId, calendar_id: calendarId },
  });
