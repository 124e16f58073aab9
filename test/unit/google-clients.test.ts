import { createGoogleClients } from '../../src/providers/google/clients';
import { testConfig } from '../helpers/env';

describe('Google clients per access token', () => {
  const google = createGoogleClients(testConfig({ HUB_GOOGLE_SANDBOX_URL: 'http://127.0.0.1:9' }).google);

  test('when the same access token is used again, then its client and API objects are reused; another token gets its own', async () => {
    const a = google.withAccessToken('token-a');
    expect(google.withAccessToken('token-a')).toBe(a);
    expect(google.calendar(a)).toBe(google.calendar(a));
    expect(google.gmail(a)).toBe(google.gmail(a));
    const b = google.withAccessToken('token-b');
    expect(b).not.toBe(a);
    expect(google.calendar(b)).not.toBe(google.calendar(a));
    expect((await a.getAccessToken()).token).toBe('token-a');
    expect((await b.getAccessToken()).token).toBe('token-b');
  });

  test('when more tokens are used than are kept, then the least recently used client is dropped, not the others', () => {
    const first = google.withAccessToken('first');
    const second = google.withAccessToken('second');
    for (let i = 0; i < 999; i++) {
      google.withAccessToken(`filler-${i}`);
      if (i === 500) google.withAccessToken('second'); // used recently: kept
    }
    expect(google.withAccessToken('second')).toBe(second);
    expect(google.withAccessToken('first')).not.toBe(first);
  });
});
