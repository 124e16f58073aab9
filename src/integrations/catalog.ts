import type { IntegrationId } from '../core/integrations';

/** What the Hub asks for when connecting each integration, and how the contract names a scope. */

const GOOGLE_SCOPE_PREFIX = 'https://www.googleapis.com/auth/';
export const googleScope = (short: string) => `${GOOGLE_SCOPE_PREFIX}${short}`;

export interface IntegrationSpec {
  id: IntegrationId;
  displayName: string;
  /** The least-privilege scopes requested on connect; a grant missing any of them is `insufficient_scopes`. */
  scopes: readonly string[];
}

export const INTEGRATIONS: Readonly<Record<IntegrationId, IntegrationSpec>> = {
  google_calendar: {
    id: 'google_calendar',
    displayName: 'Google Calendar',
    scopes: [googleScope('calendar.readonly'), googleScope('calendar.events')],
  },
  google_gmail: {
    id: 'google_gmail',
    displayName: 'Gmail',
    scopes: [googleScope('gmail.send'), googleScope('gmail.readonly'), googleScope('gmail.modify')],
  },
};

/** Google reports full scope URLs; the contract shows the short form ("calendar.readonly"). */
export const shortScope = (scope: string) => (scope.startsWith(GOOGLE_SCOPE_PREFIX) ? scope.slice(GOOGLE_SCOPE_PREFIX.length) : scope);
