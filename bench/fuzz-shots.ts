import { randomUUID } from 'node:crypto';

/**
 * The seeded request generator of the fuzz run (bench/fuzz.ts runs 10,000; test/component/fuzz.test.ts a share
 * of them in the suite). Every request is replayable from the seed: mangled envelopes, unknown-key floods, ids
 * that are path syntax, keyword-dense URLs (with and without credentials), reading and searching hostile HTML
 * mail, and sending hostile HTML.
 */

export interface Shot {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: string;
  auth: boolean;
  kind: 'envelope' | 'url' | 'flood' | 'ids' | 'mail' | 'send';
}

/**
 * The most CPU (ms, every thread of the Hub process) one request of each kind may cost on average. Linear costs
 * sit far below: a 16 KB keyword-dense URL cost ~66 ms when the log scrubber's regex was quadratic, and one 1 MB
 * HTML mail blocked the event loop ~9.5 s. Floods carry up to ~1 MB of keys (JSON parsing alone ~10 ms); mail
 * requests move 1 MB messages through decoding and the HTML worker.
 *
 * Raised (url 1.5 → 3, envelope 2 → 3, ids 2 → 4) when the audit trail landed: every execute call now leaves a
 * receipt (call_id, redaction, a batched insert), and the spawned Hub runs embedded PGlite, whose inserts run in
 * the Hub's own process — measured alone, ids requests went 1.98 → 3.35 ms and url requests 0.83 → 0.90 ms, the
 * rest of a url's share being the receipts of other kinds written while it ran. Still far below the super-linear
 * costs these ceilings exist to catch.
 *
 * Raised again (url 3 → 4, envelope 3 → 4, ids 4 → 8, flood 40 → 50) after measuring the same code several times
 * on a quiet 2-core machine: a kind's share also bills whatever the process does meanwhile (receipt batches, GC,
 * the access log), so the same build gave url 1.3–2.8, ids 3.7–4.7 (ids that reach the sandbox pay googleapis'
 * ~2–3 ms client cost, with or without the audit trail) and flood 32–35 ms (JSON.parse of ~1 MB alone ~16 ms);
 * a CI run failed at flood 42.0 with the old ceiling. The receipt of a refused flood was cut from ~19 to ~3 ms
 * at the same time (call_id and redaction bounded, zod's unknown-keys message no longer built).
 */
export const CPU_CEILING_MS: Record<Shot['kind'], number> = { url: 4, envelope: 4, ids: 8, flood: 50, mail: 30, send: 30 };

/** mulberry32: small, fast and deterministic, so a failing request can be regenerated from its seed. */
export function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mail = (to: string, subject: string, html: string) => ({ from: 'x@example.com', to: [to], subject, html, date: '2024-01-10T09:30:00Z' });

/** The mailbox the mail shots read: HTML nested 5,000 and 175,000 deep (30 KB, 1 MB), parser tricks, a hostile subject. */
export const hostileMailbox = (email: string) => [
  mail(email, 'deep 30 KB', '<div>x'.repeat(5_000)),
  mail(email, 'deep 1 MB', '<div>x'.repeat(175_000)),
  mail(email, 'tricks', '<div title="</div>">x'.repeat(2_000) + '<script>'.repeat(2_000)),
  mail(email, 'ordinary', '<p>Hello <b>Ana</b></p>'.repeat(100)),
  { from: 'x@example.com', to: [email], subject: `re${' '.repeat(20_000)}: spaces`, text: 'plain' },
];

const KEYWORDS = ['token', 'secret', 'password', 'authorization', 'cookie', 'verifier', 'Bearer ', 'ya29.', '1//'];

export function shotGenerator(rand: () => number, target: { customerId: string; messageIds: readonly string[] }): () => Shot {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const int = (max: number) => Math.floor(rand() * max);
  const keywordDense = (chars: number) => {
    let s = '';
    while (s.length < chars) s += pick(KEYWORDS);
    return encodeURIComponent(s.slice(0, chars));
  };
  const execute = (tool: string, inputs: unknown) => JSON.stringify({ tool, agent_id: randomUUID(), customer_id: target.customerId, inputs });
  const odd = () => pick(['.', '..', '../x', '%2e%2e', '', ' ', '\u0000', 'a'.repeat(300), '𝕏', '__proto__', 'constructor', '18c0ffee00000000']);
  const hostileHtml = () =>
    pick([
      '<div>x'.repeat(3_000 + int(3_000)),
      '<b>'.repeat(int(20_000)),
      '<table><tr><td>'.repeat(int(2_000)),
      `<p>${'&'.repeat(int(5_000))}</p>`,
      '<!--'.repeat(int(5_000)),
    ]);
  const post = (body: string, kind: Shot['kind'], auth = true): Shot => ({ method: 'POST', path: '/api/internal/tools/execute/', body, auth, kind });

  return () => {
    const r = rand();
    if (r < 0.3) {
      // A hub_echo envelope with fields swapped for junk of every JSON type.
      const body: Record<string, unknown> = { tool: 'hub_echo', agent_id: randomUUID(), customer_id: randomUUID(), inputs: { message: 'hi' } };
      const junk = [null, true, -1, 1e308, 'x'.repeat(int(500)), [], {}, [odd()], { message: odd() }, odd()];
      for (let i = 0; i <= int(3); i++) body[pick(['tool', 'agent_id', 'customer_id', 'user_id', 'inputs', 'context', odd()])] = pick(junk);
      return post(JSON.stringify(body), 'envelope', rand() < 0.95);
    }
    if (r < 0.45) {
      // Keyword-dense URLs up to 14 KB (Node refuses request heads over 16 KB), with and without credentials.
      const path = pick([
        () => `/${keywordDense(1 + int(14_000))}`,
        () => `/api/internal/${keywordDense(1 + int(14_000))}`,
        () => `/integrations/google/connect?token=${keywordDense(int(6_000))}&${keywordDense(int(50))}=${keywordDense(int(6_000))}`,
        () => `/api/admin/customers/${keywordDense(int(10_000))}/integrations`,
      ])();
      return { method: pick(['GET', 'POST', 'DELETE'] as const), path, auth: rand() < 0.5, kind: 'url' };
    }
    if (r < 0.55) {
      // Unknown-key floods, at the top or in a tool's inputs.
      const keys = Object.fromEntries(Array.from({ length: int(30_000) }, (_, i) => [`${pick(KEYWORDS)}${i}`, i]));
      const envelope = { tool: 'hub_echo', agent_id: randomUUID(), customer_id: target.customerId, inputs: { message: 'x' } };
      return post(rand() < 0.5 ? JSON.stringify({ ...envelope, ...keys }) : execute('email_search', { query: '', ...keys }), 'flood');
    }
    if (r < 0.7) {
      // Ids that cannot be ids, for tools that take one.
      const id = odd();
      const [tool, inputs] = pick<[string, Record<string, unknown>]>([
        ['email_read', { message_id: id }],
        ['email_check_replies', { thread_id: id, since: '2024-01-01T00:00:00Z' }],
        ['calendar_delete_event', { event_id: id }],
        ['calendar_update_event', { event_id: id, calendar_id: odd(), updates: { title: 't' } }],
      ]);
      return post(execute(tool, inputs), 'ids');
    }
    if (r < 0.95) {
      // Reading hostile mail, searching with bodies, odd queries.
      return rand() < 0.6
        ? post(execute('email_read', { message_id: pick(target.messageIds), mark_as_read: rand() < 0.2 }), 'mail')
        : post(
            execute('email_search', {
              query: pick(['', 'subject:deep', `from:${keywordDense(int(1_000))}`, 'a'.repeat(2_000), '"unterminated', '(((((', 'has:attachment']),
              include_body: rand() < 0.3,
              max_results: 1 + int(5),
            }),
            'mail',
          );
    }
    // Sending hostile HTML: the text alternative is derived from it.
    return post(execute('email_send', { to: ['dest@example.com'], subject: `fuzz ${int(1e6)}`, body: hostileHtml(), body_type: 'html' }), 'send');
  };
}

/** Sends one shot; the status and how long the answer took. */
export async function fire(base: string, secret: string, shot: Shot): Promise<{ status: number; text: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${base}${shot.path}`, {
    method: shot.method,
    headers: { ...(shot.auth ? { authorization: `ServiceSecret ${secret}` } : {}), ...(shot.body ? { 'content-type': 'application/json' } : {}) },
    ...(shot.body && shot.method !== 'GET' ? { body: shot.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - t0 };
}
