import type { CatalogEntry } from '../tools/catalog';
import { FLOW_VARIABLES, flowOrder } from './postman-flow';
import { errorTests, events, successTests, takesCheck } from './postman-scripts';

export const POSTMAN_PATH = 'postman/hub.postman_collection.json';

const url = (path: string) => ({ raw: `{{baseUrl}}${path}`, host: ['{{baseUrl}}'], path: path.split('/').filter(Boolean) });
/** `Authorization: ServiceSecret <secret>`, as Postman's API-key auth. */
const serviceSecretAuth = (secret: string) => ({
  type: 'apikey',
  apikey: [
    { key: 'key', value: 'Authorization', type: 'string' },
    { key: 'value', value: `ServiceSecret ${secret}`, type: 'string' },
    { key: 'in', value: 'header', type: 'string' },
  ],
});
const EXECUTE = '/api/internal/tools/execute/';
const jsonBody = (body: unknown) => ({ mode: 'raw', raw: JSON.stringify(body, null, 2), options: { raw: { language: 'json' } } });
const call = (tool: string, inputs: unknown, extra: Record<string, unknown> = {}) => ({
  tool,
  agent_id: '{{agentId}}',
  customer_id: '{{customerId}}',
  inputs,
  ...extra,
});

/** The Hub's default address (HUB_PORT 8080), where `npm start` and `npm run demo` listen unless told otherwise. */
export const POSTMAN_BASE_URL = 'http://localhost:8080';

/**
 * The Postman collection (v2.1), from the catalog and the tools' example inputs: one execute request per tool,
 * sent in the order of src/codegen/postman-flow.ts — ids chained from the answers that gave them (create → update
 * → delete; search → read → check replies) — each asserting that the tool ran and answered the fields its result
 * schema requires; writes with a fresh request_id each send; the errors a caller meets first, each asserting its
 * status and code; the catalog and status requests; the ServiceSecret header preset from {{serviceSecret}}.
 * `npm run generate` writes it; a test fails when the checked-in file differs, and newman runs it against the
 * demo, where every request must pass.
 */
export function postmanCollection(catalog: { tools: readonly CatalogEntry[] }, examples: Readonly<Record<string, Record<string, unknown>>>): unknown {
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  const keptBy = new Map<string, string>();
  const toolRequests = flowOrder(catalog.tools.map((t) => t.name)).map(({ tool: name, step }) => {
    const tool = byName.get(name)!;
    const example = examples[name];
    if (example === undefined) throw new Error(`tool ${name} has no example inputs: add one to src/tools/examples.ts`);
    const inputs = { ...example, ...Object.fromEntries(Object.entries(step.takes ?? {}).map(([field, variable]) => [field, `{{${variable}}}`])) };
    const required = Array.isArray(tool.output_schema.required) ? (tool.output_schema.required as string[]) : [];
    const prerequest = [...takesCheck(step.takes ?? {}, keptBy), ...(step.before ?? [])];
    const chained = Object.entries(step.takes ?? {})
      .filter(([, variable]) => keptBy.has(variable))
      .map(([field, variable]) => `\`${field}\` is what ${keptBy.get(variable)} answered ({{${variable}}}).`);
    for (const variable of Object.keys(step.keeps ?? {})) keptBy.set(variable, name);
    return {
      name,
      event: events(successTests(name, required, step.keeps ?? {}), prerequest),
      request: {
        description:
          `${tool.description}\n\nSide effects: ${tool.side_effects}. Version ${tool.version}.` +
          (chained.length > 0 ? `\n\n${chained.join(' ')} Run the folder in order.` : ''),
        method: 'POST',
        header: [{ key: 'Content-Type', value: 'application/json' }],
        body: jsonBody(call(name, inputs, tool.side_effects === 'writes' ? { context: { request_id: '{{$guid}}' } } : {})),
        url: url(EXECUTE),
      },
    };
  });
  return {
    info: {
      name: 'Hub',
      description:
        'Every Hub tool, generated from its tool registry (`npm run generate`). Set the collection variables baseUrl, serviceSecret, customerId and agentId (the demo customer and agent are the defaults) and run the collection in order: the Tools folder chains ids from answer to request (the event created is the one updated and deleted; the message found is the one read). Every request sends `Authorization: ServiceSecret {{serviceSecret}}`.',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: serviceSecretAuth('{{serviceSecret}}'),
    variable: [
      { key: 'baseUrl', value: POSTMAN_BASE_URL, type: 'string' },
      { key: 'serviceSecret', value: '', type: 'string' },
      { key: 'customerId', value: '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00', type: 'string' },
      { key: 'agentId', value: '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b', type: 'string' },
      ...Object.entries(FLOW_VARIABLES).map(([key, description]) => ({ key, value: '', type: 'string', description })),
    ],
    item: [
      {
        name: 'Catalog',
        event: events([
          "pm.test('200 with every tool and its schemas', () => {",
          '  pm.response.to.have.status(200);',
          '  const body = pm.response.json();',
          "  pm.expect(body.tools).to.be.an('array').that.is.not.empty;",
          `  pm.expect(body.tools.map((t) => t.name)).to.include.members(${JSON.stringify(catalog.tools.map((t) => t.name))});`,
          "  body.tools.forEach((t) => pm.expect(t.input_schema).to.be.an('object'));",
          '});',
        ]),
        request: { method: 'GET', header: [], url: url('/api/internal/tools/'), description: 'Every tool with its JSON Schemas, ready for function calling.' },
      },
      {
        name: 'Integration status',
        event: events([
          "pm.test('200 with the customer and its integrations', () => {",
          '  pm.response.to.have.status(200);',
          '  const body = pm.response.json();',
          "  pm.expect(body.customer_id).to.equal(pm.variables.get('customerId').toLowerCase());",
          "  pm.expect(body.integrations).to.be.an('object');",
          '});',
        ]),
        request: {
          method: 'GET',
          header: [],
          url: url('/api/internal/integrations/status/{{customerId}}/'),
          description: 'Which Google integrations the customer has connected, and what the agent can run with them.',
        },
      },
      { name: 'Tools', item: toolRequests },
      { name: 'Errors', item: errorRequests() },
    ],
  };
}

/** The errors a caller meets first, each request asserting the status and code the contract documents for it. */
function errorRequests() {
  const request = (name: string, description: string, body: unknown, test: string[], auth?: unknown) => ({
    name,
    event: events(test),
    request: {
      description,
      method: 'POST',
      header: [{ key: 'Content-Type', value: 'application/json' }],
      body: jsonBody(body),
      url: url(EXECUTE),
      ...(auth ? { auth } : {}),
    },
  });
  return [
    request('Unknown tool: 404 TOOL_NOT_FOUND', 'A tool the Hub does not offer.', call('calendar_teleport', {}), errorTests(404, 'TOOL_NOT_FOUND')),
    request(
      'Invalid inputs: 400 VALIDATION_ERROR',
      "Inputs the tool's schema refuses: `details.issues` names each field and why.",
      call('hub_echo', { message: 42 }),
      errorTests(
        400,
        'VALIDATION_ERROR',
        "pm.test('details.issues names inputs.message', () => pm.expect(body.error.details.issues.map((i) => i.path)).to.include('inputs.message'));",
      ),
    ),
    request(
      'Unknown event: 404 RESOURCE_NOT_FOUND',
      'An event_id the calendar does not have.',
      call('calendar_delete_event', { event_id: 'hubnosuchevent0000', send_notifications: false }, { context: { request_id: '{{$guid}}' } }),
      errorTests(404, 'RESOURCE_NOT_FOUND'),
    ),
    request(
      'Wrong service secret: 401 UNAUTHORIZED',
      'A ServiceSecret the Hub does not know.',
      call('hub_echo', { message: 'hello' }),
      errorTests(401, 'UNAUTHORIZED'),
      serviceSecretAuth('not-the-secret'),
    ),
  ];
}

export const postmanJson = (collection: unknown) => `${JSON.stringify(collection, null, 2)}\n`;
