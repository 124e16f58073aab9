import { type ProcessesEnv, replicasOf } from './processes';
import type { ProtectionEnv } from './protection';
import { type EnvOf, integer, optionalString } from './variables';

export interface UpstreamConfig {
  /** The whole tool call, retries and waits included. */
  toolDeadlineMs: number;
  /** One HTTP attempt to Google. */
  attemptTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Consecutive failed calls (5xx, network, timeout; retries included, counted once) that open a connection's circuit. */
  breakerFailures: number;
  breakerHalfOpenMs: number;
  /** The integration-wide circuit: opens on a failure rate measured across many connections, over a minimum volume. */
  globalBreaker: GlobalBreakerConfig;
  gmail: GmailProtectionConfig;
  /** How long a connected account's calendar writes are refused locally after Google's 403 quotaExceeded. */
  calendarQuotaCooldownMs: number;
  /** Replicas sharing the Gmail unit budget: without Redis each replica allows 1/replicas of it. */
  replicas: number;
  /** Longest a Gmail unit charge waits on Redis (HUB_RATE_LIMIT_REDIS_TIMEOUT_MS, as for the Hub's own limits). */
  redisTimeoutMs: number;
}

export interface GlobalBreakerConfig {
  windowMs: number;
  minCalls: number;
  minConnections: number;
  /** 0–1. */
  failureRate: number;
}

export interface GmailProtectionConfig {
  /** Requests in flight to one mailbox from this replica. */
  maxInFlight: number;
  /** Quota units one mailbox may spend per window (all replicas, with Redis). */
  quotaUnits: number;
  quotaWindowS: number;
  /** Per-method overrides of the quota units (`messages.get` → 5). */
  quotaCosts: Record<string, number>;
}

export const upstreamVariables = {
  HUB_TOOL_DEADLINE_MS: integer(25_000, 100, 300_000).describe('Deadline of a whole tool call, retries and waits included.'),
  HUB_GOOGLE_TIMEOUT_MS: integer(10_000, 50, 120_000).describe('Timeout of one HTTP attempt to Google (also bounds a token refresh).'),
  HUB_GOOGLE_MAX_RETRIES: integer(3, 0, 10).describe('Retries of a failed Google call where retrying is safe (never a Gmail send once bytes left).'),
  HUB_GOOGLE_RETRY_BASE_MS: integer(250, 1, 60_000).describe('Base of the exponential backoff between retries (full jitter).'),
  HUB_GOOGLE_RETRY_MAX_MS: integer(8_000, 1, 120_000).describe('Longest wait between two retries.'),
  HUB_BREAKER_FAILURES: integer(5, 1, 1000).describe(
    "Consecutive failed calls (5xx, network, timeout; a call and its retries count once) that open one connection's circuit.",
  ),
  HUB_BREAKER_HALF_OPEN_MS: integer(30_000, 100, 3_600_000).describe(
    "How long an open circuit (a connection's or an integration's) refuses calls before letting one test call through.",
  ),
  HUB_GLOBAL_BREAKER_WINDOW_S: integer(60, 1, 3600).describe("The sliding window over which an integration's failure rate across all connections is measured."),
  HUB_GLOBAL_BREAKER_MIN_CALLS: integer(50, 1, 1_000_000).describe(
    'Calls an integration must have made within the window before its failure rate may open the integration-wide circuit.',
  ),
  HUB_GLOBAL_BREAKER_MIN_CONNECTIONS: integer(5, 1, 10_000).describe(
    'Distinct connections that must have failed within the window before the integration-wide circuit may open.',
  ),
  HUB_GLOBAL_BREAKER_FAILURE_PERCENT: integer(50, 1, 100).describe(
    'Failed calls, in percent of all calls in the window, that open the integration-wide circuit.',
  ),
  HUB_GMAIL_MAX_IN_FLIGHT: integer(10, 1, 1000).describe(
    'Gmail requests in flight to one mailbox at once, across replicas through Redis when REDIS_URL is set, else per replica; more wait their turn (fairly across customers, in arrival order across replicas) within the deadline.',
  ),
  HUB_GMAIL_QUOTA_UNITS: integer(3000, 1, 10_000_000).describe(
    'Gmail quota units one connected mailbox may spend per window, charged before each request (shared by every customer of that mailbox).',
  ),
  HUB_GMAIL_QUOTA_WINDOW_S: integer(60, 1, 3600).describe('The fixed window of HUB_GMAIL_QUOTA_UNITS, in seconds.'),
  HUB_GMAIL_QUOTA_COSTS: optionalString
    .transform((s, ctx) => {
      const costs: Record<string, number> = {};
      for (const entry of (s ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const m = /^([A-Za-z][A-Za-z.]{0,63})=(\d{1,6})$/.exec(entry);
        if (!m || Number(m[2]) < 1) ctx.addIssue({ code: 'custom', message: `"${entry}": expected method=units (e.g. messages.get=5, units ≥ 1)` });
        else costs[m[1]!] = Number(m[2]);
      }
      return costs;
    })
    .describe("Overrides of the quota units per Gmail method (`messages.get=5,messages.send=100`); the defaults are Google's quota page."),
  HUB_CALENDAR_QUOTA_COOLDOWN_S: integer(3600, 1, 7 * 86_400).describe(
    "After Calendar answers 403 quotaExceeded, how long the account's calendar writes are refused locally (Google keeps it read-only for hours).",
  ),
};

export type UpstreamEnv = EnvOf<typeof upstreamVariables>;

export const upstreamSection = {
  variables: upstreamVariables,
  load: (e: UpstreamEnv & ProcessesEnv & Pick<ProtectionEnv, 'HUB_RATE_LIMIT_REDIS_TIMEOUT_MS'>): { upstream: UpstreamConfig } => ({
    upstream: {
      toolDeadlineMs: e.HUB_TOOL_DEADLINE_MS,
      attemptTimeoutMs: e.HUB_GOOGLE_TIMEOUT_MS,
      maxRetries: e.HUB_GOOGLE_MAX_RETRIES,
      retryBaseMs: e.HUB_GOOGLE_RETRY_BASE_MS,
      retryMaxMs: e.HUB_GOOGLE_RETRY_MAX_MS,
      breakerFailures: e.HUB_BREAKER_FAILURES,
      breakerHalfOpenMs: e.HUB_BREAKER_HALF_OPEN_MS,
      globalBreaker: {
        windowMs: e.HUB_GLOBAL_BREAKER_WINDOW_S * 1000,
        minCalls: e.HUB_GLOBAL_BREAKER_MIN_CALLS,
        minConnections: e.HUB_GLOBAL_BREAKER_MIN_CONNECTIONS,
        failureRate: e.HUB_GLOBAL_BREAKER_FAILURE_PERCENT / 100,
      },
      gmail: {
        maxInFlight: e.HUB_GMAIL_MAX_IN_FLIGHT,
        quotaUnits: e.HUB_GMAIL_QUOTA_UNITS,
        quotaWindowS: e.HUB_GMAIL_QUOTA_WINDOW_S,
        quotaCosts: e.HUB_GMAIL_QUOTA_COSTS,
      },
      calendarQuotaCooldownMs: e.HUB_CALENDAR_QUOTA_COOLDOWN_S * 1000,
      replicas: replicasOf(e),
      redisTimeoutMs: e.HUB_RATE_LIMIT_REDIS_TIMEOUT_MS,
    },
  }),
};
