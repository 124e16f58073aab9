import type { Capability, ProviderId } from '../core/capabilities';
import type { IntegrationId } from '../core/integrations';
import { type CandidateConnection, type ChoiceReason, chooseProvider } from '../core/provider-choice';
import type { CredentialRecord } from '../store/credential-store';
import { OFFERED_INTEGRATIONS } from './catalog';

/**
 * Which stored connection answers a capability for one caller: the provider choice rule (src/core/provider-choice.ts)
 * applied to the rows the caller resolves to (per integration, the end user's own row, else the customer's). Shared
 * by the tool call's resolver and the status endpoint, so what the status says a capability resolves to is what a
 * call meets.
 *
 * An expired row is not usable, but it is not passed over silently either: when nothing usable is left after the pin
 * and the end user's precedence, and an expired row is, the answer is that row (INTEGRATION_EXPIRED for the caller,
 * naming what a person must reconnect) rather than "not connected" — as it was when only Google could answer.
 */

export interface Found<E> {
  integration: IntegrationId;
  entry: E;
}

export type Resolution<E> =
  | { kind: 'connected'; found: Found<E>; reason: ChoiceReason }
  | { kind: 'expired'; found: Found<E> }
  | { kind: 'not_connected'; integrations: IntegrationId[]; pinned: ProviderId | null };

interface Candidate<E> extends CandidateConnection {
  entry: E;
  usable: boolean;
}

/** The integrations serving `capability` (only the pinned provider's, when pinned), in the order refusals name them. */
export const servingIntegrations = (capability: Capability, pin: ProviderId | null): IntegrationId[] =>
  OFFERED_INTEGRATIONS.filter((s) => s.capability === capability && (pin === null || s.provider === pin)).map((s) => s.id);

export async function resolveCapability<E extends { record: CredentialRecord }>(args: {
  capability: Capability;
  pin: ProviderId | null;
  /** The caller's rows of these integrations (absent: not connected). */
  rows(integrations: readonly IntegrationId[]): Promise<ReadonlyMap<IntegrationId, E>>;
  /**
   * The customer's default provider for the capability; asked only when several providers could answer, with one of
   * their integrations (any: a default is per capability).
   */
  defaultProvider(integration: IntegrationId): Promise<ProviderId | null>;
}): Promise<Resolution<E>> {
  const { capability, pin } = args;
  const serving = servingIntegrations(capability, pin);
  const rows = await args.rows(serving);
  const all: Candidate<E>[] = serving.flatMap((integration) => {
    const entry = rows.get(integration);
    if (!entry) return [];
    const { record } = entry;
    const spec = OFFERED_INTEGRATIONS.find((s) => s.id === integration)!;
    return [
      {
        provider: spec.provider,
        integration,
        source: record.userId === null ? ('customer' as const) : ('user' as const),
        connectedAt: record.createdAt,
        entry,
        usable: record.status === 'connected',
      },
    ];
  });
  // The end user's own rows first, whatever their state: a person whose own Outlook expired is told so, not answered
  // from the company's Google account.
  const own = all.filter((c) => c.source === 'user');
  const left = own.length > 0 ? own : all;
  const choose = (connections: readonly Candidate<E>[], defaultProvider: ProviderId | null) =>
    chooseProvider({ capability, offered: OFFERED_INTEGRATIONS, connections, defaultProvider, pin });
  const found = (c: Candidate<E>): Found<E> => ({ integration: c.integration as IntegrationId, entry: c.entry });

  const usable = left.filter((c) => c.usable);
  // Several providers could answer (left holds the end user's rows or the customer's, never both): only then is the
  // customer's default worth a lookup — asked first, so that the rule runs once per call.
  const several = pin === null && new Set(usable.map((c) => c.provider)).size > 1;
  const choice = choose(usable, several ? await args.defaultProvider(usable[0]!.integration as IntegrationId) : null);
  if (choice.ok) return { kind: 'connected', found: found(choice.connection), reason: choice.reason };
  const expired = choose(left, null);
  if (expired.ok) return { kind: 'expired', found: found(expired.connection) };
  return { kind: 'not_connected', integrations: expired.integrations as IntegrationId[], pinned: expired.pinned };
}
