import { type ConnectLink, type LinkOrigin, createConnectLinks } from '../../src/integrations/connect-links';
import type { IntegrationId } from '../../src/core/integrations';
import { INTEGRATIONS } from '../../src/integrations/catalog';
import { testConfig } from './env';

/** Reads a connect link (setup_url) the way the Hub does, with the test configuration's keys. */
export function readConnectLink(url: string): ConnectLink | null {
  const config = testConfig();
  const links = createConnectLinks({
    publicUrl: config.publicUrl,
    encryptionKeys: config.encryptionKeys,
    ttlS: { admin: config.connect.linkTtlS, setup: config.connect.setupUrlTtlS },
  });
  const parsed = new URL(url);
  // Each link opens at its provider's connect route (outlook_* at Microsoft's).
  const provider = /^\/integrations\/(google|microsoft)\/connect$/.exec(parsed.pathname)?.[1];
  if (parsed.origin !== config.publicUrl || provider === undefined) return null;
  const verified = links.verify(parsed.searchParams.get('token') ?? '');
  return verified.ok && INTEGRATIONS[verified.link.integration].provider === provider ? verified.link : null;
}

/**
 * An asymmetric matcher for a `setup_url`: a valid signed connect link for exactly this customer, end user and
 * integration, made for an agent (so never able to replace the connected account). Links carry a fresh id and
 * expiry each time, so equality with a fixed string cannot work.
 */
export function aSetupUrl(customerId: string, integration: string, userId: string | null = null) {
  return {
    asymmetricMatch(actual: unknown): boolean {
      if (typeof actual !== 'string') return false;
      const link = readConnectLink(actual);
      if (link === null || link.origin !== 'setup' || link.replace || link.returnUrl !== null) return false;
      return link.customerId === customerId.toLowerCase() && link.integration === integration && link.userId === userId;
    },
    toString: () => `aSetupUrl(${customerId}, ${integration}, ${userId})`,
    toAsymmetricMatcher: () => `aSetupUrl(${customerId}, ${integration}, ${userId})`,
  };
}

/** A connect link made directly (as the admin API, or with origin "setup" as a setup_url), whatever the connection's state. */
export function connectLinkFor(
  target: { customerId: string; integration: IntegrationId; userId?: string | null; returnUrl?: string | null },
  options: { origin?: LinkOrigin; replace?: boolean; now?: () => number } = {},
): string {
  const config = testConfig();
  const links = createConnectLinks({
    publicUrl: config.publicUrl,
    encryptionKeys: config.encryptionKeys,
    ttlS: { admin: 600, setup: 600 },
    ...(options.now ? { now: options.now } : {}),
  });
  return links.create({
    customerId: target.customerId,
    userId: target.userId ?? null,
    integration: target.integration,
    returnUrl: target.returnUrl ?? null,
    origin: options.origin ?? 'admin',
    replace: options.replace ?? false,
  }).url;
}
