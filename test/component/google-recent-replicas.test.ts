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
    await sb.control('PUT', '/settings', { calendar_propagation_delay_ms: 2000 }); // the first read misses it
    try {
      const made = await runTool(a, ana, 'calendar_create_event', { title: 'Planning', start: '2027-01-18T14:00:00+01:00', end: '2027-01-18T15:00:00+01:00' });
      expect(made.status).toBe(200);
      const since = await requestLogPosition(sb);
      const renamed = await runTool(b, ana, 'calendar_update_event', { event_id: made.body.result.event_id, updates: { title: 'Renamed' } });
      expect(renamed.status).toBe(200);
      const log = (await calendarRequestsSince(sb, since)).filter((r) => r.operation === 'calendar.events.patch').map((r) => r.status);
      expect(log[0]).toBe(404); // Google had not shown it yet: B retried, as A would have
      expect(log.at(-1)).toBe(200);
    } finally {
      await sb.control('PUT', '/settings', { calendar_propagation_delay_ms: 0 });
    }
  });
});
