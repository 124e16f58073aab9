import { MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import type { IntegrationId } from '../../src/core/integrations';
import { OUTLOOK_CALENDAR_SCOPES, OUTLOOK_MAIL_SCOPES } from '../../src/providers/microsoft/catalog';
import { type Connected, saveSandboxGrant } from './connected';
import type { TestHub } from './hub';
import type { MicrosoftWorld } from './microsoft';

/** The tenant domain test accounts of the Microsoft sandbox live in. */
export const MS_DOMAIN = 'contoso.example';

/**
 * A customer (or one of its end users) connected to a Microsoft sandbox account with a grant the sandbox minted for
 * the Hub's test app — what the connect flow would have stored (Graph's scope names, an offline grant) — so tool calls
 * go through the very resolver, scope checks and Graph adapters they meet in production.
 */
export async function connectToMicrosoft(
  hub: TestHub,
  world: MicrosoftWorld,
  options: {
    upn: string;
    integration: Extract<IntegrationId, 'outlook_calendar' | 'outlook_mail'>;
    scopes?: readonly string[];
    customerId?: string;
    userId?: string | null;
  },
): Promise<Connected> {
  const scopes = options.scopes ?? (options.integration === 'outlook_calendar' ? OUTLOOK_CALENDAR_SCOPES : OUTLOOK_MAIL_SCOPES);
  const grant = await world.control('POST', '/tokens', { upn: options.upn, client_id: MS_SANDBOX_DEFAULT_APP.clientId, scopes, offline: true });
  return saveSandboxGrant(hub, grant, { ...options, email: options.upn, scopes, expiresInS: Number(grant.body.expires_in) });
}
