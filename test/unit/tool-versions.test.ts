import { z } from 'zod';
import { ok } from '../../src/core/errors';
import { createToolRegistry } from '../../src/tools/registry';
import { type ToolLifecycle, defineTool } from '../../src/tools/types';
import { parseToolSpec } from '../../src/tools/versions';

const tool = (version: string, lifecycle?: ToolLifecycle, name = 'test_tool') =>
  defineTool({
    name,
    version,
    ...(lifecycle ? { lifecycle } : {}),
    description: 'x',
    capability: null,
    permissions: [],
    sideEffects: 'reads',
    input: z.strictObject({}),
    output: z.object({}),
    run: async () => ok({}),
  });

describe('tool specs', () => {
  it.each([
    ['email_search', { name: 'email_search', prefix: [], wellFormed: true }],
    ['email_search@2', { name: 'email_search', prefix: [2], wellFormed: true }],
    ['email_search@1.2', { name: 'email_search', prefix: [1, 2], wellFormed: true }],
    ['email_search@1.2.0', { name: 'email_search', prefix: [1, 2, 0], wellFormed: true }],
    ['email_search@1.2.0.1', { name: 'email_search', prefix: [], wellFormed: false }],
    ['email_search@v1', { name: 'email_search', prefix: [], wellFormed: false }],
    ['email_search@1@2', { name: 'email_search', prefix: [], wellFormed: false }],
    ['email_search@1.', { name: 'email_search', prefix: [], wellFormed: false }],
  ])('when %s is parsed, then it names %j', (spec, parsed) => {
    expect(parseToolSpec(spec)).toEqual(parsed);
  });
});

describe('the registry at start', () => {
  it('when every version of a name matches but none is active, then the bare name runs the highest deprecated one', () => {
    const dep = { status: 'deprecated', deprecatedAt: '2026-01-01T00:00:00Z' } as const;
    const registry = createToolRegistry([tool('1.0.0', dep), tool('1.1.0', dep), tool('2.0.0', { status: 'blocked' })]);
    expect(registry.get('test_tool')?.version).toBe('1.1.0');
    expect(registry.list().map((t) => t.version)).toEqual(['1.1.0']);
    expect(registry.resolve('test_tool@2')).toMatchObject({ kind: 'blocked' });
  });

  it('when versions are registered, then each knows every `tool` string that runs it (what openapi.yaml lists)', () => {
    const registry = createToolRegistry([tool('1.1.0', { status: 'deprecated', deprecatedAt: '2026-01-01T00:00:00Z' }), tool('2.0.0')]);
    const [v2, v1] = registry.versions('test_tool');
    expect(registry.spellings(v2!)).toEqual(['test_tool', 'test_tool@2', 'test_tool@2.0', 'test_tool@2.0.0']);
    expect(registry.spellings(v1!)).toEqual(['test_tool@1', 'test_tool@1.1', 'test_tool@1.1.0']);
  });

  it.each([
    ['a version registered twice', [tool('1.0.0'), tool('1.0.0')], 'registered twice'],
    ['a version that is not major.minor.patch', [tool('1.0')], 'major.minor.patch'],
    ['deprecated without a date', [tool('1.0.0', { status: 'deprecated' })], 'without deprecatedAt'],
    ['a date that is not an instant', [tool('1.0.0', { status: 'deprecated', deprecatedAt: 'soon' })], 'not an ISO 8601'],
    ['a replacement that resolves to nothing runnable', [tool('1.0.0', { status: 'blocked', replacement: 'test_tool@2' })], 'replacement'],
    ['a replacement that is itself blocked', [tool('1.0.0', { status: 'blocked', replacement: 'test_tool@1' })], 'replacement'],
    ['a write that does not say whether it is destructive', [{ ...tool('1.0.0'), sideEffects: 'writes' as const }], 'destructive'],
    ['a read that claims to be destructive', [{ ...tool('1.0.0'), destructive: true }], 'destructive'],
  ])('when given %s, then the boot fails naming it', (_what, tools, message) => {
    expect(() => createToolRegistry(tools)).toThrow(message);
  });
});
