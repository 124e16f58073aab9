import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { MIGRATE_COMMAND, ROOT, loadCompose, read } from '../helpers/deploy';
import { runtimePackagesOf } from '../helpers/imports-of';

/**
 * The Dockerfile without a Docker engine: its stages read as Docker reads them (FROM … AS name, the last one
 * the default), and what the production stage can contain checked against package.json and the Hub's imports.
 */

const dockerfile = read('Dockerfile');
const packageJson = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
/** Each stage: its name, what it starts FROM, and its instructions (comments and continuations joined). */
const stages = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .reduce<{ name: string; from: string; lines: string[] }[]>((acc, line) => {
    const from = /^FROM (\S+)(?: AS (\S+))?$/.exec(line);
    if (from) acc.push({ from: from[1]!, name: from[2] ?? String(acc.length), lines: [] });
    else acc.at(-1)!.lines.push(line);
    return acc;
  }, []);
const stage = (name: string) => stages.find((s) => s.name === name)!;
/** The workspace packages (packages/*): the sandboxes, the client. */
const workspaces = readdirSync(join(ROOT, 'packages')).map((d) => (JSON.parse(read(`packages/${d}/package.json`)) as { name: string }).name);
/** What production runs: the server and the operators' commands (not the demo, the docs generator or the benches). */
const PRODUCTION_ENTRIES = ['src/main.ts', 'src/cli/migrate.ts', 'src/cli/rotate-keys.ts', 'src/cli/admin-token.ts', 'src/cli/admin-login.ts'];

describe('Dockerfile', () => {
  it('when built, then every stage starts from node:24-slim pinned by one digest, or from an earlier stage', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'production-deps', 'demo', 'production']);
    const bases = stages.filter((s) => !stages.some((t) => t.name === s.from)).map((s) => s.from);
    for (const from of bases) expect(from).toMatch(/^node:24-slim@sha256:[0-9a-f]{64}$/);
    expect(new Set(bases).size).toBe(1);
    expect(stage('demo').from).toBe('build');
  });

  it('when built without --target, then the image is the production stage: the Hub, its production dependencies, non-root', () => {
    expect(stages.at(-1)!.name).toBe('production'); // docker build's default target is the last stage
    const production = stage('production').lines;
    expect(production).toContain('COPY --from=production-deps /app/node_modules ./node_modules');
    expect(production).toContain('COPY --from=build /app/dist/src ./dist/src');
    expect(production).toContain('USER node');
    expect(production.at(-1)).toBe('CMD ["node", "dist/src/main.js"]');
    expect(dockerfile).toContain(`\`${MIGRATE_COMMAND.join(' ')}\``);
    expect(stage('build').lines).toContain('COPY scripts ./scripts'); // the build script
  });

  it('when the production image is made, then no emulator can be in it: no workspace package is copied or installed', () => {
    for (const name of ['production-deps', 'production']) {
      const text = stage(name).lines.join('\n');
      expect({ name, copiesPackages: /packages/.test(text) }).toEqual({ name, copiesPackages: false });
      expect(text).not.toMatch(/--from=(build|demo) \/app\/node_modules/);
    }
    expect(stage('production-deps').lines).toContain('RUN npm ci --omit=dev && npm cache clean --force');
    // with no packages/ in that stage, npm installs only what `dependencies` lists: no workspace package there
    expect(workspaces).toEqual(expect.arrayContaining(['@hub/google-sandbox']));
    for (const name of workspaces) expect(Object.keys(packageJson.dependencies)).not.toContain(name);
    expect(packageJson.devDependencies['@hub/google-sandbox']).toBeDefined();
  });

  it('when production runs, then what it imports is in the production dependencies, and no emulator is among it', () => {
    const used = runtimePackagesOf(PRODUCTION_ENTRIES);
    const builtin = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const missing = [...used.keys()].filter((p) => !builtin.has(p) && !packageJson.dependencies[p]);
    expect(missing.map((p) => `${p} (imported by ${used.get(p)!.join(', ')})`)).toEqual([]);
    expect([...used.keys()].filter((p) => p.startsWith('@hub/'))).toEqual([]);
    // the demo does import the sandbox: the walk sees it there, so its silence above means something
    expect(runtimePackagesOf(['src/demo.ts']).has('@hub/google-sandbox')).toBe(true);
  });

  it('when Compose builds, then the Hub and its migrations use the production target and the sandbox the demo target, which holds it', () => {
    const { services } = loadCompose({ HUB_ENV_FILE: 'sandbox.env' });
    for (const name of ['hub', 'migrate']) expect(services[name].build.target).toBe('production');
    expect(services.sandbox.build.target).toBe('demo');
    expect(services.sandbox.image).not.toBe(services.hub.image);
    expect(services.sandbox.command).toEqual(['node', 'packages/google-sandbox/dist/main.js']);
    const build = stage('build').lines;
    expect(build).toContain('COPY packages ./packages'); // before npm ci: the workspace links; built by npm run build
    expect(build.indexOf('COPY packages ./packages')).toBeLessThan(build.indexOf('RUN npm run build'));
    expect(read('.dockerignore')).toMatch(/^packages\/\*\/test$/m);
  });
});
