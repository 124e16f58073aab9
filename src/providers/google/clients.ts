import { OAuth2Client } from 'google-auth-library';
// Google's per-API packages (one API each, the same generated code googleapis ships): the monolithic googleapis
// package held ~300 APIs (242 MB installed) for the two the Hub calls.
import { calendar_v3 } from '@googleapis/calendar';
import { gmail_v1 } from '@googleapis/gmail';
import type { Config } from '../../config';
import { createGoogleHttp } from './http';

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
  oauth2(options?: { redirectUri?: string /** Per HTTP request to Google's OAuth endpoints. */; timeoutMs?: number }): OAuth2Client;
  /** An OAuth client that only carries `accessToken` (no refresh: the Hub refreshes and persists tokens itself). */
  withAccessToken(accessToken: string): OAuth2Client;
  calendar(auth: OAuth2Client): calendar_v3.Calendar;
  gmail(auth: OAuth2Client): gmail_v1.Gmail;
}

/** Access-token clients kept (one per connection in use; a token lives an hour). */
const CLIENTS_KEPT = 1000;

export function createGoogleClients(google: Config['google']): GoogleClients {
  const { endpoints } = google;
  // The API calls (and what the OAuth clients built here send) go through one transport, HUB_GOOGLE_HTTP. The
  // token endpoint's grants (token-endpoint.ts, oauth.ts) keep gaxios' default: a few an hour per connection.
  const fetchImplementation = google.http === 'lean' ? createGoogleHttp() : undefined;
  const oauth2 = (options: { redirectUri?: string; timeoutMs?: number } = {}) =>
    new OAuth2Client({
      transporterOptions: {
        ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
        ...(fetchImplementation ? { fetchImplementation } : {}),
      },
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
  // One client per access token, kept while the token is in use: building an OAuth2Client (and the API objects on
  // it) per call was a tenth of the Hub's CPU per Google call. A client holding only an access token has no state
  // a call changes (it cannot refresh), so concurrent calls share it. Bounded: the least recently used goes first.
  const byToken = new Map<string, OAuth2Client>();
  const apis = new WeakMap<OAuth2Client, { calendar?: calendar_v3.Calendar; gmail?: gmail_v1.Gmail }>();
  const apisOf = (auth: OAuth2Client) => {
    let entry = apis.get(auth);
    if (!entry) apis.set(auth, (entry = {}));
    return entry;
  };
  return {
    oauth2,
    withAccessToken: (accessToken) => {
      let client = byToken.get(accessToken);
      if (client) {
        byToken.delete(accessToken); // re-inserted below: Map order is recency
      } else {
        client = oauth2();
        client.setCredentials({ access_token: accessToken });
        if (byToken.size >= CLIENTS_KEPT) byToken.delete(byToken.keys().next().value!);
      }
      byToken.set(accessToken, client);
      return client;
    },
    calendar: (auth) => {
      const entry = apisOf(auth);
      return (entry.calendar ??= new calendar_v3.Calendar({ auth, rootUrl: endpoints.calendarRootUrl }));
    },
    gmail: (auth) => {
      const entry = apisOf(auth);
      return (entry.gmail ??= new gmail_v1.Gmail({ auth, rootUrl: endpoints.gmailRootUrl }));
    },
  };
}
