import { ConfigError } from './parse-env';
import type { UpstreamEnv } from './upstream';
import { type EnvOf, integer } from './variables';

export interface LifecycleConfig {
  /** How long in-flight calls may finish once the listener has closed; never below the tool deadline. */
  shutdownTimeoutMs: number;
  /** How long readiness fails before the listener closes, so load balancers stop sending first. */
  shutdownGraceMs: number;
}

export const lifecycleVariables = {
  HUB_SHUTDOWN_TIMEOUT_MS: integer(undefined, 0, 600_000)
    .meta({ defaultText: '`$HUB_TOOL_DEADLINE_MS + 2000`' })
    .describe(
      'After SIGTERM/SIGINT and the grace period: how long in-flight calls may finish before connections are cut (ms); at least HUB_TOOL_DEADLINE_MS, default HUB_TOOL_DEADLINE_MS + 2000.',
    ),
  HUB_SHUTDOWN_GRACE_MS: integer(5_000, 0, 120_000).describe(
    'After SIGTERM/SIGINT: how long /readyz answers 503 while the Hub still accepts and serves connections, so a load balancer drains it first (ms).',
  ),
};

export type LifecycleEnv = EnvOf<typeof lifecycleVariables>;

/**
 * A call may run for the whole tool deadline and then needs a moment to answer: a shutdown that cuts
 * connections sooner loses answers (a sent email whose reply never arrives), so it is refused.
 */
function lifecycleTimes(e: LifecycleEnv & Pick<UpstreamEnv, 'HUB_TOOL_DEADLINE_MS'>): LifecycleConfig {
  const shutdownTimeoutMs = e.HUB_SHUTDOWN_TIMEOUT_MS ?? e.HUB_TOOL_DEADLINE_MS + 2_000;
  if (shutdownTimeoutMs < e.HUB_TOOL_DEADLINE_MS) {
    throw new ConfigError([
      `HUB_SHUTDOWN_TIMEOUT_MS: ${shutdownTimeoutMs} is below HUB_TOOL_DEADLINE_MS (${e.HUB_TOOL_DEADLINE_MS}); a call in flight at shutdown could be cut off — use at least ${e.HUB_TOOL_DEADLINE_MS} (unset: deadline + 2000)`,
    ]);
  }
  return { shutdownTimeoutMs, shutdownGraceMs: e.HUB_SHUTDOWN_GRACE_MS };
}

export const lifecycleSection = {
  variables: lifecycleVariables,
  load: lifecycleTimes,
};
