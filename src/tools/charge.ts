import type { HubError } from '../core/errors';
import type { HubMetrics } from '../observability/metrics';
import { type Tracing, spanOutcome } from '../observability/tracing';
import type { Chargeable, RateLimiter } from '../protection/rate-limit';

/**
 * Charges one call to the caller's rate limits — the agent's, the customer's and the distinct-agent bound —
 * inside a `hub.rate_limit` span, counting a refusal by scope. Every door charges through here (POST /execute
 * through executeTool, each MCP message), so a call costs the same whichever way it arrives. `what` null: a call
 * naming no tool this Hub has, charged as a read. Null when admitted; else the RATE_LIMITED to answer.
 */
export async function chargeLimits(
  deps: { rateLimiter: RateLimiter; tracing: Tracing; metrics: HubMetrics },
  customerId: string,
  agentId: string,
  what: Chargeable | null,
): Promise<HubError | null> {
  const consume = () => (what ? deps.rateLimiter.consume(customerId, agentId, what) : deps.rateLimiter.consumeUnknownTool(customerId, agentId));
  const allowed = deps.tracing.enabled
    ? await deps.tracing.inSpan('hub.rate_limit', async (span) => {
        const r = await consume();
        spanOutcome(span, r);
        return r;
      })
    : await consume();
  if (allowed.ok) return null;
  deps.metrics.rateLimited(String(allowed.error.details?.scope ?? 'unknown'));
  return allowed.error;
}
