import { createCredentialCache } from '../../src/integrations/credential-cache';
import { aCredentialRecord } from '../helpers/credential-records';

/** The in-process credential cache: TTL, grouping for invalidation, replacement after a refresh. */

describe('credential cache', () => {
  let t = 0;
  const now = () => t;
  beforeEach(() => {
    t = 1_000;
  });

  it('when an entry is older than the TTL, then it is gone', () => {
    const cache = createCredentialCache(100, now);
    const r = aCredentialRecord();
    cache.put(r.customerId, null, 'google_calendar', r);
    t += 99;
    expect(cache.get(r.customerId, null, 'google_calendar')?.record).toBe(r);
    t += 1;
    expect(cache.get(r.customerId, null, 'google_calendar')).toBeUndefined();
  });

  it('when the TTL is 0, then nothing is kept', () => {
    const cache = createCredentialCache(0, now);
    const r = aCredentialRecord();
    expect(cache.put(r.customerId, null, 'google_calendar', r).record).toBe(r);
    expect(cache.get(r.customerId, null, 'google_calendar')).toBeUndefined();
  });

  it('when a user-level change is invalidated, then every lookup of that customer and integration goes, and only those', () => {
    const cache = createCredentialCache(1000, now);
    const r = aCredentialRecord();
    cache.put(r.customerId, null, 'google_calendar', r);
    cache.put(r.customerId, 'alice', 'google_calendar', r);
    cache.put(r.customerId, 'alice', 'google_gmail', aCredentialRecord({ customerId: r.customerId, integration: 'google_gmail' }));
    cache.invalidate(r.customerId.toUpperCase(), 'google_calendar');
    expect(cache.get(r.customerId, null, 'google_calendar')).toBeUndefined();
    expect(cache.get(r.customerId, 'alice', 'google_calendar')).toBeUndefined();
    expect(cache.get(r.customerId, 'alice', 'google_gmail')).toBeDefined();
  });

  it('when a user id is empty, then it is not confused with the customer-wide lookup', () => {
    const cache = createCredentialCache(1000, now);
    const r = aCredentialRecord();
    cache.put(r.customerId, '', 'google_calendar', r);
    expect(cache.get(r.customerId, null, 'google_calendar')).toBeUndefined();
  });

  it('when a credential is refreshed, then every lookup holding it gets the new record and its known token', () => {
    const cache = createCredentialCache(1000, now);
    const r = aCredentialRecord();
    const other = aCredentialRecord({ customerId: r.customerId, userId: 'bob' });
    cache.put(r.customerId, null, 'google_calendar', r);
    cache.put(r.customerId, 'alice', 'google_calendar', r);
    cache.put(r.customerId, 'bob', 'google_calendar', other);
    const fresh = { ...r, updatedAt: new Date() };
    const entry = cache.replace(fresh, 'new-token');
    expect(entry).toEqual({ record: fresh, accessToken: 'new-token' });
    expect(cache.get(r.customerId, null, 'google_calendar')).toBe(entry);
    expect(cache.get(r.customerId, 'alice', 'google_calendar')).toBe(entry);
    expect(cache.get(r.customerId, 'bob', 'google_calendar')?.record).toBe(other);
  });

  it('when it holds very many entries, then expired ones are swept and memory stays bounded', () => {
    const cache = createCredentialCache(10, now);
    const first = aCredentialRecord();
    cache.put(first.customerId, null, 'google_calendar', first);
    t += 20;
    for (let i = 0; i < 10_050; i++) {
      const r = aCredentialRecord();
      cache.put(r.customerId, null, 'google_calendar', r);
    }
    expect(cache.get(first.customerId, null, 'google_calendar')).toBeUndefined();
  });
});
