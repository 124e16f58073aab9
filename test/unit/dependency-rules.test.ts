import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// dependency-cruiser is an ES module only: its types come as an ES module's, and the code is loaded with import().
import type { ICruiseOptions, ICruiseResult } from 'dependency-cruiser' with { 'resolution-mode': 'import' };

/**
 * The import rules `npm run lint:deps` checks (.dependency-cruiser.cjs, docs/architecture.md "Import rules"),
 * run here through dependency-cruiser's own API: on a small tree that keeps every rule, each rule reports what
 * is seeded to break it and nothing else; on src/ nothing is reported beyond the known violations.
 */

const ROOT = path.resolve(__dirname, '../..');

/** A tree that keeps every rule: the allowed edges of each, so a rule that reports too much fails here. */
const KEPT: Record<string, string> = {
  'src/logger.ts': 'export type Logger = { info(message: string): void };\n',
  'src/config/index.ts': "import { server } from './server';\nexport const config = { server };\n",
  'src/config/server.ts': 'export const server = { port: 8080 };\n',
  'src/core/calendar.ts': "import type { Zone } from './zone';\nexport interface CalendarPort { list(zone: Zone): Promise<string[]> }\n",
  'src/core/zone.ts': 'export type Zone = string;\n',
  'src/store/db.ts':
    "import type { config } from '../config';\nimport type { Zone } from '../core/zone';\nimport type { Logger } from '../logger';\n" +
    'export type Db = { url: typeof config; zone: Zone; logger: Logger };\n',
  'src/providers/google/calendar.ts':
    "import { calendar } from '@googleapis/calendar';\nimport type { OAuth2Client } from 'google-auth-library';\n" +
    "import type { CalendarPort } from '../../core/calendar';\nexport const google = (auth: OAuth2Client): CalendarPort => ({ list: async () => [String(calendar)], auth });\n",
  'src/providers/microsoft/calendar.ts':
    "import type { Configuration } from '@azure/msal-node';\nimport type { CalendarPort } from '../../core/calendar';\n" +
    'export const outlook = (_c: Configuration): CalendarPort => ({ list: async () => [] });\n',
  'src/tools/list-events.ts': "import type { CalendarPort } from '../core/calendar';\nexport const run = (port: CalendarPort) => port.list('UTC');\n",
  'src/http/respond.ts': "import { run } from '../tools/list-events';\nexport const respond = run;\n",
  'src/app.ts':
    "import express from 'express';\nimport { google } from './providers/google/calendar';\nimport { respond } from './http/respond';\n" +
    'export const app = () => [express(), google, respond];\n',
};

/** For each rule, files that break it (added to the kept tree), and the edge it must report. */
const SEEDS: { rule: string; files: Record<string, string>; from: string; to: RegExp }[] = [
  {
    rule: 'no-circular',
    // Type imports only: the compiled code has no circle, the rule still sees one.
    files: {
      'src/access/policy.ts': "import type { Key } from './key';\nexport type Policy = { keys: Key[] };\n",
      'src/access/key.ts': "import type { Policy } from './policy';\nexport type Key = { policy: Policy };\n",
    },
    from: 'src/access/key.ts',
    to: /^src\/access\/policy\.ts$/,
  },
  {
    rule: 'core-imports-only-core',
    files: { 'src/core/mail.ts': "import type { Logger } from '../logger';\nexport interface MailPort { send(log: Logger): Promise<void> }\n" },
    from: 'src/core/mail.ts',
    to: /^src\/logger\.ts$/,
  },
  {
    rule: 'google-sdk-only-in-google-provider',
    files: { 'src/integrations/oauth.ts': "import type { OAuth2Client } from 'google-auth-library';\nexport type Client = OAuth2Client;\n" },
    from: 'src/integrations/oauth.ts',
    to: /node_modules\/google-auth-library\//,
  },
  {
    rule: 'microsoft-sdk-only-in-microsoft-provider',
    files: {
      'src/integrations/msal.ts': "import { ConfidentialClientApplication } from '@azure/msal-node';\nexport const msal = ConfidentialClientApplication;\n",
    },
    from: 'src/integrations/msal.ts',
    to: /node_modules\/@azure\/msal-node\//,
  },
  {
    rule: 'tools-not-http',
    files: { 'src/tools/send-mail.ts': "import type { Request } from 'express';\nexport const run = (req: Request) => req.body;\n" },
    from: 'src/tools/send-mail.ts',
    to: /node_modules\/(@types\/)?express\//,
  },
  {
    rule: 'tools-not-providers',
    files: { 'src/tools/free-busy.ts': "import { google } from '../providers/google/calendar';\nexport const run = google;\n" },
    from: 'src/tools/free-busy.ts',
    to: /^src\/providers\/google\/calendar\.ts$/,
  },
  {
    rule: 'store-imports-no-feature',
    files: {
      'src/integrations/ids.ts': "export type IntegrationId = 'google_calendar';\n",
      'src/store/rows.ts': "import type { IntegrationId } from '../integrations/ids';\nexport type Row = { integration: IntegrationId };\n",
    },
    from: 'src/store/rows.ts',
    to: /^src\/integrations\/ids\.ts$/,
  },
  {
    rule: 'config-imports-no-feature',
    files: { 'src/config/database.ts': "import type { Db } from '../store/db';\nexport const database = (db: Db) => db.url;\n" },
    from: 'src/config/database.ts',
    to: /^src\/store\/db\.ts$/,
  },
];

async function load() {
  const { cruise } = await import('dependency-cruiser');
  const { default: extractTSConfig } = await import('dependency-cruiser/config-utl/extract-ts-config');
  const { default: extractDepcruiseOptions } = await import('dependency-cruiser/config-utl/extract-depcruise-options');
  /** .dependency-cruiser.cjs as depcruise reads it. */
  const config: ICruiseOptions = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));
  return { cruise, extractTSConfig, config };
}
let api: Awaited<ReturnType<typeof load>>;
const fixtures: string[] = [];

beforeAll(async () => {
  api = await load();
});

afterAll(() => {
  for (const dir of fixtures) fs.rmSync(dir, { recursive: true, force: true });
});

/** A temporary tree of `files`, with the repository's packages and a tsconfig as the Hub's. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-deps-'));
  fixtures.push(dir);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const compilerOptions = { module: 'node16', moduleResolution: 'node16', strict: true, types: [] };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** The rules' violations in `baseDir`'s src/, as (rule, from, to); known violations are left out when given. */
async function violations(baseDir: string, knownViolations?: ICruiseOptions['knownViolations']) {
  const options: ICruiseOptions = {
    ...api.config,
    baseDir,
    validate: true,
    tsConfig: { fileName: path.join(baseDir, 'tsconfig.json') },
    ...(knownViolations ? { knownViolations } : {}),
  };
  const { output } = await api.cruise(['src'], options, {}, { tsConfig: api.extractTSConfig(path.join(baseDir, 'tsconfig.json')) });
  return (output as ICruiseResult).summary.violations.filter((v) => v.rule.severity !== 'ignore').map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('the import rules', () => {
  it('when a rule is added, then it is seeded here too', () => {
    const rules = (api.config.ruleSet?.forbidden ?? []).map((r) => r.name);
    expect(rules.length).toBeGreaterThan(0);
    expect(SEEDS.map((s) => s.rule).sort()).toEqual(rules.sort());
  });

  it('when every layer imports only what it may, then nothing is reported', async () => {
    expect(await violations(tree(KEPT))).toEqual([]);
  });

  it.each(SEEDS.map((s) => [s.rule, s] as const))('when %s is broken, then that rule reports the import that breaks it', async (rule, seed) => {
    const found = await violations(tree({ ...KEPT, ...seed.files }));
    expect(found.length).toBeGreaterThan(0);
    for (const v of found) expect(v.rule).toBe(rule);
    expect(found).toContainEqual({ rule, from: seed.from, to: expect.stringMatching(seed.to) });
  });

  it('when src/ is checked with the known violations, then it keeps every rule', async () => {
    const known = JSON.parse(fs.readFileSync(path.join(ROOT, '.dependency-cruiser-known-violations.json'), 'utf8')) as ICruiseOptions['knownViolations'];
    expect(await violations(ROOT, known)).toEqual([]);
  });
});
