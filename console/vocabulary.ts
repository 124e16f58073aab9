/**
 * The Hub's own vocabulary for the console's choices, sent with the page (meta tags, no inline script under the
 * CSP) so the filters offer exactly what the API accepts: the catalog's tool names and the closed set of error
 * codes.
 */
const words = (name: string): string[] => (document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '').split(' ').filter((w) => w !== '');

export const TOOL_NAMES: readonly string[] = words('hub-tools');
export const ERROR_CODES: readonly string[] = words('hub-error-codes');
