/**
 * The integrations the Hub can connect: each is one capability of one provider (google_calendar is Google's
 * calendar, outlook_mail is Microsoft's mail), served by the provider registry (src/providers/index.ts). The store
 * keeps them per connection, the contract names them (`integration`), so their ids live here, where every layer
 * may read them. Order matters: a refusal that names every integration that would do lists them in this order.
 */
export const INTEGRATION_IDS = ['google_calendar', 'google_gmail', 'outlook_calendar', 'outlook_mail'] as const;
export type IntegrationId = (typeof INTEGRATION_IDS)[number];
