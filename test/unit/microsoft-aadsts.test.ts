import { type AadError, aadErrorFromQuery, callbackErrorKind, exchangeFailureOf, parseAadError, refusalCauseOf } from '../../src/providers/microsoft/aadsts';

/** The tables that turn the identity platform's refusals into the Hub's outcomes (reference-error-codes). */

const aad = (error: string, code?: number, suberror?: string): AadError => ({
  error,
  codes: code === undefined ? [] : [code],
  ...(suberror ? { suberror } : {}),
});

describe('AADSTS error bodies', () => {
  it("when the body has error_codes, then they are the codes; without them, the description's AADSTS prefix is", () => {
    expect(
      parseAadError({ error: 'invalid_grant', error_description: 'AADSTS70008: expired. Trace ID: x', error_codes: [70008], suberror: 'bad_token' }),
    ).toEqual({
      error: 'invalid_grant',
      codes: [70008],
      suberror: 'bad_token',
    });
    expect(parseAadError({ error: 'invalid_grant', error_description: 'AADSTS54005: OAuth2 Authorization code was already redeemed' })).toEqual({
      error: 'invalid_grant',
      codes: [54005],
    });
  });

  it('when the body is not an error body (wrong types, no error, huge), then it is not one', () => {
    expect(parseAadError({ error: 42 })).toBeUndefined();
    expect(parseAadError({ error_description: 'AADSTS50173: x' })).toBeUndefined();
    expect(parseAadError({ error: 'invalid_grant', error_codes: ['50173'] })).toBeUndefined();
    expect(parseAadError({ error: 'x'.repeat(201) })).toBeUndefined();
    expect(parseAadError('invalid_grant')).toBeUndefined();
  });

  it('when the authorize redirect carries an error, then its AADSTS number is read from the description', () => {
    expect(aadErrorFromQuery({ error: 'access_denied', error_description: 'AADSTS90094: The grant requires admin permission.' })).toEqual({
      error: 'access_denied',
      codes: [90094],
    });
    expect(aadErrorFromQuery({ error: ['a', 'b'] })).toBeUndefined();
  });
});

describe('a refused refresh', () => {
  it.each([
    [aad('invalid_grant', 700082, 'bad_token'), 'inactive'],
    [aad('invalid_grant', 70008), 'inactive'],
    [aad('invalid_grant', 50173, 'bad_token'), 'password_changed'],
    [aad('invalid_grant', 50133), 'password_changed'],
    [aad('invalid_grant', 50132), 'password_changed'],
    [aad('invalid_grant', 50057, 'user_account_disabled'), 'user_disabled'],
    [aad('invalid_grant', 50034), 'user_disabled'],
    [aad('invalid_grant', 65001, 'consent_required'), 'consent_required'],
    [aad('invalid_grant', 53003), 'admin_policy_enforced'],
    [aad('invalid_grant', 530032), 'admin_policy_enforced'],
    [aad('invalid_grant', 50105), 'admin_policy_enforced'],
    [aad('invalid_grant', 50076), 'reauth_required'],
    [aad('invalid_grant', 50079), 'reauth_required'],
    [aad('invalid_grant', 50158), 'reauth_required'],
    [aad('invalid_grant', 70043), 'reauth_required'],
    [aad('invalid_grant', 700084), 'reauth_required'],
    [aad('interaction_required', 123456), 'reauth_required'],
    [aad('invalid_grant', 70000), 'invalid_grant'],
    [aad('invalid_grant', 9002313), 'invalid_grant'],
    [aad('invalid_grant'), 'invalid_grant'],
    [aad('invalid_grant', 999999, 'user_account_disabled'), 'user_disabled'],
  ])('when Microsoft answers %j, then the cause is %s', (error, cause) => {
    expect(refusalCauseOf(error)).toBe(cause);
  });

  it.each([
    aad('invalid_client', 7000215),
    aad('unauthorized_client', 700016),
    aad('invalid_request', 900144),
    aad('temporarily_unavailable'),
    aad('invalid_grant', 90055),
  ])('when Microsoft answers %j, then it is not a refusal of the grant', (error) => {
    expect(refusalCauseOf(error)).toBeUndefined();
  });
});

describe('a refused code exchange', () => {
  it.each([
    [aad('invalid_grant', 70008), 400, 'rejected'],
    [aad('invalid_grant', 54005), 400, 'rejected'],
    [aad('invalid_grant', 501481), 400, 'rejected'],
    [aad('invalid_grant', 50173), 400, 'rejected'],
    [aad('invalid_client', 7000215), 401, 'misconfigured'],
    [aad('unauthorized_client', 700016), 400, 'misconfigured'],
    [aad('invalid_request', 50011), 400, 'misconfigured'],
    [aad('invalid_tenant', 90002), 400, 'misconfigured'],
    [aad('invalid_scope', 650053), 400, 'misconfigured'],
    [aad('invalid_grant', 500112), 400, 'misconfigured'],
    [aad('access_denied', 90094), 400, 'admin_consent_required'],
    [aad('invalid_grant', 65001, 'consent_required'), 400, 'admin_consent_required'],
    [aad('temporarily_unavailable'), 400, 'unavailable'],
    [aad('server_error'), 500, 'unavailable'],
    [aad('invalid_grant', 90055), 400, 'unavailable'],
    [aad('something_new', 1), 400, 'misconfigured'],
  ])('when Microsoft answers %j with %d, then the failure is %s', (error, status, failure) => {
    expect(exchangeFailureOf(error, status)).toBe(failure);
  });
});

describe('an authorize redirect without a code', () => {
  it.each([
    [aad('access_denied', 90094), 'admin_consent_required'],
    [aad('access_denied', 90095), 'admin_consent_required'],
    [aad('consent_required', 65001), 'admin_consent_required'],
    [aad('access_denied', 65004), 'denied'],
    [aad('consent_required', 65004), 'denied'],
    [aad('access_denied'), 'denied'],
    [aad('access_denied', 53003), 'blocked'],
    [aad('invalid_grant', 50057), 'blocked'],
    [aad('invalid_request', 50011), 'misconfigured'],
    [aad('invalid_scope', 650053), 'misconfigured'],
    [aad('unsupported_response_type', 900144), 'misconfigured'],
    [aad('temporarily_unavailable'), 'unavailable'],
    [aad('login_required', 50058), 'failed'],
  ])('when it says %j, then it is %s', (error, kind) => {
    expect(callbackErrorKind(error)).toBe(kind);
  });
});
