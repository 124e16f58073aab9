import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { IN_MEMORY } from './store/pglite';

/**
 * Where `npm run demo` keeps the secrets it generated (next to its embedded database, mode 600, so a restarted
 * demo still decrypts what it stored), and how `npm run admin-token` finds them again without being told
 * HUB_DATA_DIR: the demo leaves the file's absolute path in node_modules/.cache/hub/ of the project (npm runs
 * every script from the project directory).
 */

/** HUB_PUBLIC_URL is no secret: it is kept so `npm run admin-login` builds sign-in links the running demo answers. */
export type DemoSecrets = Partial<Record<'HUB_SERVICE_SECRETS' | 'HUB_ENCRYPTION_KEYS' | 'HUB_ADMIN_JWT_SECRET' | 'HUB_PUBLIC_URL', string>>;

/** The secrets file of a data directory; none for an in-memory database (nothing of it outlives the process). */
export const secretsFileIn = (dataDir: string): string | undefined => (dataDir === IN_MEMORY ? undefined : join(dataDir, 'demo-secrets.json'));

const pointerFile = (projectDir: string) => join(projectDir, 'node_modules', '.cache', 'hub', 'demo-secrets-location.json');

export function readDemoSecrets(file: string): DemoSecrets {
  if (!existsSync(file)) return {};
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`${file} is not valid JSON`); // not JSON.parse's message: it quotes the file's content
  }
  if (typeof saved !== 'object' || saved === null) return {};
  const out: DemoSecrets = {};
  for (const name of ['HUB_SERVICE_SECRETS', 'HUB_ENCRYPTION_KEYS', 'HUB_ADMIN_JWT_SECRET', 'HUB_PUBLIC_URL'] as const) {
    const value = (saved as Record<string, unknown>)[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** Saves the generated secrets (mode 600) and records where, for `npm run admin-token`. */
export function saveDemoSecrets(file: string, secrets: DemoSecrets, projectDir: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  const pointer = pointerFile(projectDir);
  if (!existsSync(join(projectDir, 'node_modules'))) return; // not a checkout with dependencies: nothing to point from
  mkdirSync(dirname(pointer), { recursive: true });
  writeFileSync(pointer, JSON.stringify({ secretsFile: resolve(file) }));
}

/**
 * The demo's secrets file for `npm run admin-token`: in HUB_DATA_DIR when it is set; else where the last demo
 * started from this project saved it; else in the default ./data.
 */
export function locateDemoSecrets(dataDirSetting: string | undefined, projectDir: string): string | undefined {
  if (dataDirSetting?.trim()) return secretsFileIn(dataDirSetting.trim());
  const pointer = pointerFile(projectDir);
  if (existsSync(pointer)) {
    try {
      const { secretsFile } = JSON.parse(readFileSync(pointer, 'utf8')) as { secretsFile?: unknown };
      if (typeof secretsFile === 'string' && existsSync(secretsFile)) return secretsFile;
    } catch {
      // a damaged pointer is only a hint: fall back to the default location
    }
  }
  return secretsFileIn(join(projectDir, 'data'));
}
