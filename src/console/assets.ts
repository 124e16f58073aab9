import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';

/**
 * The admin console's browser files, as `npm run build` leaves them in dist/console (console/ compiled by tsc,
 * the stylesheet copied). Read once at start and served from memory under /admin/assets/<digest>/ — the digest
 * of all of them, so every build gets new URLs and the files can be cached for a year (`immutable`). ES modules
 * import each other by relative path, which a per-directory digest keeps working without a bundler.
 */

export interface ConsoleAssets {
  /** URL prefix, ending in "/", e.g. /admin/assets/3f2a…/ */
  base: string;
  files: ReadonlyMap<string, { body: Buffer; type: string }>;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** The project directory: the nearest ancestor with a package.json (from src/ under ts-jest, dist/src/ when built). */
function projectRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

/** Null when the console was not built (dist/console missing): its pages then say so instead of failing. */
export function loadConsoleAssets(dir: string = join(projectRoot(__dirname), 'dist', 'console')): ConsoleAssets | null {
  if (!existsSync(join(dir, 'main.js'))) return null;
  const files = new Map<string, { body: Buffer; type: string }>();
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (TYPES[extname(entry.name)]) files.set(rel, { body: readFileSync(join(dir, rel)), type: TYPES[extname(entry.name)]! });
    }
  };
  walk('');
  const hash = createHash('sha256');
  for (const [name, file] of files) hash.update(`${name}\0${file.body.length}\0`).update(file.body);
  return { base: `/admin/assets/${hash.digest('hex').slice(0, 16)}/`, files };
}
