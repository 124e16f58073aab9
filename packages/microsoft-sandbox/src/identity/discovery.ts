import { Router } from 'express';
import type { World } from '../world';
import { AAD, sendAadError } from './errors';
import { baseUrlOf, resolveTenant } from './tenants';

/**
 * The documents a client library reads before it signs anyone in: the OpenID Connect configuration
 * (learn.microsoft.com/entra/identity-platform/v2-protocols-oidc#find-your-apps-openid-configuration-document-uri)
 * and the instance discovery document MSAL asks for when an authority is not a known one. For `common` and
 * `organizations` the issuer carries the literal `{tenantid}`, as Microsoft's does; MSAL substitutes it.
 */
export function discoveryRoutes(getWorld: () => World): Router {
  const router = Router();

  router.get('/:tenant/v2.0/.well-known/openid-configuration', (req, res) => {
    const world = getWorld();
    const path = resolveTenant(world, req.params.tenant);
    if (path.kind === 'unknown') return sendAadError(world, res, AAD.tenantNotFound(path.name), req.get('client-request-id'));
    const base = baseUrlOf(req);
    const seg = path.kind === 'tenant' ? path.tenant.id : path.kind;
    const issuerTenant = path.kind === 'tenant' ? path.tenant.id : path.kind === 'consumers' ? '9188040d-6c67-4c5b-b112-36a304b66dad' : '{tenantid}';
    res.json({
      token_endpoint: `${base}/${seg}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
      jwks_uri: `${base}/${seg}/discovery/v2.0/keys`,
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      issuer: `${base}/${issuerTenant}/v2.0`,
      request_uri_parameter_supported: false,
      userinfo_endpoint: `${base}/oidc/userinfo`,
      authorization_endpoint: `${base}/${seg}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${base}/${seg}/oauth2/v2.0/devicecode`,
      http_logout_supported: true,
      frontchannel_logout_supported: true,
      end_session_endpoint: `${base}/${seg}/oauth2/v2.0/logout`,
      claims_supported: [
        'sub',
        'iss',
        'cloud_instance_name',
        'cloud_instance_host_name',
        'cloud_graph_host_name',
        'msgraph_host',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'acr',
        'nonce',
        'preferred_username',
        'name',
        'tid',
        'ver',
        'at_hash',
        'c_hash',
        'email',
      ],
      tenant_region_scope: null,
      cloud_instance_name: 'microsoftonline.com',
      cloud_graph_host_name: 'graph.windows.net',
      msgraph_host: new URL(base).host,
      rbac_url: 'https://pas.windows.net',
    });
  });

  router.get('/:tenant/discovery/v2.0/keys', (_req, res) => {
    res.json({ keys: [getWorld().identity.signing.jwk] });
  });

  // MSAL: GET {authority-host}/common/discovery/instance?api-version=1.1&authorization_endpoint=…
  router.get('/common/discovery/instance', (req, res) => {
    const base = baseUrlOf(req);
    const host = new URL(base).host;
    res.json({
      tenant_discovery_endpoint: `${base}/common/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: host, preferred_cache: host, aliases: [host] }],
    });
  });
  return router;
}
