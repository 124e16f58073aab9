import { PERMISSIONS } from '../../src/core/capabilities';
import { MICROSOFT_INTEGRATIONS, OUTLOOK_CALENDAR, OUTLOOK_MAIL } from '../../src/providers/microsoft/catalog';
import {
  MICROSOFT_EXPIRING_WITHIN_MS,
  MICROSOFT_INACTIVITY_LIMIT_MS,
  microsoftGrantDeadline,
  microsoftGrantHealth,
} from '../../src/providers/microsoft/grant-lifetime';
import { grantedGraphScopes, microsoftScopeRules } from '../../src/providers/microsoft/scopes';

const { grants, scopesFor, short } = microsoftScopeRules;
const DAY = 86_400_000;

describe('Graph scope rules', () => {
  it.each([
    [['Calendars.ReadWrite'], 'Calendars.Read', true],
    [['Calendars.Read'], 'Calendars.ReadWrite', false],
    [['Calendars.ReadWrite.Shared'], 'Calendars.Read', true],
    [['Calendars.Read.Shared'], 'Calendars.ReadWrite', false],
    [['Mail.ReadWrite'], 'Mail.ReadBasic', true],
    [['Mail.Read'], 'Mail.ReadBasic', true],
    [['Mail.ReadBasic'], 'Mail.Read', false],
    [['Mail.ReadWrite'], 'Mail.Send', false],
    [['Mail.Send.Shared'], 'Mail.Send', true],
    [['Mail.ReadWrite.Shared'], 'Mail.ReadBasic', true],
    [['MailboxSettings.ReadWrite'], 'MailboxSettings.Read', true],
    [['User.ReadWrite.All'], 'User.Read', true],
    [['https://graph.microsoft.com/Mail.ReadWrite'], 'Mail.Read', true],
    [['mail.readwrite'], 'https://graph.microsoft.com/Mail.Read', true],
    [['CALENDARS.READWRITE'], 'calendars.readwrite', true],
    [['openid', 'offline_access'], 'Mail.Read', false],
  ])('when %j is granted, then %s is covered: %s', (granted, required, expected) => {
    expect(grants(granted, required)).toBe(expected);
  });

  it('when each permission of the Hub is asked for, then it maps to the least Graph permission', () => {
    expect(Object.fromEntries(PERMISSIONS.map((p) => [p, scopesFor(p)]))).toEqual({
      'calendar.read': ['Calendars.Read'],
      'calendar.write': ['Calendars.ReadWrite'],
      'calendar.settings.read': ['MailboxSettings.Read'],
      'mail.metadata': ['Mail.ReadBasic'],
      'mail.read': ['Mail.Read'],
      'mail.send': ['Mail.Send'],
      'mail.modify': ['Mail.ReadWrite'],
    });
  });

  it('when a scope carries the Graph resource prefix, then the short form drops it, in any case', () => {
    expect(short('https://graph.microsoft.com/Mail.Send')).toBe('Mail.Send');
    expect(short('HTTPS://GRAPH.MICROSOFT.COM/Mail.Send')).toBe('Mail.Send');
    expect(short('Mail.Send')).toBe('Mail.Send');
    expect(short('openid')).toBe('openid');
  });

  it("when a token answer's scope lists OIDC scopes, duplicates in other spellings or encoded names, then the granted Graph scopes come out once each", () => {
    expect(grantedGraphScopes('Calendars.ReadWrite openid profile email https://graph.microsoft.com/calendars.readwrite User.Read')).toEqual([
      'Calendars.ReadWrite',
      'User.Read',
    ]);
    expect(grantedGraphScopes('https%3A%2F%2Fgraph.microsoft.com%2Fmail.read %E0%A4%A')).toEqual(['mail.read']);
    expect(grantedGraphScopes('')).toEqual([]);
  });

  it('when the integrations are listed, then each asks for what every permission of its capability needs', () => {
    expect(MICROSOFT_INTEGRATIONS.map((i) => [i.id, i.provider, i.capability])).toEqual([
      ['outlook_calendar', 'microsoft', 'calendar'],
      ['outlook_mail', 'microsoft', 'mail'],
    ]);
    for (const p of PERMISSIONS) {
      const spec = p.startsWith('calendar.') ? OUTLOOK_CALENDAR : OUTLOOK_MAIL;
      for (const needed of scopesFor(p)) expect([p, grants(spec.scopes, needed)]).toEqual([p, true]);
    }
  });
});

describe("Microsoft's refresh-token lifetime", () => {
  const connectedAt = new Date('2027-01-01T00:00:00Z');

  it('when a connection was never refreshed, then it ends 90 days after connect; each refresh restarts the 90 days', () => {
    expect(microsoftGrantDeadline({ connectedAt, refreshedAt: null, hasRefreshToken: true })).toEqual({
      at: connectedAt.getTime() + 90 * DAY,
      reason: 'inactive',
    });
    const refreshedAt = new Date(connectedAt.getTime() + 30 * DAY);
    expect(microsoftGrantDeadline({ connectedAt, refreshedAt, hasRefreshToken: true })?.at).toBe(refreshedAt.getTime() + MICROSOFT_INACTIVITY_LIMIT_MS);
  });

  it('when no refresh token is held, then there is no deadline and the grant is ok', () => {
    expect(microsoftGrantHealth({ connectedAt, refreshedAt: null, hasRefreshToken: false })).toEqual({ deadline: null, health: 'ok' });
  });

  it('when the deadline is more than three days away, within them, or past, then the grant is ok, expiring, expired', () => {
    const end = connectedAt.getTime() + 90 * DAY;
    const at = (now: number) => microsoftGrantHealth({ connectedAt, refreshedAt: null, hasRefreshToken: true }, now).health;
    expect(at(end - MICROSOFT_EXPIRING_WITHIN_MS - 1)).toBe('ok');
    expect(at(end - MICROSOFT_EXPIRING_WITHIN_MS)).toBe('expiring');
    expect(at(end)).toBe('expired');
  });
});
