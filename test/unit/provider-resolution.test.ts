import { randomUUID } from 'node:crypto';
import type { ProviderId } from '../../src/core/capabilities';
import * as choice from '../../src/core/provider-choice';
import type { IntegrationId } from '../../src/core/integrations';
import { createCredentialCache } from '../../src/integrations/credential-cache';
import { resolveCapability } from '../../src/integrations/provider-resolution';
import { contractView, missingScopesError, scopesFor } from '../../src/integrations/scopes';
import { googleScopeRules } from '../../src/providers/google/scope-rules';
import type { CredentialRecord } from '../../src/store/credential-store';
import { aCredentialRecord } from '../helpers/credential-records';

/** Tools' neutral permissions judged per provider, and the capability resolution a tool call and the status share. */

const customerId = randomUUID();
const aRecord = (integration: IntegrationId, overrides: Partial<CredentialRecord> = {}): CredentialRecord =>
  aCredentialRecord({ customerId, integration, createdAt: new Date('2026-01-01T00:00:00Z'), ...overrides });

describe('scopes per provider', () => {
  test('when a tool needs calendar.write, then Google asks calendar.events and Microsoft Calendars.ReadWrite', () => {
    expect(scopesFor('google_calendar', ['calendar.write'])).toEqual(['https://www.googleapis.com/auth/calendar.events']);
    expect(scopesFor('outlook_calendar', ['calendar.write'])).toEqual(['Calendars.ReadWrite']);
  });

  test("when Google granted the broad calendar scope, then Google's rules cover calendar.readonly", () => {
    expect(googleScopeRules.grants(['https://www.googleapis.com/auth/calendar'], 'https://www.googleapis.com/auth/calendar.readonly')).toBe(true);
    expect(googleScopeRules.short('https://www.googleapis.com/auth/gmail.send')).toBe('gmail.send');
  });

  test('when an Outlook grant holds Mail.ReadWrite, then mail.read and mail.metadata are covered and mail.send is not', () => {
    const check = (permissions: Parameters<typeof scopesFor>[1]) =>
      missingScopesError({ integration: 'outlook_mail', granted: ['Mail.ReadWrite', 'User.Read'], permissions, what: 'x needs', setupUrl: () => 'https://s' });
    expect(check(['mail.read', 'mail.metadata', 'mail.modify'])).toBeNull();
    expect(check(['mail.send'])?.details).toMatchObject({ integration: 'outlook_mail', required_scopes: ['Mail.Send'], missing_scopes: ['Mail.Send'] });
  });

  test("when the catalog describes a tool, then it shows Google's integration and scopes, as the contract does", () => {
    expect(contractView('mail', ['mail.send'])).toEqual({ integration: 'google_gmail', requiredScopes: ['https://www.googleapis.com/auth/gmail.send'] });
    expect(contractView(null, [])).toEqual({ integration: null, requiredScopes: [] });
  });
});

describe('resolving a capability', () => {
  const resolve = async (rows: CredentialRecord[], options: { pin?: ProviderId | null; defaultProvider?: ProviderId | null } = {}) => {
    let defaultsAsked = 0;
    const map = new Map(rows.map((r) => [r.integration, { record: r }] as const));
    const resolution = await resolveCapability({
      capability: 'calendar',
      pin: options.pin ?? null,
      rows: async (integrations) => new Map([...map].filter(([i]) => integrations.includes(i))),
      defaultProvider: async () => {
        defaultsAsked++;
        return options.defaultProvider ?? null;
      },
    });
    return { resolution, defaultsAsked };
  };

  test('when one provider is connected, then it answers without reading the default', async () => {
    const { resolution, defaultsAsked } = await resolve([aRecord('outlook_calendar')]);
    expect(resolution).toMatchObject({ kind: 'connected', reason: 'only_connected', found: { integration: 'outlook_calendar' } });
    expect(defaultsAsked).toBe(0);
  });

  test('when both are connected, then the default decides', async () => {
    const { resolution, defaultsAsked } = await resolve([aRecord('google_calendar'), aRecord('outlook_calendar')], { defaultProvider: 'microsoft' });
    expect(resolution).toMatchObject({ kind: 'connected', reason: 'default', found: { integration: 'outlook_calendar' } });
    expect(defaultsAsked).toBe(1);
  });

  test('when a call resolves, then the choice rule runs once, the default read before it when several providers could answer', async () => {
    const chooses = jest.spyOn(choice, 'chooseProvider');
    try {
      await resolve([aRecord('google_calendar')]);
      expect(chooses).toHaveBeenCalledTimes(1);
      chooses.mockClear();
      const { resolution } = await resolve([aRecord('google_calendar'), aRecord('outlook_calendar')], { defaultProvider: 'microsoft' });
      expect(resolution).toMatchObject({ kind: 'connected', reason: 'default' });
      expect(chooses).toHaveBeenCalledTimes(1);
      expect(chooses.mock.calls[0]![0].defaultProvider).toBe('microsoft');
    } finally {
      chooses.mockRestore();
    }
  });

  test("when the end user's own Outlook expired, then it is reported expired rather than answered by the customer's Google", async () => {
    const { resolution } = await resolve([aRecord('google_calendar'), aRecord('outlook_calendar', { userId: 'u1', status: 'expired' })]);
    expect(resolution).toMatchObject({ kind: 'expired', found: { integration: 'outlook_calendar' } });
  });

  test('when the pinned provider is not connected, then the refusal names only its integrations', async () => {
    const { resolution } = await resolve([aRecord('google_calendar')], { pin: 'microsoft' });
    expect(resolution).toEqual({ kind: 'not_connected', integrations: ['outlook_calendar'], pinned: 'microsoft' });
  });
});

describe('the credential cache by capability', () => {
  test('when any integration of a capability changes, then every entry of that capability goes, its default too, and only those', () => {
    const cache = createCredentialCache(1000, () => 0);
    const google = aRecord('google_calendar');
    cache.put(customerId, null, 'google_calendar', google);
    cache.putAbsent(customerId, null, 'outlook_calendar');
    cache.putDefault(customerId, 'google_calendar', 'google');
    cache.put(customerId, null, 'google_gmail', aRecord('google_gmail'));
    expect(cache.get(customerId, null, 'outlook_calendar')).toBeNull();
    expect(cache.getDefault(customerId, 'outlook_calendar')).toBe('google');
    cache.invalidate(customerId, 'outlook_calendar');
    expect(cache.get(customerId, null, 'google_calendar')).toBeUndefined();
    expect(cache.get(customerId, null, 'outlook_calendar')).toBeUndefined();
    expect(cache.getDefault(customerId, 'google_calendar')).toBeUndefined();
    expect(cache.get(customerId, null, 'google_gmail')).toBeDefined();
  });
});
