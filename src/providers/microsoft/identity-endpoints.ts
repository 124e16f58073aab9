import type { MicrosoftConfig } from '../../config/microsoft';

/**
 * Where the Microsoft identity platform (v2.0) answers for the configured authority and tenant
 * (learn.microsoft.com/entra/identity-platform/v2-protocols#endpoints): `{authority}/{tenant}/oauth2/v2.0/…`, the
 * OpenID configuration at `{authority}/{tenant}/v2.0/.well-known/openid-configuration`, and the admin-consent
 * endpoint at `{authority}/{tenant}/v2.0/adminconsent`.
 */

export interface IdentityEndpoints {
  authorize: string;
  token: string;
  openidConfiguration: string;
  adminConsent: string;
}

export function identityEndpoints(config: Pick<MicrosoftConfig, 'authorityUrl' | 'tenant'>): IdentityEndpoints {
  const base = `${config.authorityUrl}/${encodeURIComponent(config.tenant)}`;
  // v2-admin-consent: "Do not use 'common', as personal accounts cannot provide admin consent except in the
  // context of a tenant"; `organizations` asks the administrator to sign in and consents for their tenant.
  const consentTenant = config.tenant === 'common' ? 'organizations' : config.tenant;
  return {
    authorize: `${base}/oauth2/v2.0/authorize`,
    token: `${base}/oauth2/v2.0/token`,
    openidConfiguration: `${base}/v2.0/.well-known/openid-configuration`,
    adminConsent: `${config.authorityUrl}/${encodeURIComponent(consentTenant)}/v2.0/adminconsent`,
  };
}
