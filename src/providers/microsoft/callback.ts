import { type CallbackErrorKind, aadErrorFromQuery, callbackErrorKind, describeAadError } from './aadsts';

/**
 * What Microsoft's redirect to the Hub's callback means when it carries no code. Two endpoints come back there:
 * the authorize endpoint (`error`, `error_description` with the AADSTS number — v2-oauth2-auth-code-flow, "Error
 * response") and the admin-consent endpoint (`admin_consent=True&tenant=…&scope=…&state=…` on success; `error` beside
 * `admin_consent=True` on failure — v2-admin-consent, "Successful response" / "Error response"). Pure.
 */

/**
 * What the Hub does next. restart_connect: an administrator has just approved the Hub for their organisation — start
 * the person's connect again (it now succeeds without asking them to consent); admin_consent: send whoever can
 * approve to `adminConsentUrl` (the connection's setup_url); start_over: the person may simply try again;
 * retry_later: Microsoft failed; ask_administrator: the organisation's policies or the account's state stop the
 * sign-in; fix_configuration: the Hub's own registration is wrong (an operator acts, the person cannot).
 */
export type CallbackNext = 'restart_connect' | 'admin_consent' | 'start_over' | 'retry_later' | 'ask_administrator' | 'fix_configuration';

export interface CallbackError {
  kind: CallbackErrorKind;
  next: CallbackNext;
  /** With `admin_consent_required`: where the organisation's administrator approves the Hub for everyone. */
  adminConsentUrl?: string;
  /** With `admin_consented`: the tenant Microsoft says approved the Hub (a GUID), when it said one. */
  tenantId?: string;
  /** Safe to log: the OAuth error and AADSTS numbers, never the description (it names the person). */
  logged: string;
}

const NEXT: Record<CallbackErrorKind, CallbackNext> = {
  denied: 'start_over',
  admin_consent_required: 'admin_consent',
  admin_consented: 'restart_connect',
  blocked: 'ask_administrator',
  unavailable: 'retry_later',
  misconfigured: 'fix_configuration',
  failed: 'start_over',
};

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `consentUrl` builds the admin-consent URL for this callback (its state, its tenant when known). */
export function interpretCallback(query: Record<string, unknown>, consentUrl: () => string): CallbackError | null {
  const error = aadErrorFromQuery(query);
  if (error) {
    const kind = callbackErrorKind(error);
    return { kind, next: NEXT[kind], logged: describeAadError(error), ...(kind === 'admin_consent_required' ? { adminConsentUrl: consentUrl() } : {}) };
  }
  if (typeof query.code === 'string' && query.code !== '') return null;
  if (typeof query.admin_consent === 'string' && query.admin_consent.toLowerCase() === 'true') {
    const tenant = typeof query.tenant === 'string' && GUID.test(query.tenant) ? query.tenant.toLowerCase() : undefined;
    return { kind: 'admin_consented', next: NEXT.admin_consented, logged: 'admin_consent=True', ...(tenant ? { tenantId: tenant } : {}) };
  }
  // Neither a code nor an error: a truncated or hand-made URL. Nothing to redeem; the person starts again.
  return { kind: 'failed', next: NEXT.failed, logged: 'no code and no error' };
}
