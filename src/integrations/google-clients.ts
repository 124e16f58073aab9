import { OAuth2Client } from 'google-auth-library';
// Per-API entry points: importing the googleapis root loads all ~300 APIs (about 1.3 s at start-up).
import { calendar_v3 } from 'googleapis/build/src/apis/calendar';
import { gmail_v1 } from 'googleapis/build/src/apis/gmail';
import type { Config } from '../config';

/**
 * The only way the Hub reaches Google: clients built from configuration. With the defaults they talk to Google;
 * with HUB_GOOGLE_SANDBOX_URL (or the individual endpoint variables) they talk to the Google sandbox — the code
 * paths are identical. googleapis honours `rootUrl` only per API (a global `google.options({rootUrl})` is
 * ignored by the generated methods), so each client gets it explicitly. One more trap: media uploads
 * (`media: {...}`) build their `/upload/...` URL from the per-call options only, so such a call must pass
 * `{ rootUrl }` as its second argument too — or send JSON (`requestBody.raw`), which needs nothing extra.
 */
export interface GoogleClients {
  /** An OAuth client for the configured app credentials (or none, for calls that only carry a bearer token). */
  oauth2(options?: { redirectUri?: string; /** Per HTTP request to Google's OAuth endpoints. */ timeoutMs?: number }): OAuth2Client;
  /** An OAuth client that only carries `accessToken` (no refresh: the Hub refreshes and persists tokens itself). */
  withAccessToken(accessToken: string): OAuth2Client;
  calendar(auth: OAuth2Client): calendar_v3.Calendar;
  gmail(auth: OAuth2Client): gmail_v1.Gmail;
}

export function createGoogleClients(google: Config['google']): GoogleClients {
  const { endpoints } = google;
  const oauth2 = (options: { redirectUri?: string; timeoutMs?: number } = {}) =>
    new OAuth2Client({
      ...(options.timeoutMs ? { transporterOptions: { timeout: options.timeoutMs } } : {}),
      ...(google.clientId ? { clientId: google.clientId } : {}),
      ...(google.clientSecret ? { clientSecret: google.clientSecret } : {}),
      ...(options.redirectUri ? { redirectUri: options.redirectUri } : {}),
      endpoints: {
        oauth2AuthBaseUrl: endpoints.authUrl,
        oauth2TokenUrl: endpoints.tokenUrl,
        oauth2RevokeUrl: endpoints.revokeUrl,
        tokenInfoUrl: endpoints.tokenInfoUrl,
        oauth2FederatedSignonPemCertsUrl: endpoints.pemCertsUrl,
        oauth2FederatedSignonJwkCertsUrl: endpoints.jwkCertsUrl,
      },
    });
  return {
    oauth2,
    withAccessToken: (accessToken) => {
      const client = oauth2();
      client.setCredentials({ access_token: accessToken });
      return client;
    },
    calendar: (auth) => new calendar_v3.Calendar({ auth, rootUrl: endpoints.calendarRootUrl }),
    gmail: (auth) => new gmail_v1.Gmail({ auth, rootUrl: endpoints.gmailRootUrl }),
  };
}
