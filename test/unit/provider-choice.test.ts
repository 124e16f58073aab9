import { type CandidateConnection, chooseProvider } from '../../src/core/provider-choice';
import type { ProviderId } from '../../src/core/capabilities';

/** Which connection answers a capability: the precedence of src/core/provider-choice.ts, rule by rule. */

const OFFERED = [
  { id: 'google_calendar', provider: 'google', capability: 'calendar' },
  { id: 'google_gmail', provider: 'google', capability: 'mail' },
  { id: 'outlook_calendar', provider: 'microsoft', capability: 'calendar' },
  { id: 'outlook_mail', provider: 'microsoft', capability: 'mail' },
] as const;

const INTEGRATION = { google: 'google_calendar', microsoft: 'outlook_calendar' } as const;
const conn = (provider: ProviderId, source: 'user' | 'customer', day: number): CandidateConnection => ({
  provider,
  integration: INTEGRATION[provider],
  source,
  connectedAt: new Date(Date.UTC(2026, 0, day)),
});

const choose = (connections: CandidateConnection[], options: { defaultProvider?: ProviderId | null; pin?: ProviderId | null } = {}) =>
  chooseProvider({ capability: 'calendar', offered: OFFERED, connections, defaultProvider: options.defaultProvider ?? null, pin: options.pin ?? null });

describe('nothing connected', () => {
  test('when no connection serves the capability, then it is refused naming every integration that would do', () => {
    expect(choose([])).toEqual({ ok: false, code: 'INTEGRATION_NOT_CONNECTED', integrations: ['google_calendar', 'outlook_calendar'], pinned: null });
  });

  test('when only another capability is connected, then that connection is ignored and the call refused', () => {
    const mail: CandidateConnection = { provider: 'google', integration: 'google_gmail', source: 'customer', connectedAt: new Date() };
    expect(choose([mail])).toMatchObject({ ok: false, integrations: ['google_calendar', 'outlook_calendar'] });
  });
});

describe('the pin', () => {
  test('when the pinned provider is connected, then it answers even against the default', () => {
    const google = conn('google', 'customer', 1);
    const microsoft = conn('microsoft', 'customer', 2);
    expect(choose([google, microsoft], { defaultProvider: 'google', pin: 'microsoft' })).toEqual({ ok: true, connection: microsoft, reason: 'pinned' });
  });

  test('when the pinned provider is not connected, then it is refused naming only the pinned provider’s integration', () => {
    expect(choose([conn('google', 'customer', 1)], { pin: 'microsoft' })).toEqual({
      ok: false,
      code: 'INTEGRATION_NOT_CONNECTED',
      integrations: ['outlook_calendar'],
      pinned: 'microsoft',
    });
  });

  test('when the pinned provider is connected by the end user and customer-wide, then the end user’s own answers', () => {
    const customer = conn('google', 'customer', 1);
    const own = conn('google', 'user', 5);
    expect(choose([customer, own], { pin: 'google' })).toEqual({ ok: true, connection: own, reason: 'pinned' });
  });

  test('when the pin names a provider the end user did not connect but the customer did, then the customer-wide one answers', () => {
    const customer = conn('google', 'customer', 1);
    expect(choose([conn('microsoft', 'user', 2), customer], { pin: 'google' })).toEqual({ ok: true, connection: customer, reason: 'pinned' });
  });
});

describe('the end user’s own connections', () => {
  test('when the end user connected one provider and the customer the other, then the end user’s own answers, whatever the default', () => {
    const own = conn('microsoft', 'user', 9);
    expect(choose([conn('google', 'customer', 1), own], { defaultProvider: 'google' })).toEqual({ ok: true, connection: own, reason: 'only_connected' });
  });

  test('when the end user connected both, then the default among their own answers', () => {
    const google = conn('google', 'user', 1);
    const microsoft = conn('microsoft', 'user', 2);
    expect(choose([google, microsoft, conn('google', 'customer', 0)], { defaultProvider: 'microsoft' })).toEqual({
      ok: true,
      connection: microsoft,
      reason: 'default',
    });
  });
});

describe('one or several connected', () => {
  test('when exactly one provider is connected, then it answers even when the default names the other', () => {
    const google = conn('google', 'customer', 3);
    expect(choose([google], { defaultProvider: 'microsoft' })).toEqual({ ok: true, connection: google, reason: 'only_connected' });
  });

  test('when both are connected, then the default answers', () => {
    const google = conn('google', 'customer', 1);
    const microsoft = conn('microsoft', 'customer', 2);
    expect(choose([google, microsoft], { defaultProvider: 'microsoft' })).toEqual({ ok: true, connection: microsoft, reason: 'default' });
  });

  test('when both are connected and no default is recorded, then the first connected answers', () => {
    const google = conn('google', 'customer', 4);
    const microsoft = conn('microsoft', 'customer', 2);
    expect(choose([google, microsoft])).toEqual({ ok: true, connection: microsoft, reason: 'first_connected' });
  });

  test('when both were connected at the same instant and no default is recorded, then the integration offered first answers', () => {
    const google = conn('google', 'customer', 2);
    const microsoft = conn('microsoft', 'customer', 2);
    expect(choose([microsoft, google])).toEqual({ ok: true, connection: google, reason: 'first_connected' });
  });
});
