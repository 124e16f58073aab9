/**
 * What a tool needs from a connected account, in the Hub's own words: a capability (which port it calls) and
 * least-privilege permissions. Each provider maps a permission to its own scopes (Google's
 * `calendar.events`, Graph's `Calendars.ReadWrite`); tools never name a vendor's scope.
 */

export const CAPABILITIES = ['calendar', 'mail'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const PERMISSIONS = [
  /** Free/busy, events and calendars of the account, read only. */
  'calendar.read',
  /** Create, change and delete events. */
  'calendar.write',
  /** The account's calendar settings (its time zone) — nothing else. */
  'calendar.settings.read',
  /** Headers and labels of messages, never their bodies (Gmail's gmail.metadata). */
  'mail.metadata',
  /** Messages in full, and search. */
  'mail.read',
  /** Send mail. */
  'mail.send',
  /** Change a message's state (mark it read). */
  'mail.modify',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The capability a permission belongs to. */
export const capabilityOf = (permission: Permission): Capability => (permission.startsWith('calendar.') ? 'calendar' : 'mail');

export const PROVIDER_IDS = ['google', 'microsoft'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
