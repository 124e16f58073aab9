import { GraphError } from '../../src/providers/microsoft/graph-request';
import { microsoftVendor } from '../../src/providers/microsoft/resilience';

/** Microsoft's profile for the resilience layer: Outlook's per-mailbox limits as Graph documents them, and its classifier. */

test('when calendar and mail of one mailbox are guarded, then they draw on one budget of 10,000 requests per 10 minutes and 4 in flight', () => {
  const vendor = microsoftVendor();
  const calendar = vendor.limits('outlook_calendar');
  expect(vendor.limits('outlook_mail')).toBe(calendar);
  expect(calendar).toMatchObject({ group: 'outlook_mailbox', maxInFlight: 4, budget: { units: 10_000, windowS: 600, unit: 'requests' } });
  expect(calendar.budget!.cost('messages.send')).toBe(1);
  expect(calendar.budget!.cost('calendar.getSchedule')).toBe(1);
  expect(vendor.integrations).toEqual(['outlook_calendar', 'outlook_mail']);
});

test("when Graph throttles with Retry-After, then the profile's classifier reads it as rate_limited with that wait", () => {
  const failure = microsoftVendor().classify(new GraphError(429, 'ApplicationThrottled', 'Too many requests', 7_000, undefined), {
    operation: 'messages.list',
  });
  expect(failure).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7_000 });
  expect(failure!.error.code).toBe('RATE_LIMITED');
});
