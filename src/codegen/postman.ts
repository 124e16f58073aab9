import type { CatalogEntry } from '../tools/catalog';

export const POSTMAN_PATH = 'postman/hub.postman_collection.json';

/** Assertions every execute request runs: the contract's envelope, success or error, naming the tool. */
const executeTests = (tool: string) => [
  'const body = pm.response.json();',
  "pm.test('the answer is the contract envelope', () => {",
  "  pm.expect(body).to.be.an('object');",
  "  pm.expect(body.success).to.be.a('boolean');",
  "  pm.expect(body.metadata).to.be.an('object');",
  "  pm.expect(body.metadata.request_id).to.be.a('string');",
  "  pm.expect(body.metadata.api_calls).to.be.a('number');",
  "  pm.expect(body.metadata.execution_time_ms).to.be.a('number');",
  '});',
  `pm.test('it names the tool ${tool}', () => pm.expect(body.tool).to.equal('${tool}'));`,
  'if (body.success) {',
  "  pm.test('a success is 200 with a result object', () => {",
  '    pm.response.to.have.status(200);',
  "    pm.expect(body.result).to.be.an('object');",
  '  });',
  '} else {',
  "  pm.test('an error carries code, message and retryable', () => {",
  "    pm.expect(body.error.code).to.be.a('string');",
  "    pm.expect(body.error.message).to.be.a('string');",
  "    pm.expect(body.error.retryable).to.be.a('boolean');",
  '    pm.expect(pm.response.code).to.be.at.least(400);',
  '  });',
  '}',
];

const url = (path: string) => ({ raw: `{{baseUrl}}${path}`, host: ['{{baseUrl}}'], path: path.split('/').filter(Boolean) });
const tests = (exec: string[]) => [{ listen: 'test', script: { type: 'text/javascript', exec } }];

/**
 * The Postman collection (v2.1), from the catalog and the tools' example inputs: one execute request per tool
 * (writes with a fresh request_id each send), the catalog and status requests, the ServiceSecret header preset
 * from {{serviceSecret}}, and envelope tests on each request. `npm run generate` writes it; a test fails when the
 * checked-in file differs, and newman runs it against the demo.
 */
export function postmanCollection(catalog: { tools: readonly CatalogEntry[] }, examples: Readonly<Record<string, Record<string, unknown>>>): unknown {
  const toolRequests = catalog.tools.map((tool) => {
    const inputs = examples[tool.name];
    if (inputs === undefined) throw new Error(`tool ${tool.name} has no example inputs: add one to src/tools/examples.ts`);
    const body = {
      tool: tool.name,
      agent_id: '{{agentId}}',
      customer_id: '{{customerId}}',
      inputs,
      ...(tool.side_effects === 'writes' ? { context: { request_id: '{{$guid}}' } } : {}),
    };
    return {
      name: tool.name,
      event: tests(executeTests(tool.name)),
      request: {
        description: `${tool.description}\n\nSide effects: ${tool.side_effects}. Version ${tool.version}.`,
        method: 'POST',
        header: [{ key: 'Content-Type', value: 'application/json' }],
        body: { mode: 'raw', raw: JSON.stringify(body, null, 2), options: { raw: { language: 'json' } } },
        url: url('/api/internal/tools/execute/'),
      },
    };
  });
  return {
    info: {
      name: 'Hub',
      description:
        'Every Hub tool, generated from its tool registry (`npm run generate`). Set the collection variables baseUrl, serviceSecret, customerId and agentId; every request sends `Authorization: ServiceSecret {{serviceSecret}}`.',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: {
      type: 'apikey',
      apikey: [
        { key: 'key', value: 'Authorization', type: 'string' },
        { key: 'value', value: 'ServiceSecret {{serviceSecret}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    },
    variable: [
      { key: 'baseUrl', value: 'http://127.0.0.1:3000', type: 'string' },
      { key: 'serviceSecret', value: '', type: 'string' },
      { key: 'customerId', value: '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00', type: 'string' },
      { key: 'agentId', value: '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b', type: 'string' },
    ],
    item: [
      {
        name: 'Catalog',
        event: tests([
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
        event: tests([
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
    ],
  };
}

export const postmanJson = (collection: unknown) => `${JSON.stringify(collection, null, 2)}\n`;
