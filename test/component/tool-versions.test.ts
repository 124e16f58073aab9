import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ok } from '../../src/core/errors';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { type ToolLifecycle, defineTool } from '../../src/tools/types';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * Tool versions (seed 003 §7) through the real app: `name`, `name@1`, `name@1.2`, `name@1.2.0`; deprecated
 * versions still run with a notice and the Deprecation/Sunset headers; blocked ones answer POLICY_DENIED; the
 * catalog lists them all. Versions of a test tool (`test_versioned`) cover every status.
 */

const versioned = (version: string, lifecycle?: ToolLifecycle) =>
  defineTool({
    name: 'test_versioned',
    version,
    ...(lifecycle ? { lifecycle } : {}),
    description: `Test tool, version ${version}: echoes which version ran.`,
    capability: null,
    permissions: [],
    sideEffects: 'reads',
    input: z.strictObject({ n: z.number().int().optional() }),
    output: z.object({ ran: z.string() }),
    run: async () => ok({ ran: version }),
  });

const DEPRECATED = { status: 'deprecated', deprecatedAt: '2026-11-23T00:00:00Z', sunsetAt: '2027-05-24T00:00:00Z', replacement: 'test_versioned@2' } as const;
const TEST_VERSIONS = [
  versioned('1.0.0', DEPRECATED),
  versioned('1.2.0', DEPRECATED),
  versioned('2.0.0'),
  versioned('2.1.0'),
  versioned('3.0.0', { status: 'blocked', replacement: 'test_versioned@2' }),
];

let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ tools: [...BUILT_IN_TOOLS, ...TEST_VERSIONS] });
});
afterAll(() => hub.close());

const run = (tool: string, inputs: Record<string, unknown> = {}) =>
  client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({ tool, agent_id: randomUUID(), customer_id: randomUUID(), inputs });

describe('version resolution', () => {
  it.each([
    ['test_versioned', '2.1.0'],
    ['test_versioned@2', '2.1.0'],
    ['test_versioned@2.0', '2.0.0'],
    ['test_versioned@2.0.0', '2.0.0'],
    ['test_versioned@2.1.0', '2.1.0'],
  ])('when tool is %s, then the highest matching active version (%s) runs and says so in metadata.tool_version', async (tool, version) => {
    const res = await run(tool);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, tool, result: { ran: version }, metadata: { tool_version: version } });
    expect(res.body.metadata.deprecation).toBeUndefined();
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });

  it('when a built-in tool runs by its bare name, then metadata.tool_version is its version', async () => {
    const res = await run('hub_echo', { message: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.tool_version).toBe('1.0.0');
  });

  it('when a resolved version refuses its inputs, then the error answer still carries tool_version', async () => {
    const res = await run('test_versioned@2', { n: 'one' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.metadata.tool_version).toBe('2.1.0');
  });
});

describe('deprecated versions', () => {
  it('when only deprecated versions match, then the highest one still runs, with metadata.deprecation and the Deprecation, Sunset and Link headers', async () => {
    const res = await run('test_versioned@1');
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ ran: '1.2.0' });
    expect(res.body.metadata).toMatchObject({
      tool_version: '1.2.0',
      deprecation: {
        deprecated_at: '2026-11-23T00:00:00.000Z',
        sunset_at: '2027-05-24T00:00:00.000Z',
        replacement: 'test_versioned@2',
        message: expect.stringContaining('call test_versioned@2 instead'),
      },
    });
    // RFC 9745: a Structured Fields Date, seconds since the epoch; RFC 8594: an HTTP-date (IMF-fixdate).
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-11-23T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Mon, 24 May 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('</api/internal/tools/>; rel="deprecation"; type="application/json"');
  });

  it('when a deprecated version is named exactly, then that one runs', async () => {
    const res = await run('test_versioned@1.0.0');
    expect(res.body.result).toEqual({ ran: '1.0.0' });
    expect(res.headers.deprecation).toBeDefined();
  });

  it('when a deprecated version fails validation, then the error answer also carries the notice and headers', async () => {
    const res = await run('test_versioned@1', { n: 1.5 });
    expect(res.status).toBe(400);
    expect(res.body.metadata.deprecation.replacement).toBe('test_versioned@2');
    expect(res.headers.sunset).toBe('Mon, 24 May 2027 00:00:00 GMT');
  });
});

describe('blocked versions and versions that match nothing', () => {
  it('when the version resolves to a blocked one, then 403 POLICY_DENIED names the rule and the replacement, before anything runs', async () => {
    const res = await run('test_versioned@3');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      success: false,
      tool: 'test_versioned@3',
      error: { code: 'POLICY_DENIED', retryable: false, details: { rule: 'tool_version_blocked', tool_version: '3.0.0', replacement: 'test_versioned@2' } },
      metadata: { tool_version: '3.0.0', api_calls: 0 },
    });
  });

  it.each([
    'test_versioned@4',
    'test_versioned@2.2',
    'test_versioned@1.2.1',
    'test_versioned@x',
    'test_versioned@1.2.0.0',
    'test_versioned@',
    'test_versioned@01',
  ])('when tool is %s, then TOOL_NOT_FOUND lists the versions there are (blocked ones left out)', async (tool) => {
    const res = await run(tool);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'TOOL_NOT_FOUND', details: { available_versions: ['2.1.0', '2.0.0', '1.2.0', '1.0.0'] } });
    expect(res.body.metadata.tool_version).toBeUndefined();
  });

  it('when the name is unknown, with or without a version, then TOOL_NOT_FOUND lists the tools', async () => {
    for (const tool of ['no_such_tool', 'no_such_tool@1']) {
      const res = await run(tool);
      expect(res.status).toBe(404);
      expect(res.body.error.details.available_tools).toContain('test_versioned');
    }
  });
});

describe('the catalog', () => {
  it('when listed, then each name appears once with its default version on top and every version with its status', async () => {
    const res = await client(hub.app).get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    const entries = res.body.tools.filter((t: { name: string }) => t.name === 'test_versioned');
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatchObject({ name: 'test_versioned', version: '2.1.0', status: 'active', deprecated_at: null, sunset_at: null, replacement: null });
    expect(entry.versions.map((v: Record<string, unknown>) => [v.version, v.status, v.deprecated_at, v.sunset_at, v.replacement])).toEqual([
      ['3.0.0', 'blocked', null, null, 'test_versioned@2'],
      ['2.1.0', 'active', null, null, null],
      ['2.0.0', 'active', null, null, null],
      ['1.2.0', 'deprecated', '2026-11-23T00:00:00.000Z', '2027-05-24T00:00:00.000Z', 'test_versioned@2'],
      ['1.0.0', 'deprecated', '2026-11-23T00:00:00.000Z', '2027-05-24T00:00:00.000Z', 'test_versioned@2'],
    ]);
    for (const v of entry.versions) expect(v.input_schema).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('when email_search is listed, then version 2 is the default and version 1 is deprecated in its favour', async () => {
    const res = await client(hub.app).get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    const search = res.body.tools.find((t: { name: string }) => t.name === 'email_search');
    expect(search.version).toBe('2.1.0');
    expect(search.input_schema.properties.page_token).toBeDefined();
    expect(search.versions.map((v: Record<string, unknown>) => [v.version, v.status, v.replacement])).toEqual([
      ['2.1.0', 'active', null],
      ['1.2.0', 'deprecated', 'email_search@2'],
    ]);
    expect(search.versions[1].input_schema.properties.page_token).toBeUndefined();
  });
});
