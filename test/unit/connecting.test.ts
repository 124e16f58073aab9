import { randomUUID } from 'node:crypto';
import { grantExpiredError, grantHealth, refusalReason } from '../../src/integrations/grant-health';
import { isReadOperation, isSendOperation } from '../../src/protection/cooldowns';
import type { CredentialRecord } from '../../src/store/credential-store';
import { DAY, GRANT_NOW, PRODUCTION, TESTING, aGrantRow } from '../helpers/credential-records';

/** What connecting decides per provider without a vendor in sight: grant lifetimes, refusal reasons, cool-down verbs. */

const NOW = GRANT_NOW;

/** A connected Outlook Mail row of a Microsoft account (its `{tid}/{oid}` known), with Graph's scopes. */
const aRow = (overrides: Partial<CredentialRecord> = {}): CredentialRecord =>
  aGrantRow({
    integration: 'outlook_mail',
    accountEmail: 'ana@northwind.example',
    accountId: `${randomUUID()}/${randomUUID()}`,
    scopes: ['Mail.ReadWrite', 'Mail.Send', 'User.Read'],
    ...overrides,
  });

describe("a Microsoft connection's grant", () => {
  test('when it was refreshed, then it ends 90 days after that refresh; Google’s Testing mode does not apply to it', () => {
    const refreshed = new Date(NOW - 10 * DAY);
    expect(grantHealth(aRow({ grantedAt: new Date(NOW - 30 * DAY), lastRefreshedAt: refreshed }), TESTING, NOW)).toEqual({
      expires_at: new Date(refreshed.getTime() + 90 * DAY).toISOString(),
      health: 'ok',
      reason: null,
    });
  });

  test('when its last refresh is 88 days old, then it is expiring (inactive); at 90 days expired', () => {
    expect(grantHealth(aRow({ grantedAt: new Date(NOW - 100 * DAY), lastRefreshedAt: new Date(NOW - 88 * DAY) }), PRODUCTION, NOW)).toMatchObject({
      health: 'expiring',
      reason: 'inactive',
    });
    expect(grantHealth(aRow({ grantedAt: new Date(NOW - 100 * DAY), lastRefreshedAt: new Date(NOW - 90 * DAY) }), PRODUCTION, NOW)).toMatchObject({
      health: 'expired',
      reason: 'inactive',
    });
  });

  test('when Microsoft names a cause, then it is the reason; a plain invalid_grant past 90 days unused is inactive', () => {
    for (const cause of ['password_changed', 'user_disabled', 'consent_required', 'reauth_required', 'admin_policy_enforced'] as const) {
      expect(refusalReason(aRow(), cause, PRODUCTION, NOW)).toBe(cause);
    }
    expect(refusalReason(aRow(), 'invalid_grant', PRODUCTION, NOW)).toBe('revoked');
    expect(refusalReason(aRow({ grantedAt: new Date(NOW - 91 * DAY) }), 'invalid_grant', PRODUCTION, NOW)).toBe('inactive');
  });

  test('when consent was withdrawn, then tool calls get INTEGRATION_PERMISSION_DENIED; every other reason INTEGRATION_EXPIRED, in Microsoft’s words', () => {
    expect(grantExpiredError('outlook_mail', 'consent_required')).toMatchObject({
      code: 'INTEGRATION_PERMISSION_DENIED',
      details: { reason: 'consent_required' },
    });
    const disabled = grantExpiredError('outlook_calendar', 'user_disabled');
    expect(disabled).toMatchObject({ code: 'INTEGRATION_EXPIRED', details: { reason: 'user_disabled' } });
    expect(disabled.message).toMatch(/^Outlook Calendar access has ended: the account is disabled/);
    expect(grantExpiredError('outlook_mail', 'inactive').message).toContain('Microsoft ends access unused for 90 days');
    expect(grantExpiredError('outlook_mail', null)).toMatchObject({
      code: 'INTEGRATION_EXPIRED',
      message: expect.stringContaining('has expired or was revoked'),
    });
  });

  test('when a Google grant ends, then its words and codes are as before', () => {
    expect(grantExpiredError('google_gmail', 'inactive').message).toContain('Google ends access unused for six months');
    expect(grantExpiredError('google_calendar', 'admin_policy_enforced')).toMatchObject({ code: 'INTEGRATION_EXPIRED' });
  });
});

describe('cool-downs judge an operation by its verb, whatever the vendor', () => {
  test("when Graph's operations are named, then reads, writes and sends are told apart as Google's are", () => {
    for (const op of ['events.get', 'events.calendarView', 'calendar.getSchedule', 'messages.list', 'mailboxSettings.get', 'user.get']) {
      expect(isReadOperation(op)).toBe(true);
    }
    for (const op of ['events.create', 'events.update', 'events.delete', 'messages.update', 'messages.createReply', 'messages.send']) {
      expect(isReadOperation(op)).toBe(false);
    }
    expect(isSendOperation('messages.send')).toBe(true);
    expect(isSendOperation('gmail.users.drafts.send')).toBe(true);
    expect(isSendOperation('messages.createReply')).toBe(false);
  });
});
