import { DateTime } from 'luxon';
import { DEMO_ACCOUNTS, dateOnly, mondayOf } from '@hub/google-sandbox';

/**
 * The lines `npm run demo` prints: shell commands that work as pasted into bash or zsh from the project directory,
 * each after a `#` comment. The service secret is always `"$HUB_SECRET"` in double quotes, set by the first
 * line; JSON bodies are single-quoted with any `'` escaped. A test pastes every line into bash.
 */

export const DEMO_CUSTOMER_ID = '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00';
export const DEMO_AGENT_ID = '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b';
/** The second demo customer: connected to the Microsoft sandbox (Outlook Calendar and Outlook Mail), never to Google. */
export const DEMO_MICROSOFT_CUSTOMER_ID = '7a1d3e5b-2c4f-4b6a-8d9e-0f1a2b3c4d5e';
/** Ana Lima's colleague in the Microsoft sandbox's demo tenant (MS_DEMO_ACCOUNTS.ben: not imported, the lines stay sandbox-free). */
const NORTHWIND_BEN = 'ben@northwind.example';

export interface DemoFacts {
  /** The Hub as the person reaches it (`http://$DEMO_HOST:$HUB_PORT`). */
  hubUrl: string;
  sandboxUrl: string;
  /** The Microsoft sandbox beside it, when the demo runs one. */
  microsoftSandboxUrl?: string;
  /** The generated service secret, or undefined when HUB_SERVICE_SECRETS was given. */
  generatedSecret: string | undefined;
  /** A fresh suffix per start, so a restarted demo's writes never meet the last run's idempotency records. */
  runId: string;
  /** The create line's request_id (fresh per start) and the Google event id the Hub gives that create. */
  event: { requestId: string; id: string };
  /** Ids the sandbox gave the seeded mail this run. */
  mail: { deckMessageId: string; timelineThreadId: string };
  /** `-H "Authorization: Bearer …"` value for the admin API: a command substitution, or a minted token. */
  adminBearer: string;
  /** A signed link to open in a browser: connect an end user's calendar on the sandbox's consent page. */
  connectUrl: string;
  /** The same for the Microsoft demo customer, when the demo runs the Microsoft sandbox: its sign-in and consent page. */
  microsoftConnectUrl?: string;
  now: Date;
}

/** POSIX single quotes: everything literal; a `'` inside closes, escapes and reopens. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function demoLines(f: DemoFacts): string[] {
  const auth = '-H "Authorization: ServiceSecret $HUB_SECRET"';
  const execute = (body: object) =>
    `curl -s -X POST ${f.hubUrl}/api/internal/tools/execute/ ${auth} -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(body))}`;
  const call = { agent_id: DEMO_AGENT_ID, customer_id: DEMO_CUSTOMER_ID };
  const monday = mondayOf(f.now);
  const day = (n: number) => dateOnly(monday, n);
  const madrid = (n: number, hhmm: string) => DateTime.fromISO(`${day(n)}T${hhmm}`, { zone: 'Europe/Madrid' }).toISO({ suppressMilliseconds: true });
  const { ben, carla } = DEMO_ACCOUNTS;
  const since = new Date(f.now.getTime() - 2 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  // Shell text the newcomer pastes: the shell expands ${…}, not JavaScript.
  const firstSecret = 'export HUB_SECRET="${HUB_SERVICE_SECRETS%%,*}"';
  return [
    ...(f.generatedSecret
      ? ['# first: the service secret the demo generated, for the lines below', `export HUB_SECRET=${f.generatedSecret}`]
      : ['# first: the first of the HUB_SERVICE_SECRETS you gave (in a shell where that variable is set)', firstSecret]),
    '# liveness and readiness',
    `curl -s ${f.hubUrl}/healthz`,
    `curl -s ${f.hubUrl}/readyz`,
    '# the tool catalog (JSON Schemas ready for function calling)',
    `curl -s ${f.hubUrl}/api/internal/tools/ ${auth}`,
    '# run the connectivity-check tool',
    execute({ tool: 'hub_echo', ...call, inputs: { message: 'hello from the demo' }, context: { request_id: 'demo-1' } }),
    "# Ana's calendar: busy times of her working week, then the best hour with Ben and Carla (Carla's calendar is not shared: 'unknown')",
    execute({
      tool: 'calendar_get_availability',
      ...call,
      inputs: { start_date: day(0), end_date: day(4), timezone: 'Europe/Madrid', calendars: ['primary', ben] },
    }),
    execute({
      tool: 'calendar_find_optimal_times',
      ...call,
      inputs: {
        duration_minutes: 60,
        attendees: [ben, carla],
        date_range: { start: day(0), end: day(4) },
        preferences: { preferred_hours: { start: '10:00', end: '16:00' }, avoid_mondays: true },
      },
    }),
    '# book it (pasting it again replays the first answer: never a second event), then move it to a room (the event id follows from the request_id)',
    execute({
      tool: 'calendar_create_event',
      ...call,
      inputs: {
        title: 'Launch review',
        start: madrid(3, '10:00'),
        end: madrid(3, '11:00'),
        description: 'Q1 launch',
        location: 'Google Meet',
        attendees: [ben],
        send_notifications: true,
      },
      context: { request_id: f.event.requestId },
    }),
    execute({ tool: 'calendar_update_event', ...call, inputs: { event_id: f.event.id, updates: { location: 'Room 4.2' }, send_notifications: false } }),
    "# Ana's mail: search, read Ben's deck (its attachment listed), new replies in Carla's thread, then send",
    execute({ tool: 'email_search', ...call, inputs: { query: `from:${ben}`, max_results: 10, include_body: false } }),
    execute({ tool: 'email_read', ...call, inputs: { message_id: f.mail.deckMessageId } }),
    execute({ tool: 'email_check_replies', ...call, inputs: { thread_id: f.mail.timelineThreadId, since } }),
    execute({
      tool: 'email_send',
      ...call,
      inputs: { to: [ben], subject: 'Q4 planning deck', body: 'Thanks Ben, I will review it before Thursday.', body_type: 'text' },
      context: { request_id: `demo-mail-${f.runId}` },
    }),
    '# which Google integrations the demo customer has connected',
    `curl -s ${f.hubUrl}/api/internal/integrations/status/${DEMO_CUSTOMER_ID}/ ${auth}`,
    '# the admin API (a Bearer JWT from npm run admin-token): every connection of the demo customer',
    `curl -s ${f.hubUrl}/api/admin/customers/${DEMO_CUSTOMER_ID}/integrations -H "Authorization: Bearer ${f.adminBearer}"`,
    '# errors use the contract envelope: unknown tool, invalid inputs, wrong secret',
    execute({ tool: 'calendar_teleport', ...call, inputs: {} }),
    execute({ tool: 'hub_echo', ...call, inputs: { message: 42 } }),
    `curl -s -X POST ${f.hubUrl}/api/internal/tools/execute/ -H 'Authorization: ServiceSecret wrong' -H 'Content-Type: application/json' -d '{}'`,
    '# the Google sandbox behind the demo: its accounts, and the log of calls the Hub made to "Google"',
    `curl -s ${f.sandboxUrl}/_sandbox/accounts`,
    `curl -s ${f.sandboxUrl}/_sandbox/requests`,
    ...(f.microsoftSandboxUrl ? microsoftCustomerLines(f, execute, auth) : []),
    ...(f.microsoftSandboxUrl
      ? [
          '# the Microsoft sandbox (identity platform and Graph v1.0): its people, and the log of calls made to it',
          `curl -s ${f.microsoftSandboxUrl}/_sandbox/accounts`,
          `curl -s ${f.microsoftSandboxUrl}/_sandbox/requests`,
        ]
      : []),
    '# the API description',
    `curl -s ${f.hubUrl}/openapi.yaml`,
    "# open in a browser: connect an end user's calendar (the sandbox shows Google's consent page; pick anyone)",
    `# ${f.connectUrl}`,
    ...(f.microsoftConnectUrl
      ? [
          "# open in a browser: connect an end user's Outlook calendar for the Microsoft customer (the Microsoft sandbox's sign-in and consent page; pick anyone)",
          `# ${f.microsoftConnectUrl}`,
        ]
      : []),
  ];
}

/**
 * The second demo customer, connected to Microsoft: the same tools, the same agent, another customer id — the Hub
 * answers from Outlook (docs/provider-choice.md: Microsoft is the only vendor it has connected).
 */
function microsoftCustomerLines(f: DemoFacts, execute: (body: object) => string, auth: string): string[] {
  const call = { agent_id: DEMO_AGENT_ID, customer_id: DEMO_MICROSOFT_CUSTOMER_ID };
  // The Microsoft sandbox seeds the ISO week around now (populateDemoWorld: luxon's startOf('week'), Monday), which on
  // a weekend is the week just ended — unlike the Google sandbox's next working week (mondayOf).
  const monday = DateTime.fromJSDate(f.now, { zone: 'Europe/Madrid' }).startOf('week');
  const day = (n: number) => monday.plus({ days: n }).toISODate()!;
  return [
    '# the second demo customer, connected to Microsoft (Ana Lima at Northwind): the same tools answer from Outlook',
    execute({
      tool: 'calendar_get_availability',
      ...call,
      inputs: { start_date: day(0), end_date: day(4), timezone: 'Europe/Madrid', calendars: ['primary', NORTHWIND_BEN] },
    }),
    execute({ tool: 'email_search', ...call, inputs: { query: `from:${NORTHWIND_BEN}`, max_results: 10, include_body: false } }),
    '# which integrations the Microsoft customer has connected, and what each capability resolves to',
    `curl -s ${f.hubUrl}/api/internal/integrations/status/${DEMO_MICROSOFT_CUSTOMER_ID}/ ${auth}`,
  ];
}
