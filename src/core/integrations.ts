/**
 * The integrations the Hub can connect today: each is one capability of one provider (google_calendar is Google's
 * calendar), served by the provider registry (src/providers/index.ts). The store keeps them per connection, the
 * contract names them (`integration`), so their ids live here, where every layer may read them.
 */
export const INTEGRATION_IDS = ['google_calendar', 'google_gmail'] as const;
export type IntegrationId = (typeof INTEGRATION_IDS)[number];
