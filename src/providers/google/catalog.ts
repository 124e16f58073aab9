import type { IntegrationSpec } from '../../core/provider';

/**
 * The integrations Google offers, and the OAuth scopes each asks for on connect: the least that lets every tool of
 * its capability work (developers.google.com/identity/protocols/oauth2/scopes). Google reports full scope URLs;
 * the contract shows the short form ("calendar.readonly").
 */

export const GOOGLE_SCOPE_PREFIX = 'https://www.googleapis.com/auth/';
export const googleScope = (short: string) => `${GOOGLE_SCOPE_PREFIX}${short}`;

export const GOOGLE_CALENDAR: IntegrationSpec = {
  id: 'google_calendar',
  provider: 'google',
  capability: 'calendar',
  displayName: 'Google Calendar',
  scopes: [googleScope('calendar.readonly'), googleScope('calendar.events')],
};

export const GOOGLE_GMAIL: IntegrationSpec = {
  id: 'google_gmail',
  provider: 'google',
  capability: 'mail',
  displayName: 'Gmail',
  scopes: [googleScope('gmail.send'), googleScope('gmail.readonly'), googleScope('gmail.modify')],
};

export const GOOGLE_INTEGRATIONS: readonly IntegrationSpec[] = [GOOGLE_CALENDAR, GOOGLE_GMAIL];
