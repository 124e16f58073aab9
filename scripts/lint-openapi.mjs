// `npm run lint:openapi`: openapi.yaml under two linters, each as it ships.
// - Redocly's recommended rules (redocly.yaml adds no exceptions), where a warning fails as an error does — `redocly
//   lint` itself exits 0 on warnings, and a spec that is "valid with 3 warnings" is how exceptions creep back in.
// - Spectral's `oas` ruleset (.spectral.yaml), where an error fails: it validates every example against its schema
//   reading each `pattern` as a plain ECMAScript regex (no `u` flag), as many validators do. Its warnings (operations
//   without a description, no contact in info) are printed, not failed on.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Runs a linter from node_modules/.bin and reads its JSON report; exits when there is none. */
function report(bin, args, env = {}) {
  const run = spawnSync(process.execPath, [join(root, 'node_modules', '.bin', bin), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  try {
    return JSON.parse(run.stdout);
  } catch {
    process.stderr.write(`${bin} did not answer with a report (exit ${run.status}):\n${run.stdout}${run.stderr}`);
    process.exit(1);
  }
}

let failed = false;

const redocly = report('redocly', ['lint', 'openapi.yaml', '--config', 'redocly.yaml', '--format', 'json'], {
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
});
for (const p of redocly.problems) {
  const where = p.location?.map((l) => l.pointer).join(', ') ?? '';
  process.stderr.write(`openapi.yaml ${where}: ${p.severity} ${p.ruleId}: ${p.message}\n`);
}
const { errors, warnings } = redocly.totals;
if (errors + warnings > 0) {
  process.stderr.write(`openapi.yaml: ${errors} errors and ${warnings} warnings under Redocly's recommended rules\n`);
  failed = true;
}

// Spectral's severities: 0 error, 1 warning, 2 information, 3 hint. `--fail-severity` only sets its exit code;
// the report decides here.
const spectral = report('spectral', ['lint', 'openapi.yaml', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'], { SCARF_ANALYTICS: 'false' });
const spectralErrors = spectral.filter((p) => p.severity === 0);
for (const p of spectralErrors) process.stderr.write(`openapi.yaml #/${p.path.join('/')}: error ${p.code}: ${p.message}\n`);
if (spectralErrors.length > 0) {
  process.stderr.write(`openapi.yaml: ${spectralErrors.length} errors under Spectral's oas ruleset\n`);
  failed = true;
}

if (failed) process.exit(1);
