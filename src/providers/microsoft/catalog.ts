import type { IntegrationSpec } from '../../core/provider';

/**
 * The integrations Microsoft offers, and the Graph permissions each asks for on connect: the least that lets every
 * tool of its capability work (learn.microsoft.com/graph/permissions-reference; each API page's permissions table).
 * All are delegated permissions a user may consent to alone — none needs an administrator unless the tenant turned
 * user consent off. `offline_access` (a refresh token) and the OpenID scopes are added to every request (scopes.ts).
 */

export const OUTLOOK_CALENDAR_SCOPES = [
  // Events: list, calendarView, create, update, delete, and getSchedule's free/busy; ReadWrite, because the tools write.
  'Calendars.ReadWrite',
  // The mailbox's time zone and working hours (GET /me/mailboxSettings); read only, never changed.
  'MailboxSettings.Read',
  // GET /me: the connected account's address and id, checked against the id_token at connect.
  'User.Read',
] as const;

export const OUTLOOK_MAIL_SCOPES = [
  // Search and read messages, and mark one read (a PATCH of isRead); includes Mail.Read and Mail.ReadBasic.
  'Mail.ReadWrite',
  // Send mail and replies; not implied by Mail.ReadWrite.
  'Mail.Send',
  // GET /me, as above.
  'User.Read',
] as const;

export const OUTLOOK_CALENDAR: IntegrationSpec = {
  id: 'outlook_calendar',
  provider: 'microsoft',
  capability: 'calendar',
  displayName: 'Outlook Calendar',
  scopes: OUTLOOK_CALENDAR_SCOPES,
};

export const OUTLOOK_MAIL: IntegrationSpec = {
  id: 'outlook_mail',
  provider: 'microsoft',
  capability: 'mail',
  displayName: 'Outlook Mail',
  scopes: OUTLOOK_MAIL_SCOPES,
};

export const MICROSOFT_INTEGRATIONS: readonly IntegrationSpec[] = [OUTLOOK_CALENDAR, OUTLOOK_MAIL];

/** Every Graph permission some Microsoft integration asks for: what an administrator approves for the whole tenant. */
export const ALL_MICROSOFT_SCOPES: readonly string[] = [...new Set(MICROSOFT_INTEGRATIONS.flatMap((i) => i.scopes))];
