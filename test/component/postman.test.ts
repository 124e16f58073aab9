import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import newman from 'newman';
import { DEMO_AGENT_ID, DEMO_CUSTOMER_ID } from '../../src/demo-lines';
import { scratchProject, shellEnv, startDemo } from '../helpers/demo';
import { freePort } from '../helpers/ports';

/**
 * postman/hub.postman_collection.json, run by newman (Postman's own runner) against `npm run demo` as a person
 * would after importing it: the four variables set, every request sent, every test in it passing.
 */

jest.setTimeout(240_000);

const COLLECTION = join(__dirname, '..', '..', 'postman', 'hub.postman_collection.json');

function runNewman(options: newman.NewmanRunOptions): Promise<newman.NewmanRunSummary> {
  return new Promise((resolve, reject) => newman.run(options, (err, summary) => (err ? reject(err) : resolve(summary))));
}

test('when newman runs the collection against the demo, then every request answers the envelope its tests expect', async () => {
  const project = scratchProject();
  const secret = randomBytes(24).toString('hex');
  const env = shellEnv({ HUB_PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()), HUB_SERVICE_SECRETS: secret, HUB_DATA_DIR: 'memory://' });
  const demo = await startDemo(project, env);
  try {
    const baseUrl = /curl -s (\S+)\/api\/internal\/tools\/ /.exec(demo.lines.join('\n'))![1]!;
    const collection = JSON.parse(readFileSync(COLLECTION, 'utf8'));
    const summary = await runNewman({
      collection,
      reporters: [],
      envVar: [
        { key: 'baseUrl', value: baseUrl },
        { key: 'serviceSecret', value: secret },
        { key: 'customerId', value: DEMO_CUSTOMER_ID },
        { key: 'agentId', value: DEMO_AGENT_ID },
      ],
    });
    const failures = summary.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`);
    expect(failures).toEqual([]);
    const executions = summary.run.executions;
    const names = executions.map((e) => e.item.name);
    expect(names).toEqual(expect.arrayContaining(['Catalog', 'Integration status', ...collection.item[2].item.map((i: { name: string }) => i.name)]));
    expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(executions.length * 2);
    // The demo customer is connected: the tools whose example inputs need nothing seeded succeed.
    const succeeded = executions.filter((e) => JSON.parse(e.response.stream!.toString()).success === true).map((e) => e.item.name);
    expect(succeeded).toEqual(expect.arrayContaining(['hub_echo', 'calendar_get_availability', 'calendar_create_event', 'email_send', 'email_search']));
  } finally {
    await demo.stop();
    rmSync(project, { recursive: true, force: true });
  }
});
