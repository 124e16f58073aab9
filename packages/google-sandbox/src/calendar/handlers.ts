import type { ApiHandler } from '../api/types';
import { getCalendarListEntry, getSetting, listCalendarList } from './calendar-list';
import { deleteEvent } from './events-delete';
import { getEvent } from './events-get';
import { insertEvent } from './events-insert';
import { listEvents } from './events-list';
import { patchEvent, updateEvent } from './events-modify';
import { queryFreeBusy } from './freebusy';

/** The Calendar v3 methods the sandbox emulates, by Discovery method id. Others answer 501 (see dispatch). */
export const CALENDAR_HANDLERS: Record<string, ApiHandler> = {
  'calendar.freebusy.query': queryFreeBusy,
  'calendar.events.insert': insertEvent,
  'calendar.events.get': getEvent,
  'calendar.events.list': listEvents,
  'calendar.events.patch': patchEvent,
  'calendar.events.update': updateEvent,
  'calendar.events.delete': deleteEvent,
  'calendar.calendarList.list': listCalendarList,
  'calendar.calendarList.get': getCalendarListEntry,
  'calendar.settings.get': getSetting,
};
