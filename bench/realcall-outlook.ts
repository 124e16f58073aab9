import { randomBytes, randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { DEDUP_PROPERTY } from '../src/providers/microsoft/calendar-create';
import { PREFER } from '../src/providers/microsoft/calendar-graph';
import { OUTLOOK_CALENDAR_SCOPES, OUTLOOK_MAIL_SCOPES } from '../src/providers/microsoft/catalog';
import { type GraphRequest, graphFetch } from '../src/providers/microsoft/graph-request';
import { IMMUTABLE_IDS } from '../src/providers/microsoft/mail-context';
import { SUMMARY_FIELDS } from '../src/providers/microsoft/mail-schemas';
import { planSearch } from '../src/providers/microsoft/search-plan';
import type { CredentialStore } from '../src/store/credential-store';
import { graphClientFor } from './graph-client-microsoft';
import { DIST, startProcess, stopProcess } from './spawned';

/**
 * bench:realcall's Outlook part (BENCH_VENDORS contains `microsoft`): the compiled Microsoft sandbox in a process of
 * its own, an Outlook customer in the Hub's credential store, and the same Graph requests the Hub's adapters make,
 * sent straight with @microsoft/microsoft-graph-client (bench/graph-client-microsoft.ts):
 *   calendar_get_availability — one POST /me/calendar/getSchedule for the account's own address over the range in
 *     UTC, availabilityViewInterval 1440 (calendar-free-busy.ts; the address is the connection's, the zone is
 *     mailboxSettings' and cached, so neither costs a request per call);
 *   calendar_create_event — one POST /me/calendar/events with a transactionId and the dedupe extended property
 *     (calendar-create.ts);
 *   email_search (max_results 3, no bodies) — one GET /me/messages with the planned `$search` and `$select` of the
 *     summary fields (mail-search.ts: a summary needs no read per message; the Deleted Items and Junk Email ids
 *     it leaves out are cached per connection).
 * The sandbox's throttling is off (PUT /_sandbox/throttling {"preset":"off"}): Outlook's 4 concurrent requests and
 * 10,000 per 10 minutes per mailbox would measure Microsoft's limits, not the Hub's CPU and latency — as realcall
 * turns the Google sandbox's Gmail quotas off.
 */

export const MS_SANDBOX_MAIN = relative(DIST, require.resolve('@hub/microsoft-sandbox/main'));
/** The sandbox's default app registration (public: MS_SANDBOX_DEFAULT_APP in @hub/microsoft-sandbox). */
const APP = { clientId: '5a1f0c1e-7b1d-4c55-9d2e-0b5a1d7e3c11', clientSecret: 'sandbox~client~secret~not~for~production' };
export const OUTLOOK_UPN = 'ana@contoso.example';
/**
 * A second mailbox, seeded alike, for the throughput rounds: Outlook's budget is 10,000 requests per 10 minutes
 * per app and mailbox (limits.ts), which the Hub enforces, and one mailbox cannot carry both sections of a run.
 */
const THROUGHPUT_UPN = 'bea@contoso.example';
const ZONE = 'America/New_York';
const SEARCH = 'subject:report';

export interface OutlookWorld {
  /** What a Hub needs to reach this sandbox as Microsoft. */
  hubEnv: Record<string, string>;
  /** Stores an Outlook-only customer's calendar and mail connections (to the second mailbox: `throughput`); resolves with its id. */
  connect(store: CredentialStore, mailbox?: 'first' | 'throughput'): Promise<string>;
  /** The Graph requests the Hub makes for `tool`, straight to the sandbox. */
  direct(tool: string): Promise<void>;
  /** The same through a bare forwarder (the floor). */
  floor(tool: string): Promise<void>;
  /**
   * The same requests over the Hub's own transport (graphFetch, the Hub's Graph exchange), straight to the sandbox:
   * `direct` minus this is what the reference client costs beyond the Hub's transport.
   */
  lean(tool: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startOutlookWorld(): Promise<OutlookWorld> {
  const sb = await startProcess(
    MS_SANDBOX_MAIN,
    {
      MS_SANDBOX_PORT: '0',
      MS_SANDBOX_CONTROL: 'on',
      MS_SANDBOX_DEMO_DATA: 'off',
      MS_SANDBOX_SEED: '7',
      MS_SANDBOX_CLIENT_ID: APP.clientId,
      MS_SANDBOX_CLIENT_SECRET: APP.clientSecret,
      MS_SANDBOX_REDIRECT_URIS: 'http://127.0.0.1/integrations/microsoft/callback',
    },
    (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
  );
  let fwd: Awaited<ReturnType<typeof startProcess>> | undefined;
  const stop = async () => {
    if (fwd) await stopProcess(fwd.child);
    await stopProcess(sb.child);
  };
  try {
    const url = sb.found;
    const control = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/_sandbox${path}`, {
        method,
        ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
      });
      if (!res.ok) throw new Error(`Microsoft sandbox ${path}: ${res.status} ${await res.text()}`);
      return (res.status === 204 ? {} : await res.json()) as Record<string, unknown>;
    };
    // The same world as the Google side: 40 meetings from 2027-03-01, 20 weekly reports in the inbox.
    const seed = async (upn: string) => {
      await control('POST', '/accounts', { upn, display_name: 'Ana García', time_zone: ZONE });
      for (let i = 0; i < 40; i++) {
        const start = Date.parse('2027-03-01T14:00:00Z') + i * 86_400_000 * 0.5;
        await control('POST', `/accounts/${upn}/events`, {
          subject: `Meeting ${i}`,
          start: new Date(start).toISOString(),
          end: new Date(start + 3_600_000).toISOString(),
        });
      }
      for (let i = 0; i < 20; i++) {
        await control('POST', `/accounts/${upn}/messages`, {
          from: { name: `Sender ${i}`, address: `sender${i}@partner.example` },
          to: [{ address: upn }],
          subject: `Weekly report ${i}`,
          text: `Report number ${i}. ${'Figures and commentary. '.repeat(20)}`,
          received: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        });
      }
      const grant = (scopes: readonly string[]) => control('POST', '/tokens', { upn, client_id: APP.clientId, scopes, offline: true });
      return { upn, calGrant: await grant(OUTLOOK_CALENDAR_SCOPES), mailGrant: await grant(OUTLOOK_MAIL_SCOPES) };
    };
    const first = await seed(OUTLOOK_UPN);
    const second = await seed(THROUGHPUT_UPN);
    await control('PUT', '/throttling', { preset: 'off' });
    const { calGrant, mailGrant } = first;

    fwd = await startProcess('bench/forwarder.js', { FORWARD_TO: url }, (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1]);
    const callsVia = (origin: string) => {
      const calendar = graphClientFor(origin, String(calGrant.access_token));
      const mail = graphClientFor(origin, String(mailGrant.access_token));
      return (tool: string) => graphCall(tool, calendar, mail);
    };

    return {
      hubEnv: {
        HUB_MICROSOFT_SANDBOX_URL: url,
        HUB_MICROSOFT_CLIENT_ID: APP.clientId,
        HUB_MICROSOFT_CLIENT_SECRET: APP.clientSecret,
      },
      async connect(store, mailbox = 'first') {
        const account = mailbox === 'first' ? first : second;
        const customerId = randomUUID();
        const now = Date.now();
        for (const [integration, g, scopes] of [
          ['outlook_calendar', account.calGrant, OUTLOOK_CALENDAR_SCOPES],
          ['outlook_mail', account.mailGrant, OUTLOOK_MAIL_SCOPES],
        ] as const) {
          await store.save({
            customerId,
            userId: null,
            integration,
            accountEmail: account.upn,
            scopes,
            accessToken: String(g.access_token),
            refreshToken: String(g.refresh_token),
            tokenExpiresAt: new Date(now + Number(g.expires_in) * 1000),
            lastRefreshedAt: new Date(now),
          });
        }
        return customerId;
      },
      direct: callsVia(url),
      floor: callsVia(fwd.found),
      lean: (tool) => leanCall(tool, `${url}/v1.0`, String(calGrant.access_token), String(mailGrant.access_token)),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The `$search` value the Hub sends for SEARCH (mail-search.ts: the KQL in double quotes, escaped). */
const plan = planSearch(SEARCH, { now: Date.now(), ownAddress: null });
const SEARCH_VALUE = `"${(plan.kql ?? '').replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
if (plan.mode !== 'search' || plan.folder !== null) throw new Error(`the Hub plans ${SEARCH} differently now: update bench/realcall-outlook.ts`);

/** The Graph request the Hub's adapters make for one call of `tool` (the inputs realcall posts to the Hub), and whose token it takes. */
function requestFor(tool: string): { mailbox: 'calendar' | 'mail'; req: GraphRequest } {
  if (tool === 'calendar_get_availability') {
    // 2027-03-01 … 2027-03-07 in America/New_York, as UTC wall times.
    return {
      mailbox: 'calendar',
      req: {
        method: 'POST',
        path: '/me/calendar/getSchedule',
        headers: { Prefer: PREFER },
        body: {
          schedules: [OUTLOOK_UPN],
          startTime: { dateTime: '2027-03-01T05:00:00.000', timeZone: 'UTC' },
          endTime: { dateTime: '2027-03-08T05:00:00.000', timeZone: 'UTC' },
          availabilityViewInterval: 1440,
        },
      },
    };
  }
  if (tool === 'calendar_create_event') {
    const key = randomBytes(20).toString('hex');
    return {
      mailbox: 'calendar',
      req: {
        method: 'POST',
        path: '/me/calendar/events',
        headers: { Prefer: PREFER },
        body: {
          subject: 'Bench',
          start: { dateTime: '2030-02-10T19:00:00.000', timeZone: 'UTC' },
          end: { dateTime: '2030-02-10T20:00:00.000', timeZone: 'UTC' },
          isAllDay: false,
          transactionId: `hub-${key}`,
          singleValueExtendedProperties: [{ id: DEDUP_PROPERTY, value: key }],
        },
      },
    };
  }
  if (tool === 'email_search') {
    return {
      mailbox: 'mail',
      req: { method: 'GET', path: '/me/messages', headers: { Prefer: IMMUTABLE_IDS }, query: { $select: SUMMARY_FIELDS, $top: '3', $search: SEARCH_VALUE } },
    };
  }
  throw new Error(`bench:realcall has no Outlook requests for ${tool}`);
}

/** An email_search answer must list the 3 messages asked for, whichever way it was fetched. */
function checkListed(tool: string, answer: unknown, way: string): void {
  if (tool !== 'email_search') return;
  const listed = (answer as { value?: unknown[] } | undefined)?.value?.length;
  if (listed !== 3) throw new Error(`email_search on Outlook ${way} listed ${listed} messages, not 3`);
}

/** requestFor's request, sent with @microsoft/microsoft-graph-client. */
async function graphCall(tool: string, calendar: ReturnType<typeof graphClientFor>, mail: ReturnType<typeof graphClientFor>): Promise<void> {
  const { mailbox, req } = requestFor(tool);
  const request = (mailbox === 'calendar' ? calendar : mail)
    .api(req.path)
    .headers(req.headers ?? {})
    .query(req.query ?? {});
  checkListed(tool, req.method === 'POST' ? await request.post(req.body) : await request.get(), 'straight');
}

/** requestFor's request, sent as the Hub's adapters send it: graphFetch over the Hub's transport (src/providers/lean-http.ts). */
async function leanCall(tool: string, graphUrl: string, calendarToken: string, mailToken: string): Promise<void> {
  const { mailbox, req } = requestFor(tool);
  const answer = await graphFetch(graphUrl, mailbox === 'calendar' ? calendarToken : mailToken, req, AbortSignal.timeout(30_000));
  checkListed(tool, answer.body, "over the Hub's transport");
}
