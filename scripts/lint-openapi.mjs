// `npm run lint:openapi`: Redocly's recommended rules (redocly.yaml adds no exceptions) over openapi.yaml, where a
// warning fails as an error does — `redocly lint` itself exits 0 on warnings, and a spec that is "valid with 3
// warnings" is how exceptions creep back in unnoticed.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const redocly = join(root, 'node_modules', '.bin', 'redocly');
const run = spawnSync(process.execPath, [redocly, 'lint', 'openapi.yaml', '--config', 'redocly.yaml', '--format', 'json'], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  process.stderr.write(`redocly lint did not answer with a report (exit ${run.status}):\n${run.stdout}${run.stderr}`);
  process.exit(1);
}
for (const p of report.problems) {
  const where = p.location?.map((l) => l.pointer).join(', ') ?? '';
  process.stderr.write(`openapi.yaml ${where}: ${p.severity} ${p.ruleId}: ${p.message}\n`);
}
const { errors, warnings } = report.totals;
if (errors + warnings > 0) {
  process.stderr.write(`openapi.yaml: ${errors} errors and ${warnings} warnings under Redocly's recommended rules\n`);
  process.exit(1);
}
