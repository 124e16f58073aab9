import { z } from 'zod';
import type { World } from '../world';
import type { InvitationPolicy } from './state';

/**
 * The Calendar emulation's knobs in the control API: the sandbox-wide settings block of `PUT /_sandbox/settings`,
 * and each account's "Add invitations to my calendar" setting, given when the account is created.
 */

export const calendarSettingsFields = {
  /** Reads by id (404) and lists miss a newly inserted event for this long (eventual consistency). */
  calendar_propagation_delay_ms: z.number().int().min(0).max(60_000).optional(),
};

export type CalendarSettingsInput = { calendar_propagation_delay_ms?: number | undefined };

export function applyCalendarSettings(world: World, input: CalendarSettingsInput): void {
  if (input.calendar_propagation_delay_ms !== undefined) world.calendar.settings.propagationDelayMs = input.calendar_propagation_delay_ms;
}

export const describeCalendarSettings = (world: World) => ({ calendar_propagation_delay_ms: world.calendar.settings.propagationDelayMs });

/** Account fields (`POST /_sandbox/accounts`): whose invitations reach the account's calendar by themselves. */
export const invitationSeedFields = {
  add_invitations: z.enum(['everyone', 'known_senders', 'when_responded']).optional(),
  known_senders: z.array(z.email()).max(1000).optional(),
};

export type InvitationSeed = { add_invitations?: InvitationPolicy['add'] | undefined; known_senders?: string[] | undefined };

export function setInvitationPolicy(world: World, email: string, seed: InvitationSeed): void {
  if (seed.add_invitations === undefined && seed.known_senders === undefined) return;
  world.calendar.invitationPolicies.set(email.toLowerCase(), {
    add: seed.add_invitations ?? 'everyone',
    knownSenders: (seed.known_senders ?? []).map((e) => e.toLowerCase()),
  });
}
