import type { ServerEnv } from './server';
import { type EnvOf, optionalString } from './variables';

/** The MCP endpoint: browser origins allowed to call it (its public origin when not configured). */
export interface McpConfig {
  allowedOrigins: string[];
}

/** Browser origins allowed to call POST /mcp: a comma-separated list of exact origins (scheme://host[:port]). */
const origins = optionalString.transform((s, ctx) => {
  const list = (s ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const o of list) {
    let u: URL | undefined;
    try {
      u = new URL(o);
    } catch {
      u = undefined;
    }
    if (!u || u.origin !== o) ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin (scheme://host[:port], no path)` });
  }
  return list;
});

export const mcpVariables = {
  HUB_MCP_ALLOWED_ORIGINS: origins
    .meta({ defaultText: 'the origin of `HUB_PUBLIC_URL`' })
    .describe(
      'Comma-separated browser origins that may call `POST /mcp`; a request carrying any other `Origin` header is refused with 403 (DNS-rebinding protection). Requests without `Origin` (servers, CLIs) are not affected.',
    ),
};

export type McpEnv = EnvOf<typeof mcpVariables>;

export const mcpSection = {
  variables: mcpVariables,
  load: (e: McpEnv & Pick<ServerEnv, 'HUB_PUBLIC_URL'>): { mcp: McpConfig } => ({
    mcp: { allowedOrigins: e.HUB_MCP_ALLOWED_ORIGINS.length > 0 ? e.HUB_MCP_ALLOWED_ORIGINS : [new URL(e.HUB_PUBLIC_URL).origin] },
  }),
};
