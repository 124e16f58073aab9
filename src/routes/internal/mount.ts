import type { Express, RequestHandler } from 'express';
import type { Policies } from '../../access/policy-cache';
import { jsonBody } from '../../http/json-body';
import type { GrantPolicy } from '../../integrations/grant-health';
import type { SetupUrlFor } from '../../integrations/setup-url';
import type { Logger } from '../../logger';
import type { CapabilityDefaults } from '../../store/capability-defaults';
import type { CredentialStore } from '../../store/credential-store';
import type { CatalogEntry } from '../../tools/catalog';
import type { RecordedExecuteDeps } from '../../tools/recorded-execute';
import type { ToolRegistry } from '../../tools/registry';
import { catalogRoute } from './catalog';
import { executeRoute } from './execute';
import { integrationStatusRoute } from './integration-status';
import { mcpJsonBody, mcpMethodNotAllowed, mcpOriginCheck, mcpRoute } from './mcp';

export interface InternalApiDeps {
  /** The service secret (or service key) every route here checks. */
  auth: RequestHandler;
  /** The tool-call pipeline: POST /execute and MCP's tools/call run the very same one. */
  execute: RecordedExecuteDeps;
  tools: ToolRegistry;
  catalog: { tools: CatalogEntry[] };
  policies: Policies;
  store: CredentialStore;
  /** The customers' default provider per capability (the status endpoint's `resolves_to`). */
  defaults: Pick<CapabilityDefaults, 'get'>;
  setupUrlFor: SetupUrlFor;
  grants: GrantPolicy;
  /** How long a call a rate limit refused is held before its 429 (HUB_RATE_LIMITED_HOLD_MS). */
  refusalHoldMs: number;
  /** Browser origins that may call POST /mcp (HUB_MCP_ALLOWED_ORIGINS). */
  mcpAllowedOrigins: readonly string[];
  logger: Logger;
}

/**
 * The API agents call with their service secret: execute, the catalog, a customer's integration status, and the
 * same tools over the Model Context Protocol. Routes are flat (no nested routers): the execute call is the hot
 * path and passes the fewest layers first.
 */
export function mountInternalApi(app: Express, deps: InternalApiDeps): void {
  const { auth, execute, tools, catalog, policies, refusalHoldMs, logger } = deps;
  app.post('/api/internal/tools/execute', auth, jsonBody, executeRoute(execute, refusalHoldMs));
  app.get('/api/internal/tools', auth, catalogRoute({ catalog, tools, policies, logger }));
  app.get(
    '/api/internal/integrations/status/:customer_id',
    auth,
    integrationStatusRoute({ store: deps.store, tools, setupUrlFor: deps.setupUrlFor, grants: deps.grants, policies, defaults: deps.defaults, logger }),
  );
  app.use('/api/internal', auth); // unknown internal paths: authenticate first, so probing learns nothing

  // The same tools over the Model Context Protocol: the origin checked first, then the same service secret; each
  // tools/call runs through the very executeTool above. Registered after execute, so its hot path is unchanged.
  const originCheck = mcpOriginCheck(deps.mcpAllowedOrigins);
  app.post('/mcp', originCheck, auth, mcpJsonBody, mcpRoute({ execute, catalog, policies, logger, refusalHoldMs }));
  app.all('/mcp', originCheck, mcpMethodNotAllowed);
}
