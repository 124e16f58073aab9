/**
 * The Hub's own vocabulary for the console's choices, sent with the page (meta tags, no inline script under the
 * CSP) so the filters offer exactly what the API accepts: the catalog's tool names and the closed set of error
 * codes.
 */
const words = (name: string): string[] => (document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '').split(' ').filter((w) => w !== '');

export const TOOL_NAMES: readonly string[] = words('hub-tools');
export const ERROR_CODES: readonly string[] = words('hub-error-codes');

/** One integration the Hub offers, as the catalog states it (src/console/integrations.ts). */
export interface OfferedIntegration {
  id: string;
  capability: string;
  provider: string;
  display_name: string;
  vendor: string;
}

function offered(): OfferedIntegration[] {
  try {
    const parsed: unknown = JSON.parse(document.querySelector<HTMLMetaElement>('meta[name="hub-integrations"]')?.content ?? '[]');
    return Array.isArray(parsed) ? (parsed as OfferedIntegration[]) : [];
  } catch {
    return []; // a page without the tag (never served so): ids then show as they are
  }
}

/** In the catalog's order: Google's, then Microsoft's. */
export const INTEGRATIONS: readonly OfferedIntegration[] = offered();

/** The Hub's capabilities in the words a person reads, in the order the customer page groups them. */
export const CAPABILITY_LABEL: Readonly<Record<string, string>> = { calendar: 'Calendar', mail: 'Email' };

export const integrationLabel = (id: string) => INTEGRATIONS.find((i) => i.id === id)?.display_name ?? id;
export const integrationOf = (id: string) => INTEGRATIONS.find((i) => i.id === id);
export const capabilityLabel = (capability: string) => CAPABILITY_LABEL[capability] ?? capability;
/** Each vendor once, in catalog order: what the default-provider choice offers. */
export const VENDORS: readonly { provider: string; vendor: string }[] = INTEGRATIONS.filter(
  (i, n, all) => all.findIndex((j) => j.provider === i.provider) === n,
).map(({ provider, vendor }) => ({ provider, vendor }));
export const vendorName = (provider: string) => VENDORS.find((v) => v.provider === provider)?.vendor ?? provider;
/** The capabilities some integration serves, in catalog order. */
export const CAPABILITIES: readonly string[] = [...new Set(INTEGRATIONS.map((i) => i.capability))];
