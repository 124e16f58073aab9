import { type AadError, exchangeFailureOf, isTransient, refusalCauseOf } from '../../../src/providers/microsoft/aadsts';
import { REFUSAL_OUTCOMES, REFUSAL_ROWS, refusalError } from '../../../src/providers/microsoft/refusal-codes';

/**
 * Each AADSTS number a refresh can meet that ends the grant: the cause the Hub records and the error a tool call
 * gets (learn.microsoft.com/entra/identity-platform/reference-error-codes). The expectations are written out here,
 * apart from the table they check, and every row of the table has one.
 */

const EXPIRED = 'INTEGRATION_EXPIRED';
const DENIED = 'INTEGRATION_PERMISSION_DENIED';

const EXPECTED: [code: number, error: string, cause: string, hubCode: string, reason: string][] = [
  [700082, 'invalid_grant', 'inactive', EXPIRED, 'inactive'],
  [70008, 'invalid_grant', 'inactive', EXPIRED, 'inactive'],
  [50173, 'invalid_grant', 'password_changed', EXPIRED, 'password_changed'],
  [50132, 'interaction_required', 'password_changed', EXPIRED, 'password_changed'],
  [50133, 'invalid_grant', 'password_changed', EXPIRED, 'password_changed'],
  [50055, 'invalid_grant', 'password_changed', EXPIRED, 'password_changed'],
  [50144, 'invalid_grant', 'password_changed', EXPIRED, 'password_changed'],
  [50135, 'invalid_grant', 'password_changed', EXPIRED, 'password_changed'],
  [50057, 'invalid_grant', 'user_disabled', EXPIRED, 'user_disabled'],
  [50034, 'invalid_grant', 'user_disabled', EXPIRED, 'user_disabled'],
  [50020, 'invalid_grant', 'user_disabled', EXPIRED, 'user_disabled'],
  [65001, 'invalid_grant', 'consent_required', DENIED, 'consent_required'],
  [53003, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [53000, 'interaction_required', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [53001, 'interaction_required', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [53002, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [530032, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [530035, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [50131, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [50105, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [7000112, 'unauthorized_client', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [50097, 'interaction_required', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [50129, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [135011, 'invalid_grant', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [500021, 'access_denied', 'admin_policy_enforced', EXPIRED, 'admin_policy_enforced'],
  [50072, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
  [50074, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
  [50076, 'invalid_grant', 'reauth_required', EXPIRED, 'reauth_required'],
  [50078, 'invalid_grant', 'reauth_required', EXPIRED, 'reauth_required'],
  [50079, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
  [53004, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
  [50158, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
  [50199, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
  [70043, 'invalid_grant', 'reauth_required', EXPIRED, 'reauth_required'],
  [70044, 'invalid_grant', 'reauth_required', EXPIRED, 'reauth_required'],
  [700084, 'invalid_grant', 'reauth_required', EXPIRED, 'reauth_required'],
  [50089, 'invalid_grant', 'reauth_required', EXPIRED, 'reauth_required'],
  [50058, 'interaction_required', 'reauth_required', EXPIRED, 'reauth_required'],
];

const aad = (error: string, code?: number): AadError => ({ error, codes: code === undefined ? [] : [code] });

test.each(EXPECTED)(
  'when a refresh is refused with AADSTS%d (%s), then the cause is %s and a tool call gets %s with reason %s',
  (code, error, cause, hubCode, reason) => {
    expect(refusalCauseOf(aad(error, code))).toBe(cause);
    const outcome = REFUSAL_OUTCOMES[cause as keyof typeof REFUSAL_OUTCOMES];
    expect([outcome.code, outcome.reason]).toEqual([hubCode, reason]);
  },
);

test('when the table grows, then every row has an expectation above, and no number is listed twice', () => {
  expect(REFUSAL_ROWS.map((r) => r.code).sort()).toEqual(EXPECTED.map((e) => e[0]).sort());
  expect(new Set(REFUSAL_ROWS.map((r) => r.code)).size).toBe(REFUSAL_ROWS.length);
});

test.each([
  [aad('invalid_grant'), 'invalid_grant', EXPIRED, 'revoked'],
  [aad('invalid_grant', 424242), 'invalid_grant', EXPIRED, 'revoked'],
  [aad('interaction_required', 424242), 'reauth_required', EXPIRED, 'reauth_required'],
  [aad('consent_required'), 'consent_required', DENIED, 'consent_required'],
  [{ error: 'invalid_grant', codes: [424242], suberror: 'user_account_disabled' }, 'user_disabled', EXPIRED, 'user_disabled'],
])('when a number is not in the table (%j), then the OAuth error decides: %s, %s', (error, cause, hubCode, reason) => {
  expect(refusalCauseOf(error)).toBe(cause);
  expect(REFUSAL_OUTCOMES[cause as keyof typeof REFUSAL_OUTCOMES]).toMatchObject({ code: hubCode, reason });
});

test('when the account is locked by smart lockout (AADSTS50053), then the refresh is retried later, not the grant ended', () => {
  expect(isTransient(aad('invalid_grant', 50053))).toBe(true);
  expect(refusalCauseOf(aad('invalid_grant', 50053))).toBeUndefined();
});

test("when the Hub's registration is wrong (AADSTS500113, 7000215), then it is no refusal of the grant", () => {
  expect(refusalCauseOf(aad('invalid_request', 500113))).toBeUndefined();
  expect(exchangeFailureOf(aad('invalid_request', 500113), 400)).toBe('misconfigured');
  expect(refusalCauseOf(aad('invalid_client', 7000215))).toBeUndefined();
});

test('when an outcome needs an administrator, then it says so; a person alone can fix the others by reconnecting', () => {
  const byActor = Object.entries(REFUSAL_OUTCOMES)
    .filter(([, o]) => o.actor === 'administrator')
    .map(([cause]) => cause)
    .sort();
  expect(byActor).toEqual(['admin_policy_enforced', 'user_disabled']);
  for (const o of Object.values(REFUSAL_OUTCOMES)) expect(o.says).toMatch(/connected again/);
});

test("when a refusal becomes a tool call's error, then it has the code, the reason and words naming the integration; never retryable", () => {
  expect(refusalError('consent_required', 'Outlook Mail')).toEqual({
    code: 'INTEGRATION_PERMISSION_DENIED',
    message: expect.stringMatching(/^Outlook Mail access lacks the consent/),
    retryable: false,
    details: { reason: 'consent_required' },
  });
  expect(refusalError('inactive', 'Outlook Calendar')).toMatchObject({
    code: 'INTEGRATION_EXPIRED',
    message: 'Outlook Calendar access has ended: Microsoft ends access unused for 90 days; it must be connected again',
    retryable: false,
    details: { reason: 'inactive' },
  });
});
