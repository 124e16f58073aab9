import type { AnyTool } from '../types';
import { calendarCreateEvent } from './create-event';
import { calendarDeleteEvent } from './delete-event';
import { calendarFindOptimalTimes } from './find-optimal-times';
import { calendarGetAvailability } from './get-availability';
import { calendarListCalendars } from './list-calendars';
import { calendarUpdateEvent } from './update-event';

/** The contract's five Google Calendar tools, and calendar_list_calendars (the ids the others take). */
export const CALENDAR_TOOLS: readonly AnyTool[] = [
  calendarGetAvailability,
  calendarCreateEvent,
  calendarUpdateEvent,
  calendarDeleteEvent,
  calendarFindOptimalTimes,
  calendarListCalendars,
];
