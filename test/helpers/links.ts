import { type ConnectLink, createConnectLinks } from '../../src/integrations/connect-links';
import { testConfig } from './env';

/** Reads a connect link (setup_url) the way the Hub does, with the test configuration's keys. */
export function readConnectLink(url: string): ConnectLink | null {
  const config = testConfig();
  const links = createConnectLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys, ttlS: { admin: config.connect.linkTtlS, setup: config.connect.setupUrlTtlS } });
  const parsed = new URL(url);
  if (parsed.origin + parsed.pathname !== `${config.publicUrl}/integrations/google/connect`) return null;
  const verified = links.verify(parsed.searchParams.get('token') ?? '');
  return verified.ok ? verified.link : null;
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
