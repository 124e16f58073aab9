import type { HubError } from '../../core/errors';
import { missingScopesError } from '../../integrations/scopes';
import type { ToolContext } from '../types';

/**
 * For what a tool needs only with some inputs (reading the original of a reply, marking as read): the static
 * requiredScopes cannot say it, so it is checked here, before any vendor call, with the same answer the
 * connection check gives.
 */
export function checkExtraScopes(ctx: ToolContext, toolScopes: readonly string[], extra: readonly string[], because: string): HubError | null {
  const { integration, scopes, setupUrl } = ctx.connection!;
  return missingScopesError({ integration, granted: scopes, required: [...toolScopes, ...extra], what: `needed ${because}`, setupUrl });
}
