import type { ClassifiedFailure, ClassifyOptions } from './failures';

/**
 * What the resilience layer needs from a provider to guard its calls: the vendor's name (for messages), the
 * classifier of whatever a request to it threw, and its per-account limits as data. The layer itself knows no
 * vendor: Google's profile lives in src/providers/google/resilience.ts.
 */

/** A budget of cost units per sliding window, per account (Gmail: 15,000 quota units a minute per user). */
export interface AccountBudget {
  /** As messages name it: "Gmail quota", "Outlook request limit". */
  name: string;
  /** What the units are: "units", "requests". */
  unit: string;
  units: number;
  windowS: number;
  /** What one attempt of `operation` costs (Gmail: messages.send 100 units; Graph: 1 request). */
  cost(operation: string): number;
  /**
   * How the window moves. `fixed` (the default): it starts at the account's first charge and refills at once when
   * it ends — cheap, but up to twice `units` can be spent across its end, so the vendor's figure must be halved
   * (Gmail). `sliding`: every unit counts for `windowS` after it was spent, so `units` may be the vendor's own figure
   * (Outlook); it keeps a log of up to `units` entries per account.
   */
  window?: 'fixed' | 'sliding';
}

/**
 * A budget of request-body bytes per sliding window, per account (Outlook: "150 megabytes (MB) upload (PATCH, POST,
 * PUT) in a 5 minute period", learn.microsoft.com/graph/throttling-limits#outlook-service-limits). Each attempt is
 * charged the bytes its operation says it carries (UpstreamOp.uploadBytes) before it leaves; one log entry per
 * attempt, whatever its size (weighted-log.ts).
 */
export interface UploadBudget {
  /** As messages name it: "Outlook upload limit". */
  name: string;
  bytes: number;
  windowS: number;
}

/** An integration's per-account limits; absent parts are not enforced by the Hub. */
export interface AccountLimits {
  /**
   * Which counters the account's calls draw on: integrations with the same group share their cool-downs, budget
   * and in-flight cap for one account (Outlook: calendar and mail of one mailbox share one budget).
   */
  group: string;
  budget?: AccountBudget;
  /** Bytes the account's requests may carry per window; always sliding. */
  uploads?: UploadBudget;
  /** Requests of one account in flight at once (Gmail's concurrent-request limit; Outlook: 4). */
  maxInFlight?: number;
  /**
   * The vendor counts `maxInFlight` per account whichever client sends (Outlook, Gmail): with Redis the cap holds
   * across replicas (shared-mailbox-slots.ts: waiters served in arrival order), behind each replica's own. Absent,
   * or without Redis, each replica keeps the cap alone.
   */
  sharedInFlight?: boolean;
}

export interface VendorProfile {
  /** The vendor's name as messages say it: "Google", "Microsoft". */
  name: string;
  /** The integrations whose calls this profile guards (each has its own integration-wide circuit). */
  integrations: readonly string[];
  /** undefined: `err` is not a failure of the vendor or the transport (a bug in the caller) — re-thrown. */
  classify(err: unknown, options: ClassifyOptions): ClassifiedFailure | undefined;
  limits(integration: string): AccountLimits;
  /** How long an account stays held back after the vendor's quota_exceeded answer. */
  quotaCooldownMs: number;
}
