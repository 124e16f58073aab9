import { CALENDAR_HANDLERS } from '../calendar/handlers';
import { GMAIL_HANDLERS } from '../gmail/handlers';
import type { ApiHandler } from './types';

/** Every emulated method, by Discovery method id. Methods absent here answer 501 (not emulated). */
export const API_HANDLERS: Readonly<Record<string, ApiHandler>> = { ...CALENDAR_HANDLERS, ...GMAIL_HANDLERS };
