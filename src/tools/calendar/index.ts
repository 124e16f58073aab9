import type { AnyTool } from '../types';
import { calendarCreateEvent } from './create-event';
import { calendarDeleteEvent } from './delete-event';
import { calendarFindOptimalTimes } from './find-optimal-times';
import { calendarGetAvailability } from './get-availability';
import { calendarUpdateEvent } from './update-event';

/** The contract's five Google Calendar tools. */
export const CALENDAR_TOOLS: readonly AnyTool[] = [
  calendarGetAvailability,
  calendarCreateEvent,
  calendarUpdateEvent,
  calendarDeleteEvent,
  calendarFindOptimalTimes,
];
