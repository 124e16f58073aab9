import { calendarRequestsSince, requestLogPosition } from '../helpers/calendar';
import { connectToSandbox, runTool, sandboxHubEnv } from '../helpers/connected';
import { services } from '../helpers/env';
import { useInProcessReplicas } from '../helpers/in-process-replicas';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * Google is eventually consistent right after a create (a read by id may answer 404 for a moment): the Hub retries
 * those 404s for the events it created lately. With replicas sharing PostgreSQL and Redis, that memory is shared:
 * a change asked of another replica right after the create waits for Google too, instead of answering
 * RESOURCE_NOT_FOUND for an event that exists.
 */

const { databaseUrl, redisUrl } = services();
const maybe = databaseUrl && redisUrl ? describe : describe.skip;
const sb = useTestSandbox();

maybe('a change right after a create, on another replica', () => {
  const { replica } = useInProcessReplicas(() => sandboxHubEnv(sb));

  test('when replica B renames the event replica A has just created, then B waits for Google to show it rather than answer not found', async () => {
    const [a, b] = [await replica(), await replica()];
    await sb.createAccount({ email: 'ana.replicas@acme.example', time_zone: 'Europe/Madrid' });
    const ana = await connectToSandbox(a, sb, { email: 'ana.replicas@acme.example', integration: 'google_calendar' });
    // Not visible until the test moves the sandbox's clock: however slow the machine, B's first read misses it.
    await sb.control('PUT', '/settings', { calendar_propagation_delay_ms: 60_000 });
    try {
      const made = await runTool(a, ana, 'calendar_create_event', { title: 'Planning', start: '2027-01-18T14:00:00+01:00', end: '2027-01-18T15:00:00+01:00' });
      expect(made.status).toBe(200);
      const since = await requestLogPosition(sb);
      // Sent now (a supertest request starts when it is awaited or then'd), answered later.
      const renaming = runTool(b, ana, 'calendar_update_event', { event_id: made.body.result.event_id, updates: { title: 'Renamed' } }).then((res) => res);
      // Once B has met Google's 404, Google catches up (while B waits to try again).
      const patches = async () => (await calendarRequestsSince(sb, since)).filter((r) => r.operation === 'calendar.events.patch');
      while (!(await patches()).some((r) => r.status === 404)) await new Promise((resolve) => setTimeout(resolve, 20));
      await sb.control('POST', '/clock', { advance_s: 61 });
      const renamed = await renaming;
      expect(renamed.status).toBe(200);
      const log = (await patches()).map((r) => r.status);
      expect(log[0]).toBe(404); // Google had not shown it yet: B retried, as A would have
      expect(log.at(-1)).toBe(200);
    } finally {
      await sb.control('PUT', '/settings', { calendar_propagation_delay_ms: 0 });
    }
  });
});
