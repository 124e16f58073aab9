import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';
import { CALENDAR_TOOLS } from '../../src/tools/calendar';
import { createToolRegistry } from '../../src/tools/registry';

/** The calendar tools as an LLM sees them: their JSON Schemas take the contract's own example inputs. */

const CONTRACT_INPUTS: Record<string, unknown> = {
  calendar_get_availability: { start_date: '2024-01-15', end_date: '2024-01-20', timezone: 'America/New_York', calendars: ['primary'] },
  calendar_create_event: {
    title: 'Meeting with John',
    start: '2024-01-15T14:00:00-05:00',
    end: '2024-01-15T15:00:00-05:00',
    description: 'Discuss Q1 planning',
    location: 'Zoom',
    attendees: ['john@example.com'],
    send_notifications: true,
  },
  calendar_update_event: {
    event_id: 'abc123',
    updates: { title: 'Updated: Meeting with John', start: '2024-01-15T15:00:00-05:00', end: '2024-01-15T16:00:00-05:00' },
    send_notifications: true,
  },
  calendar_delete_event: { event_id: 'abc123', send_notifications: true },
  calendar_find_optimal_times: {
    duration_minutes: 60,
    attendees: ['john@example.com', 'jane@example.com'],
    date_range: { start: '2024-01-15', end: '2024-01-20' },
    preferences: { preferred_hours: { start: '10:00', end: '16:00' }, avoid_mondays: true },
  },
  // Not in the contract (issue 17): no input needed.
  calendar_list_calendars: {},
};

test('when registered, then the calendar tools pass the registry checks with least-privilege scopes', () => {
  const registry = createToolRegistry(CALENDAR_TOOLS);
  expect(registry.names()).toEqual(Object.keys(CONTRACT_INPUTS).sort());
  for (const tool of CALENDAR_TOOLS) {
    const scope = tool.sideEffects === 'reads' ? 'calendar.readonly' : 'calendar.events';
    expect(tool.capability).toBe('calendar');
    expect(tool.permissions).toEqual([tool.sideEffects === 'reads' ? 'calendar.read' : 'calendar.write']);
    expect(tool.requiredScopes).toEqual([`https://www.googleapis.com/auth/${scope}`]);
    // 1.1.0: the optional `provider` input (an additive minor version).
    expect(tool.version).toBe('1.1.0');
  }
});

test.each(CALENDAR_TOOLS.map((t) => [t.name, t] as const))(
  'when %s’s input schema goes to a strict JSON Schema validator, then it compiles and takes the contract example',
  (name, tool) => {
    const schema = z.toJSONSchema(tool.input, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(CONTRACT_INPUTS[name])).toBe(true);
    expect(validate({ ...(CONTRACT_INPUTS[name] as object), surprise: 1 })).toBe(false);
    expect(tool.input.safeParse(CONTRACT_INPUTS[name]).success).toBe(true);
  },
);
