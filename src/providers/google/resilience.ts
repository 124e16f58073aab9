import type { UpstreamConfig } from '../../config';
import type { Logger } from '../../logger';
import { gmailUnitCost } from '../../protection/mailbox-quota';
import { type Upstream, type UpstreamDeps, createResilience } from '../../resilience';
import type { VendorProfile } from '../../resilience/vendor-profile';
import { classifyGoogleError } from './errors';

/**
 * Google as the resilience layer sees it: its failures read by classifyGoogleError, and its per-account limits.
 * Gmail charges quota units per method and allows few concurrent requests per mailbox (Gmail "Usage limits",
 * https://developers.google.com/workspace/gmail/api/reference/quota) — both per mailbox, so with Redis the replicas
 * share them. Calendar has no per-account budget the Hub enforces, only the cool-down after its 403
 * quotaExceeded. Calendar and Gmail keep separate counters.
 */
export function googleVendor(config: UpstreamConfig): VendorProfile {
  const gmail = {
    group: 'google_gmail',
    budget: {
      name: 'Gmail quota',
      unit: 'units',
      units: config.gmail.quotaUnits,
      windowS: config.gmail.quotaWindowS,
      cost: (operation: string) => gmailUnitCost(operation, config.gmail.quotaCosts),
    },
    maxInFlight: config.gmail.maxInFlight,
    // Gmail's concurrent request limit is per user, "shared by all Gmail API clients accessing a given user"
    // (developers.google.com/workspace/gmail/api/guides/handle-errors): with Redis, across replicas too.
    sharedInFlight: true,
  };
  return {
    name: 'Google',
    integrations: ['google_calendar', 'google_gmail'],
    classify: classifyGoogleError,
    limits: (integration) => (integration === 'google_gmail' ? gmail : { group: integration }),
    quotaCooldownMs: config.calendarQuotaCooldownMs,
  };
}

/** The resilience layer for Google's calls: every Google integration guarded with Google's profile. */
export const createUpstream = (config: UpstreamConfig, logger: Logger, deps: UpstreamDeps = {}): Upstream =>
  createResilience(config, [googleVendor(config)], logger, deps);
