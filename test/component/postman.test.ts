import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import newman from 'newman';
import { loadConfig } from '../../src/config';
import { DEMO_AGENT_ID, DEMO_CUSTOMER_ID } from '../../src/demo-lines';
import { type RunningDemo, scratchProject, shellEnv, startDemo } from '../helpers/demo';
import { freePort } from '../helpers/ports';

/**
 * postman/hub.postman_collection.json, run by newman (Postman's own runner) against `npm run demo` as a person
 * would after importing it: the four variables set, every request sent in order, every test in it passing — and
 * those tests fail when a request does not do what it says.
 */

jest.setTimeout(240_000);

const COLLECTION = join(__dirname, '..', '..', 'postman', 'hub.postman_collection.json');
const collection = JSON.parse(readFileSync(COLLECTION, 'utf8'));
const folder = (name: string) => collection.item.find((i: { name: string }) => i.name === name).item as { name: string }[];

function runNewman(options: newman.NewmanRunOptions): Promise<newman.NewmanRunSummary> {
  return new Promise((resolve, reject) => newman.run(options, (err, summary) => (err ? reject(err) : resolve(summary))));
}

let project: string;
let demo: RunningDemo;
let secret: string;
let baseUrl: string;

beforeAll(async () => {
  project = scratchProject();
  secret = randomBytes(24).toString('hex');
  const env = shellEnv({ HUB_PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()), HUB_SERVICE_SECRETS: secret, HUB_DATA_DIR: 'memory://' });
  demo = await startDemo(project, env);
  baseUrl = /curl -s (\S+)\/api\/internal\/tools\/ /.exec(demo.lines.join('\n'))![1]!;
});

afterAll(async () => {
  await demo?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

const run = (variables: { serviceSecret: string }, only?: string) =>
  runNewman({
    collection,
    reporters: [],
    ...(only ? { folder: only } : {}),
    envVar: [
      { key: 'baseUrl', value: baseUrl },
      { key: 'serviceSecret', value: variables.serviceSecret },
      { key: 'customerId', value: DEMO_CUSTOMER_ID },
      { key: 'agentId', value: DEMO_AGENT_ID },
    ],
  });

const answerOf = (e: newman.NewmanRunExecution) => JSON.parse(e.response.stream!.toString());
const inputsOf = (e: newman.NewmanRunExecution) => JSON.parse(e.request.body!.raw!).inputs;

test('when newman runs the collection against the demo, then every tool runs, each documented error is that error, and ids chain', async () => {
  const summary = await run({ serviceSecret: secret });
  const failures = summary.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`);
  expect(failures).toEqual([]);
  const executions = summary.run.executions;
  const byName = new Map(executions.map((e) => [e.item.name, e]));
  const tools = folder('Tools').map((i) => i.name);
  expect(executions.map((e) => e.item.name)).toEqual(['Catalog', 'Integration status', ...tools, ...folder('Errors').map((i) => i.name)]);
  // Every tool succeeded — not merely answered an envelope.
  expect(tools.filter((t) => answerOf(byName.get(t)!).success !== true)).toEqual([]);
  expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(executions.length * 2);
  // The event created is the one updated and then deleted; the message found is the one read, its thread checked.
  const created = answerOf(byName.get('calendar_create_event')!).result.event_id;
  expect(inputsOf(byName.get('calendar_update_event')!).event_id).toBe(created);
  expect(inputsOf(byName.get('calendar_delete_event')!).event_id).toBe(created);
  expect(answerOf(byName.get('calendar_delete_event')!).result).toEqual({ event_id: created, deleted: true });
  const found = answerOf(byName.get('email_search')!).result.messages[0];
  expect(inputsOf(byName.get('email_read')!).message_id).toBe(found.message_id);
  expect(inputsOf(byName.get('email_check_replies')!).thread_id).toBe(found.thread_id);
  expect(answerOf(byName.get('email_check_replies')!).result.has_new_replies).toBe(true);
  // The mail goes to someone in the demo world.
  expect(inputsOf(byName.get('email_send')!).to).toEqual(['ben.okafor@acme.example']);
  const errors = folder('Errors').map((i) => [i.name, answerOf(byName.get(i.name)!).error.code]);
  expect(errors).toEqual(folder('Errors').map((i) => [i.name, /(\w+)$/.exec(i.name)![1]]));
});

test('when the requests fail, then the newman run fails on each of them, and the chained ones say which request to run first', async () => {
  const summary = await run({ serviceSecret: 'not-the-secret' }, 'Tools');
  const failed = new Set(summary.run.failures.map((f) => f.source?.name));
  expect(folder('Tools').filter((i) => !failed.has(i.name))).toEqual([]);
  const messages = summary.run.failures.map((f) => f.error.message);
  expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/UNAUTHORIZED/), expect.stringMatching(/run calendar_create_event first/)]));
});

test("when the collection is imported as is, then its baseUrl is the Hub's default address", () => {
  const baseUrlVariable = collection.variable.find((v: { key: string }) => v.key === 'baseUrl').value;
  const defaults = loadConfig({
    HUB_PUBLIC_URL: 'https://hub.example.com',
    HUB_SERVICE_SECRETS: randomBytes(32).toString('hex'),
    HUB_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  });
  expect(new URL(baseUrlVariable).port).toBe(String(defaults.port));
});
