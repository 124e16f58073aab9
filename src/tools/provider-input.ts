import { z } from 'zod';
import { PROVIDER_IDS } from '../core/capabilities';

/**
 * The optional `provider` input of every calendar and email tool: the agent pins which connected provider answers
 * this call. Without it the provider choice rule decides (docs/provider-choice.md); pinned to a provider the
 * caller has not connected, the call is INTEGRATION_NOT_CONNECTED naming only that provider's integration — never
 * answered by the other one. The pipeline reads it before the tool runs (execute.ts) — tools never look at it.
 */
export const providerInput = z
  .enum(PROVIDER_IDS)
  .describe(
    'Which connected provider answers: google (Google Calendar, Gmail) or microsoft (Outlook). Leave it out to let ' +
      "the Hub choose: the end user's own connection first, else the only one connected, else the customer's default.",
  );
