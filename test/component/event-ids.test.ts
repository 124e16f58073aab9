import { createKeyRotation } from '../../src/store/key-rotation';
import { createTokenCipher } from '../../src/store/token-cipher';
import {
  ANA,
  JOHN,
  SUITE_NOW,
  calendarRequestsSince,
  calendarTool,
  connectPerson,
  loseIdempotencyRecords,
  requestLogPosition,
  storedEvents,
  useCalendarSuite,
} from '../helpers/calendar';
import { runTool, sandboxHubEnv } from '../helpers/connected';
import { KEY_1, KEY_2 } from '../helpers/env';
import { buildTestHub } from '../helpers/hub';

/**
 * The Google event id a create with a request_id gets is keyed (HMAC under the Hub's event-id key), so no one
 * who knows a customer's ids can pre-create an event under it — and the key survives encryption-key rotation,
 * so a retry after a crash still finds its first attempt's event.
 */

const suite = useCalendarSuite();
const { sb } = suite;
const CREATE = { title: 'Quarterly review', start: '2027-02-01T10:00:00-05:00', end: '2027-02-01T11:00:00-05:00', attendees: [JOHN] };
/** The test keys as a rotation configures them: the new key k2 first, the old k1 after it. */
const KEYS_2_1 = () => [
  { id: 'k2', key: Buffer.from(KEY_2, 'base64') },
  { id: 'k1', key: Buffer.from(KEY_1, 'base64') },
];
const liveEvents = () => storedEvents(sb, ANA).filter((r) => r.fields.status !== 'cancelled');

test('when the encryption keys rotate between a create and its retry after a crash (new key first, rotate-keys, old key removed), then the retry finds the same event', async () => {
  const who = await connectPerson(suite, { email: ANA, time_zone: 'America/New_York' });
  const first = await calendarTool(suite, who, 'calendar_create_event', CREATE, 'req-rotating-1');
  expect(first.status).toBe(200);
  const db = suite.hub().testDb.db;
  await loseIdempotencyRecords(db, who, 'req-rotating-1'); // what a crash between Google's success and the record leaves

  const rotation = createKeyRotation(db, createTokenCipher(KEYS_2_1()));
  await rotation.reencryptAll();
  await rotation.resealOther();
  const rotated = await buildTestHub({ db, env: sandboxHubEnv(sb, { HUB_ENCRYPTION_KEYS: `k2:${KEY_2}` }), now: () => SUITE_NOW });

  const since = await requestLogPosition(sb);
  const retry = await runTool(rotated, who, 'calendar_create_event', CREATE, { requestId: 'req-rotating-1' });
  expect(retry.status).toBe(200);
  expect(retry.body.result).toEqual(first.body.result);
  expect((await calendarRequestsSince(sb, since)).map((r) => [r.operation, r.status])).toEqual([
    ['calendar.events.insert', 409],
    ['calendar.events.get', 200],
  ]);
  expect(liveEvents()).toHaveLength(1);
});

test('when the id a create will use is derived, then it is the keyed one the Hub sends to Google, the same on every replica', async () => {
  const who = await connectPerson(suite, { email: ANA, time_zone: 'America/New_York' });
  const other = await buildTestHub({
    db: suite.hub().testDb.db,
    env: sandboxHubEnv(sb, { HUB_ENCRYPTION_KEYS: `k2:${KEY_2},k1:${KEY_1}` }),
    now: () => SUITE_NOW,
  });
  const source = { customerId: who.customerId, userId: null, calendarId: 'primary', requestId: 'req-keyed-1' };
  const [here, there] = await Promise.all([suite.hub().eventIds.derive(source), other.eventIds.derive(source)]);
  expect(here).toEqual(there);
  const created = await calendarTool(suite, who, 'calendar_create_event', CREATE, 'req-keyed-1');
  expect(here).toEqual({ ok: true, value: created.body.result.event_id });
});

test('when this replica cannot open the event-id key (sealed with a key it lacks), then creates still work under a random id the Hub picks (no crash-safe dedupe across replicas), and an error says why', async () => {
  const who = await connectPerson(suite, { email: ANA, time_zone: 'America/New_York' });
  const db = suite.hub().testDb.db;
  await createKeyRotation(db, createTokenCipher(KEYS_2_1())).resealOther(); // the secret moves to k2 ...
  const behind = await buildTestHub({ db, env: sandboxHubEnv(sb), now: () => SUITE_NOW }); // ... a replica with k1 only
  const res = await runTool(behind, who, 'calendar_create_event', CREATE, { requestId: 'req-behind-1' });
  expect(res.status).toBe(200);
  expect(res.body.result.event_id).toMatch(/^[a-v0-9]{32}$/); // a random id: the Hub's own retries stay safe (409 → get)
  expect(behind.logs.entries().some((e) => e.level === 50 && e.purpose === 'event-id-key')).toBe(true);
});
