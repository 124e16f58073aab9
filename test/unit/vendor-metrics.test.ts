import { createMetrics } from '../../src/observability/metrics';

/**
 * The provider dimension of the vendor metrics: Microsoft Graph's attempts, throttling and refreshes count beside
 * Google's under `provider`, from the catalog's closed set — an integration it does not know is `(unknown)`, never
 * a new label value — and only Google's attempts also reach the older hub_google_* series.
 */

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

test('when Graph throttles an Outlook attempt and Google answers one, then each counts under its provider, the 429 as throttled', async () => {
  const metrics = createMetrics({ knownTools: [], defaultMetrics: false });
  metrics.vendorRequest('outlook_mail', 'graph.messages.list', 429, 'rate_limited', 0.2);
  metrics.vendorRequest('outlook_mail', 'graph.messages.list', 200, undefined, 0.1);
  metrics.vendorRequest('google_calendar', 'calendar.events.list', 200, undefined, 0.1);
  metrics.vendorRetry('outlook_mail', 'graph.messages.list');
  const { body } = await metrics.scrape();
  expect(sample(body, 'hub_vendor_requests_total{provider="microsoft",operation="graph.messages.list",status_class="4xx"}')).toBe(1);
  expect(sample(body, 'hub_vendor_requests_total{provider="microsoft",operation="graph.messages.list",status_class="2xx"}')).toBe(1);
  expect(sample(body, 'hub_vendor_throttled_total{provider="microsoft",operation="graph.messages.list"}')).toBe(1);
  expect(sample(body, 'hub_vendor_retries_total{provider="microsoft",operation="graph.messages.list"}')).toBe(1);
  expect(sample(body, 'hub_vendor_requests_total{provider="google",operation="calendar.events.list",status_class="2xx"}')).toBe(1);
  expect(sample(body, 'hub_google_requests_total{operation="calendar.events.list",status_class="2xx"}')).toBe(1);
  expect(body).not.toContain('hub_google_requests_total{operation="graph.messages.list"');
  expect(body).not.toContain('hub_google_retries_total{operation="graph.messages.list"}');
});

test('when refreshes of both vendors and of an integration the catalog does not know are counted, then the provider label stays in its closed set', async () => {
  const metrics = createMetrics({ knownTools: [], defaultMetrics: false });
  metrics.tokenRefresh('ok', 'outlook_calendar');
  metrics.tokenRefresh('invalid_grant', 'google_gmail');
  metrics.tokenRefresh('transient', 'fax_machine');
  const { body } = await metrics.scrape();
  expect(sample(body, 'hub_token_refreshes_total{provider="microsoft",result="ok"}')).toBe(1);
  expect(sample(body, 'hub_token_refreshes_total{provider="google",result="invalid_grant"}')).toBe(1);
  expect(sample(body, 'hub_token_refreshes_total{provider="(unknown)",result="transient"}')).toBe(1);
  expect(body).not.toContain('fax_machine');
});
