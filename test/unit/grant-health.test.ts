import { grantDeadline, grantExpiredError, grantHealth, refusalReason } from '../../src/integrations/grant-health';
import { DAY, GRANT_NOW, HOUR, PRODUCTION, TESTING, aGrantRow } from '../helpers/credential-records';

/** How long a grant lives, judged from a stored row: the deadlines Google documents and what a refusal means. */

const NOW = GRANT_NOW;
const aRow = aGrantRow;

test('when nothing limits the grant, then it ends 180 days after its last use, which each refresh moves on', () => {
  expect(grantHealth(aRow(), PRODUCTION, NOW)).toEqual({ expires_at: new Date(NOW + 179 * DAY).toISOString(), health: 'ok', reason: null });
  expect(grantHealth(aRow({ lastRefreshedAt: new Date(NOW) }), PRODUCTION, NOW).expires_at).toBe(new Date(NOW + 180 * DAY).toISOString());
  expect(grantHealth(aRow({ grantedAt: new Date(NOW - 178 * DAY) }), PRODUCTION, NOW)).toEqual({
    expires_at: new Date(NOW + 2 * DAY).toISOString(),
    health: 'expiring',
    reason: 'inactive',
  });
});

test('when Google gave a time limit, then that is the deadline, expiring within 72 h and expired after', () => {
  const ends = (inMs: number) => aRow({ refreshTokenExpiresAt: new Date(NOW + inMs) });
  expect(grantHealth(ends(73 * HOUR), PRODUCTION, NOW)).toMatchObject({ health: 'ok', reason: null });
  expect(grantHealth(ends(72 * HOUR), PRODUCTION, NOW)).toEqual({
    expires_at: new Date(NOW + 72 * HOUR).toISOString(),
    health: 'expiring',
    reason: 'time_limited_access',
  });
  expect(grantHealth(ends(-1), PRODUCTION, NOW)).toMatchObject({ health: 'expired', reason: 'time_limited_access' });
});

test('when the app is in Testing mode, then the grant ends 7 days after consent (created_at when consent time is unknown)', () => {
  expect(grantHealth(aRow(), TESTING, NOW)).toEqual({ expires_at: new Date(NOW + 6 * DAY).toISOString(), health: 'ok', reason: null });
  expect(grantHealth(aRow({ grantedAt: new Date(NOW - 5 * DAY) }), TESTING, NOW)).toMatchObject({ health: 'expiring', reason: 'testing_mode' });
  expect(grantDeadline(aRow({ grantedAt: null }), TESTING)).toEqual({ at: NOW - 23 * DAY, reason: 'testing_mode' });
});

test('when the row holds no refresh token, then there is no grant deadline', () => {
  expect(grantHealth(aRow({ sealed: { keyId: 'k1', access: Buffer.from('a'), refresh: null } }), TESTING, NOW)).toEqual({
    expires_at: null,
    health: 'ok',
    reason: null,
  });
});

test('when the row is expired, then health is expired with its reason (revoked when none was kept)', () => {
  const lastErrorAt = new Date(NOW - HOUR);
  expect(grantHealth(aRow({ status: 'expired', lastErrorAt }), PRODUCTION, NOW)).toEqual({
    expires_at: lastErrorAt.toISOString(),
    health: 'expired',
    reason: 'revoked',
  });
  expect(grantHealth(aRow({ status: 'expired', lastErrorAt, expiryReason: 'admin_policy_enforced' }), PRODUCTION, NOW)).toMatchObject({
    health: 'expired',
    reason: 'admin_policy_enforced',
  });
  const ended = new Date(NOW - 2 * HOUR);
  expect(
    grantHealth(aRow({ status: 'expired', lastErrorAt, expiryReason: 'time_limited_access', refreshTokenExpiresAt: ended }), PRODUCTION, NOW).expires_at,
  ).toBe(ended.toISOString());
});

test('when Google refuses a refresh, then the reason is the cause it named, else the deadline passed, else revoked', () => {
  expect(refusalReason(aRow(), 'reauth_required', PRODUCTION, NOW)).toBe('reauth_required');
  expect(refusalReason(aRow(), 'admin_policy_enforced', TESTING, NOW)).toBe('admin_policy_enforced');
  expect(refusalReason(aRow({ grantedAt: new Date(NOW - 7 * DAY) }), 'invalid_grant', TESTING, NOW)).toBe('testing_mode');
  expect(refusalReason(aRow({ grantedAt: new Date(NOW - 7 * DAY) }), 'invalid_grant', PRODUCTION, NOW)).toBe('revoked');
  expect(refusalReason(aRow({ refreshTokenExpiresAt: new Date(NOW) }), 'invalid_grant', PRODUCTION, NOW)).toBe('time_limited_access');
});

test('when the grant ended, then INTEGRATION_EXPIRED says why; blocked by an admin says who must act', () => {
  expect(grantExpiredError('google_gmail', null)).toEqual({
    code: 'INTEGRATION_EXPIRED',
    message: 'Gmail access has expired or was revoked; it must be connected again',
    retryable: false,
  });
  expect(grantExpiredError('google_gmail', 'reauth_required')).toMatchObject({
    details: { reason: 'reauth_required' },
    message: expect.stringContaining('sign in again'),
  });
  const blocked = grantExpiredError('google_calendar', 'admin_policy_enforced');
  expect(blocked).toMatchObject({ code: 'INTEGRATION_EXPIRED', retryable: false, details: { reason: 'admin_policy_enforced' } });
  expect(blocked.message).toContain('Workspace administrator');
  expect(blocked.message).not.toMatch(/client|HUB_GOOGLE/);
});
