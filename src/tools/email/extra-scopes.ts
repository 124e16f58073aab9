import type { Permission } from '../../core/capabilities';
import type { HubError } from '../../core/errors';
import { missingScopesError } from '../../integrations/scopes';
import type { ToolContext } from '../types';

/**
 * For what a tool needs only with some inputs (reading the original of a reply, marking as read): the static
 * permissions cannot say it, so it is checked here, before any vendor call, against the answering connection's
 * own provider, with the same answer the connection check gives.
 */
export function checkExtraScopes(ctx: ToolContext, toolPermissions: readonly Permission[], extra: readonly Permission[], because: string): HubError | null {
  const { integration, scopes, setupUrl } = ctx.connection!;
  return missingScopesError({ integration, granted: scopes, permissions: [...toolPermissions, ...extra], what: `needed ${because}`, setupUrl });
}
