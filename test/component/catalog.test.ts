import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { client, serviceAuth } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

describe('GET /api/internal/tools/', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  it('when listed, then hub_echo is described for an LLM with schemas generated from its validator', async () => {
    const res = await client(hub.app).get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    const echo = res.body.tools.find((t: { name: string }) => t.name === 'hub_echo');
    expect(echo).toEqual({
      name: 'hub_echo',
      version: '1.0.0',
      description: expect.stringContaining('Connectivity check'),
      integration: null,
      required_scopes: [],
      side_effects: 'reads',
      destructive: false,
      read_only: true,
      input_schema: {
        type: 'object',
        properties: { message: { type: 'string', minLength: 1, maxLength: 10000, description: 'Any text; it is returned unchanged.' } },
        required: ['message'],
        additionalProperties: false,
      },
      output_schema: expect.objectContaining({ type: 'object' }),
      status: 'active',
      deprecated_at: null,
      sunset_at: null,
      replacement: null,
      versions: [expect.objectContaining({ version: '1.0.0', status: 'active' })],
    });
  });

  it('when a tool needs an integration, then its scopes are listed in the contract’s short form', async () => {
    const res = await client(hub.app).get('/api/internal/tools').set('Authorization', serviceAuth()).expect(200);
    const probe = res.body.tools.find((t: { name: string }) => t.name === 'test_calendar_probe');
    expect(probe).toMatchObject({ integration: 'google_calendar', required_scopes: ['calendar.events'] });
    expect(res.body.tools.map((t: { name: string }) => t.name)).toEqual([...res.body.tools.map((t: { name: string }) => t.name)].sort());
  });

  it('when an input schema is handed to a JSON Schema validator, then it accepts and refuses what the Hub does', async () => {
    const res = await client(hub.app).get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv); // date-time, email: formats function-calling APIs understand
    for (const tool of res.body.tools) {
      expect(tool.input_schema.$schema).toBeUndefined(); // function-calling APIs take the bare object schema
      expect(tool.input_schema.type).toBe('object');
      ajv.compile(tool.input_schema);
    }
    const validate = ajv.compile(res.body.tools.find((t: { name: string }) => t.name === 'hub_echo').input_schema);
    expect(validate({ message: 'hi' })).toBe(true);
    expect(validate({ message: '' })).toBe(false);
    expect(validate({ message: 'hi', extra: 1 })).toBe(false);
  });
});
