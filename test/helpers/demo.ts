import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run demo` as a newcomer runs it (the built dist/src/demo.js), and its printed lines pasted into bash.
 * The demo and the pasted lines run in a project directory of their own (symlinks to this checkout, a private
 * node_modules/) so the demo's note of where it saved its secrets never touches this checkout's.
 */

const ROOT = join(__dirname, '..', '..');

export function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-demo-project-'));
  for (const entry of ['dist', 'src', 'bench', 'scripts', 'packages', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) {
    symlinkSync(join(ROOT, entry), join(dir, entry));
  }
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'node_modules'));
  return dir;
}

/** The environment of a newcomer's shell: no database or Redis (the demo's embedded defaults), no Hub variables. */
export function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'TMPDIR'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, ...extra };
}

export interface RunningDemo {
  /** Everything the demo printed so far. */
  readonly output: string;
  /** The shell lines of the banner, as printed (comments included). */
  lines: string[];
  stop(): Promise<void>;
}

export async function startDemo(project: string, env: Record<string, string>, timeoutMs = 90_000): Promise<RunningDemo> {
  // Quiet unless the test asks for the log (LOG_LEVEL in env, e.g. to read access lines).
  const child: ChildProcess = spawn(process.execPath, ['dist/src/demo.js'], { cwd: project, env: { LOG_LEVEL: 'warn', ...env } });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  };
  const started = Date.now();
  while (!output.includes('Ctrl-C stops the Hub.')) {
    if (child.exitCode !== null) throw new Error(`the demo exited (${child.exitCode}):\n${output}`);
    if (Date.now() - started > timeoutMs) {
      await stop();
      throw new Error(`the demo did not start within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const banner = output.slice(output.indexOf('=== Hub demo is running ==='), output.indexOf('Ctrl-C stops the Hub.'));
  const lines = banner
    .split('\n')
    .slice(banner.split('\n').indexOf('') + 1)
    .filter((l) => l.trim() !== '');
  return {
    get output() {
      return output; // what the demo printed so far, not only up to its banner
    },
    lines,
    stop,
  };
}

export interface PastedLine {
  line: string;
  status: number;
  out: string;
}

/** Pastes the lines into one bash (as a person pastes a block into a terminal) and splits what each printed. */
export function pasteIntoBash(lines: string[], cwd: string, env: Record<string, string>): PastedLine[] {
  const mark = `@@${Math.random().toString(36).slice(2)}`;
  const script = lines.map((line) => `${line}\nprintf '\\n${mark} %d\\n' "$?"`).join('\n');
  const res = spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  if (res.error) throw res.error;
  const parts = res.stdout.split(new RegExp(`\\n${mark} (\\d+)\\n`));
  return lines.map((line, i) => ({ line, out: parts[2 * i] ?? '', status: Number(parts[2 * i + 1] ?? -1) }));
}
