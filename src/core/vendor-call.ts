import type { Result } from './errors';

/**
 * The one way a port adapter reaches its vendor: `call(op, fn)` runs `fn` — one HTTP request to the vendor — with
 * the connection's current access token (refreshed first when about to expire; refreshed once more and `fn` run
 * again when the vendor rejects a token that looked valid), inside the tool call's deadline, with per-attempt
 * timeouts, retries where `op.idempotent` says repeating is safe, the connection's and the integration's circuit
 * breakers, and the account's budgets (requests per window, concurrent requests). Each attempt counts as one of
 * the call's `metadata.api_calls`. Whatever `fn` throws is classified by the provider's own classifier into the
 * contract's codes; a failure comes back as a HubError value, never a throw.
 *
 * `fn` must hand `signal` to its HTTP request and must not retry by itself.
 */
export interface VendorOp {
  /** The vendor's name for the operation, for logs, metrics, receipts and error messages: `calendar.events.insert`, `events.create`. */
  operation: string;
  /** Safe to repeat: reads, deletes, patches, creates the vendor de-duplicates. A send is never idempotent. */
  idempotent: boolean;
  /**
   * The request body's exact size in bytes when the vendor limits uploads (Outlook: PATCH/POST/PUT bodies), charged
   * to the account's upload budget before each attempt leaves; absent or 0 for a request without a body.
   */
  uploadBytes?: number;
}

export type VendorCall = <T>(op: VendorOp, fn: (signal: AbortSignal, accessToken: string) => Promise<T>) => Promise<Result<T>>;
