import type { Express, RequestHandler } from 'express';
import type { Access } from '../../access';
import type { OnConnectionEvent } from '../../audit/connection-events';
import type { WebhookConfig } from '../../config';
import { jsonBody } from '../../http/json-body';
import type { ConnectLinks } from '../../integrations/connect-links';
import type { CredentialChange } from '../../integrations/credential-events';
import type { Disconnect } from '../../integrations/disconnect';
import type { GrantPolicy } from '../../integrations/grant-health';
import type { SetupUrlFor } from '../../integrations/setup-url';
import type { Logger } from '../../logger';
import { createCapabilityDefaults } from '../../store/capability-defaults';
import type { CredentialStore } from '../../store/credential-store';
import type { CustomerDirectory } from '../../store/customer-directory';
import type { Db } from '../../store/db';
import type { CatalogEntry } from '../../tools/catalog';
import type { ToolRegistry } from '../../tools/registry';
import type { Endpoints } from '../../webhooks/endpoints';
import { capabilityDefaultsRoute } from './capability-defaults';
import { createConnectLinkRoute } from './create-connect-link';
import { createServiceKeyRoute } from './create-service-key';
import { customerRoute } from './customer';
import { deleteIntegrationRoute } from './delete-integration';
import { getReceiptRoute } from './get-receipt';
import { keyReceiptsRoute } from './key-receipts';
import { listCustomersRoute } from './list-customers';
import { listIntegrationsRoute } from './list-integrations';
import { listReceiptsRoute } from './list-receipts';
import { overviewRoute } from './overview';
import { policyRoute } from './policy';
import { readServiceKeysRoute } from './read-service-keys';
import { replayBundleRoute } from './replay-bundle';
import { revokeServiceKeyRoute } from './revoke-service-key';
import { webhookDeliveriesRoute } from './webhook-deliveries';
import { webhookEndpointRoute } from './webhook-endpoint';
import { workingHoursRoute } from './working-hours';

export interface AdminApiDeps {
  /** A Bearer admin JWT, or the admin console's session cookie with its CSRF header. */
  auth: RequestHandler;
  db: Db;
  store: CredentialStore;
  directory: CustomerDirectory;
  endpoints: Endpoints;
  access: Access;
  tools: ToolRegistry;
  catalog: { tools: readonly CatalogEntry[] };
  connectLinks: ConnectLinks;
  setupUrlFor: SetupUrlFor;
  grants: GrantPolicy;
  disconnect: Disconnect;
  /** URL prefixes a connect link's return_url may point under (HUB_CONNECT_RETURN_URLS). */
  returnUrlPrefixes: readonly string[];
  webhooks: Pick<WebhookConfig, 'allowPrivate' | 'secretOverlapS'>;
  onCredentialChanged: (change: CredentialChange) => void;
  onConnectionEvent: OnConnectionEvent;
  logger: Logger;
  now?: () => number;
}

/**
 * The admin API: connect links, customers and every connection of theirs (listed, disconnected, their working
 * hours), which provider answers each capability, the audit trail, webhooks, service keys and policies. The admin console is one more client of it.
 */
export function mountAdminApi(app: Express, deps: AdminApiDeps): void {
  const { auth, db, store, directory, endpoints, access, tools, setupUrlFor, grants, logger } = deps;
  app.post(
    '/api/admin/connect-links',
    auth,
    jsonBody,
    createConnectLinkRoute({ connectLinks: deps.connectLinks, returnUrlPrefixes: deps.returnUrlPrefixes, logger }),
  );

  const customer = { directory, endpoints, policies: access.policyStore, logger };
  app.get('/api/admin/customers', auth, listCustomersRoute({ directory, store, tools, grants, logger }));
  app.get('/api/admin/customers/:customer_id', auth, customerRoute(customer, 'get'));
  app.put('/api/admin/customers/:customer_id', auth, jsonBody, customerRoute(customer, 'put'));
  app.get('/api/admin/customers/:customer_id/integrations', auth, listIntegrationsRoute({ store, tools, setupUrlFor, grants, logger }));
  app.delete('/api/admin/customers/:customer_id/integrations/:integration', auth, deleteIntegrationRoute({ disconnect: deps.disconnect, logger }));
  const workingHours = { store, onCredentialChanged: deps.onCredentialChanged, onConnectionEvent: deps.onConnectionEvent, logger };
  app.put('/api/admin/customers/:customer_id/integrations/google_calendar/working-hours', auth, jsonBody, workingHoursRoute(workingHours, 'set'));
  app.delete('/api/admin/customers/:customer_id/integrations/google_calendar/working-hours', auth, workingHoursRoute(workingHours, 'clear'));
  const defaults = { defaults: createCapabilityDefaults(db), store, logger, onCredentialChanged: deps.onCredentialChanged };
  app.get('/api/admin/customers/:customer_id/defaults', auth, capabilityDefaultsRoute(defaults, 'list'));
  app.put('/api/admin/customers/:customer_id/defaults/:capability', auth, jsonBody, capabilityDefaultsRoute(defaults, 'set'));
  app.delete('/api/admin/customers/:customer_id/defaults/:capability', auth, capabilityDefaultsRoute(defaults, 'clear'));

  // The audit trail and webhooks (src/audit, src/webhooks).
  const trail = { db, logger };
  const catalogEntries = new Map(deps.catalog.tools.map((t) => [`${t.name}@${t.version}`, t]));
  app.get('/api/admin/customers/:customer_id/receipts', auth, listReceiptsRoute(trail));
  app.get('/api/admin/overview', auth, overviewRoute({ ...trail, ...(deps.now ? { now: deps.now } : {}) }));
  app.get('/api/admin/customers/:customer_id/receipts/:call_id', auth, getReceiptRoute(trail));
  app.get(
    '/api/admin/customers/:customer_id/conversations/:conversation_id/replay-bundle',
    auth,
    replayBundleRoute({ ...trail, catalogEntry: (name, version) => catalogEntries.get(`${name}@${version}`) }),
  );
  const webhook = { endpoints, allowPrivate: deps.webhooks.allowPrivate, secretOverlapS: deps.webhooks.secretOverlapS, logger };
  app.get('/api/admin/customers/:customer_id/webhook', auth, webhookEndpointRoute(webhook, 'get'));
  app.put('/api/admin/customers/:customer_id/webhook', auth, jsonBody, webhookEndpointRoute(webhook, 'put'));
  app.delete('/api/admin/customers/:customer_id/webhook', auth, webhookEndpointRoute(webhook, 'delete'));
  app.post('/api/admin/customers/:customer_id/webhook/rotate-secret', auth, webhookEndpointRoute(webhook, 'rotate'));
  app.get('/api/admin/customers/:customer_id/webhook-deliveries', auth, webhookDeliveriesRoute(trail));

  // Service keys and policies (src/access).
  const keys = { access, tools, logger };
  app.post('/api/admin/service-keys', auth, jsonBody, createServiceKeyRoute(keys));
  app.get('/api/admin/service-keys', auth, readServiceKeysRoute(keys));
  app.get('/api/admin/service-keys/:id', auth, readServiceKeysRoute(keys));
  app.get('/api/admin/service-keys/:id/receipts', auth, keyReceiptsRoute({ ...keys, db }));
  app.delete('/api/admin/service-keys/:id', auth, revokeServiceKeyRoute(keys));
  for (const path of ['/api/admin/customers/:customer_id/policy', '/api/admin/customers/:customer_id/agents/:agent_id/policy']) {
    app.get(path, auth, policyRoute(keys, 'get'));
    app.put(path, auth, jsonBody, policyRoute(keys, 'put'));
    app.delete(path, auth, policyRoute(keys, 'delete'));
  }
  app.use('/api/admin', auth); // unknown admin paths: authenticate first, as for /api/internal
}
