import type { Capability, ProviderId } from './capabilities';
import type { IntegrationSpec } from './provider';

/**
 * Which connected provider answers a capability for one call (a customer or end user may connect Google,
 * Microsoft or both per capability). Pure and vendor-neutral: the caller hands in what the call can see and gets a
 * connection back, or the refusal it must turn into INTEGRATION_NOT_CONNECTED. The precedence, first rule first:
 *
 * 1. The agent's pin (`provider` input): only that provider's connections count. None of them → refused, naming
 *    only the pinned provider's integrations (the call asked for exactly that one; the others would not do).
 * 2. The end user's own connections over the customer-wide ones: when the call names an end user who connected any
 *    provider for the capability, only their own connections count. This keeps today's Google rule
 *    (CredentialStore.resolve: the user's row, else the customer's) and extends it across providers — a person who
 *    connected their own Outlook is not answered from the company's Google account.
 * 3. One connected (among those left) → that one.
 * 4. Several → the customer's default for the capability (the first connected, changeable through the admin API),
 *    when one of them is of that provider.
 * 5. No default recorded (or the default's provider is not among them) → the first connected, by earliest
 *    `connectedAt` — the same "first connected wins" the default itself records at connect (CapabilityDefaults.claim),
 *    for rows older than the defaults table. Ties go to the integration listed first in `offered`.
 *
 * Nothing left at step 2 → refused, naming every integration that would do for the capability.
 * "Usable" is the caller's judgement (a connection it could call with); an expired one the caller wants to report as
 * INTEGRATION_EXPIRED rather than pass over is its own business before or after this choice.
 */

/** One connection the call may use, in the vendor-neutral words the choice needs. */
export interface CandidateConnection {
  provider: ProviderId;
  /** The integration's id (google_calendar, outlook_calendar…). */
  integration: string;
  /** `user`: the end user's own connection; `customer`: the customer-wide one. */
  source: 'user' | 'customer';
  /** When the connection was first made (its row's creation). */
  connectedAt: Date;
}

export interface ProviderChoiceInput<C extends CandidateConnection> {
  capability: Capability;
  /** Every integration the Hub offers (any capability: those of other capabilities are ignored), in display order. */
  offered: readonly Pick<IntegrationSpec, 'id' | 'provider' | 'capability'>[];
  /** The usable connections visible to the call; those of integrations not serving `capability` are ignored. */
  connections: readonly C[];
  /** The customer's default provider for the capability, or null when none is recorded. */
  defaultProvider: ProviderId | null;
  /** The provider the agent pinned for this call, or null. */
  pin: ProviderId | null;
}

/** Why the connection was chosen: which rule of the precedence decided. */
export type ChoiceReason = 'pinned' | 'only_connected' | 'default' | 'first_connected';

export type ProviderChoice<C extends CandidateConnection> =
  | { ok: true; connection: C; reason: ChoiceReason }
  | {
      ok: false;
      code: 'INTEGRATION_NOT_CONNECTED';
      /** Every integration that would do (the pinned provider's only, when pinned), in `offered` order. */
      integrations: string[];
      /** The pin that could not be honoured, or null when nothing at all is connected. */
      pinned: ProviderId | null;
    };

export function chooseProvider<C extends CandidateConnection>(input: ProviderChoiceInput<C>): ProviderChoice<C> {
  const serving = input.offered.filter((spec) => spec.capability === input.capability);
  const order = new Map<string, number>(serving.map((spec, i) => [spec.id, i]));
  const usable = input.connections.filter((c) => order.has(c.integration));

  const candidates = input.pin === null ? usable : usable.filter((c) => c.provider === input.pin);
  if (candidates.length === 0) {
    const would = input.pin === null ? serving : serving.filter((spec) => spec.provider === input.pin);
    return { ok: false, code: 'INTEGRATION_NOT_CONNECTED', integrations: would.map((spec) => spec.id), pinned: input.pin };
  }

  const own = candidates.filter((c) => c.source === 'user');
  const left = own.length > 0 ? own : candidates;
  // Earliest first: decides step 5, and which row answers when one provider still has several.
  const byAge = [...left].sort((a, b) => a.connectedAt.getTime() - b.connectedAt.getTime() || order.get(a.integration)! - order.get(b.integration)!);
  const first = byAge[0]!;

  if (input.pin !== null) return { ok: true, connection: first, reason: 'pinned' };
  if (new Set(byAge.map((c) => c.provider)).size === 1) return { ok: true, connection: first, reason: 'only_connected' };
  const byDefault = byAge.find((c) => c.provider === input.defaultProvider);
  if (byDefault) return { ok: true, connection: byDefault, reason: 'default' };
  return { ok: true, connection: first, reason: 'first_connected' };
}
