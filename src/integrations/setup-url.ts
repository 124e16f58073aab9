import type { IntegrationId } from './integrations';

export interface SetupTarget {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
}

export type SetupUrlFor = (target: SetupTarget) => string;

/**
 * The single source of every `setup_url` the Hub hands out (errors and the status endpoint): where a person
 * goes to connect `integration` for exactly this customer (and end user).
 */
export function createSetupUrlFor(publicUrl: string): SetupUrlFor {
  return ({ customerId, userId, integration }) => {
    const url = new URL(`${publicUrl}/integrations/google`);
    url.searchParams.set('integration', integration);
    url.searchParams.set('customer_id', customerId);
    if (userId !== null) url.searchParams.set('user_id', userId);
    return url.toString();
  };
}
