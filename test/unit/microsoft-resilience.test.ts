import { GraphError } from '../../src/providers/microsoft/graph-request';
import { microsoftVendor } from '../../src/providers/microsoft/resilience';
import { testConfig } from '../helpers/env';

/** Microsoft's profile for the resilience layer: Outlook's per-mailbox limits as configured, and its classifier. */

const defaults = () => testConfig().microsoft.mailboxLimits;

test('when calendar and mail of one mailbox are guarded by default, then they draw on one budget of 10,000 requests per 10 minutes and 4 in flight', () => {
  const vendor = microsoftVendor(defaults());
  const calendar = vendor.limits('outlook_calendar');
  expect(vendor.limits('outlook_mail')).toBe(calendar);
  expect(calendar).toMatchObject({ group: 'outlook_mailbox', maxInFlight: 4, budget: { units: 10_000, windowS: 600, unit: 'requests', window: 'sliding' } });
  expect(calendar.uploads).toEqual({ name: 'Outlook upload limit', bytes: 150 * 1024 * 1024, windowS: 300 });
  expect(calendar.budget!.cost('messages.send')).toBe(1);
  expect(calendar.budget!.cost('calendar.getSchedule')).toBe(1);
  expect(vendor.integrations).toEqual(['outlook_calendar', 'outlook_mail']);
});

test('when the mailbox limits are configured lower, then the profile carries the configured budgets and in-flight cap', () => {
  const { microsoft } = testConfig({
    HUB_OUTLOOK_QUOTA_REQUESTS: '30',
    HUB_OUTLOOK_QUOTA_WINDOW_S: '60',
    HUB_OUTLOOK_MAX_IN_FLIGHT: '2',
    HUB_OUTLOOK_UPLOAD_BYTES: '500000',
    HUB_OUTLOOK_UPLOAD_WINDOW_S: '120',
  });
  expect(microsoftVendor(microsoft.mailboxLimits).limits('outlook_mail')).toMatchObject({
    maxInFlight: 2,
    budget: { units: 30, windowS: 60 },
    uploads: { bytes: 500_000, windowS: 120 },
  });
});

test("when Graph throttles with Retry-After, then the profile's classifier reads it as rate_limited with that wait", () => {
  const failure = microsoftVendor(defaults()).classify(new GraphError(429, 'ApplicationThrottled', 'Too many requests', 7_000, undefined), {
    operation: 'messages.list',
  });
  expect(failure).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7_000 });
  expect(failure!.error.code).toBe('RATE_LIMITED');
});
