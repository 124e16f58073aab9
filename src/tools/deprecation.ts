import type { AnyTool } from './types';

/** What a deprecated version's answer says about itself: in `metadata.deprecation` and in headers. */
export interface DeprecationNotice {
  deprecated_at: string;
  sunset_at?: string;
  replacement?: string;
  message: string;
}

/** The version that ran, for `metadata.tool_version`, and its deprecation when it has one. */
export interface VersionInfo {
  version: string;
  deprecation?: { notice: DeprecationNotice; headers: readonly string[] };
}

/** Where the catalog (which lists every version's status and replacement) is: the Deprecation link's target. */
const CATALOG_LINK = '</api/internal/tools/>; rel="deprecation"; type="application/json"';

/**
 * Computed once per tool version at start. Headers: `Deprecation: @<unix seconds>` (RFC 9745: a Structured
 * Fields Date), `Sunset: <HTTP-date>` (RFC 8594: IMF-fixdate, which Date#toUTCString writes), and a `Link`
 * with rel="deprecation" to the catalog.
 */
export function versionInfo(tool: AnyTool): VersionInfo {
  const life = tool.lifecycle;
  if (life?.status !== 'deprecated' || life.deprecatedAt === undefined) return { version: tool.version };
  const deprecatedAt = Date.parse(life.deprecatedAt);
  const notice: DeprecationNotice = {
    deprecated_at: new Date(deprecatedAt).toISOString(),
    ...(life.sunsetAt !== undefined ? { sunset_at: new Date(Date.parse(life.sunsetAt)).toISOString() } : {}),
    ...(life.replacement !== undefined ? { replacement: life.replacement } : {}),
    message:
      `${tool.name}@${tool.version} is deprecated` +
      (life.sunsetAt !== undefined ? ` and may stop answering after ${new Date(Date.parse(life.sunsetAt)).toISOString()}` : '') +
      (life.replacement !== undefined ? `; call ${life.replacement} instead` : ''),
  };
  const headers = ['Deprecation', `@${Math.floor(deprecatedAt / 1000)}`];
  if (life.sunsetAt !== undefined) headers.push('Sunset', new Date(Date.parse(life.sunsetAt)).toUTCString());
  headers.push('Link', CATALOG_LINK);
  return { version: tool.version, deprecation: { notice, headers } };
}
