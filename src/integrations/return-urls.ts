/**
 * Where a finished connect flow may send the person: only to a URL under one of the configured prefixes
 * (HUB_CONNECT_RETURN_URLS). Compared on the parsed URL — same origin, and a path under the prefix's path at a
 * segment boundary — so `https://app.example.com.evil.test` or `https://app.example.com/done/../../x` cannot
 * pass as `https://app.example.com/done`.
 */
export function isAllowedReturnUrl(candidate: string, prefixes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (url.username || url.password) return false;
  return prefixes.some((p) => {
    const prefix = new URL(p);
    if (prefix.origin !== url.origin) return false;
    const base = prefix.pathname.endsWith('/') ? prefix.pathname : `${prefix.pathname}/`;
    return url.pathname === prefix.pathname || url.pathname.startsWith(base);
  });
}
