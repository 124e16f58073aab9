import '../require-node'; // first: refuses an unsupported Node before anything else loads
import { parseArgs } from 'node:util';
import type { AdminPrincipal } from '../auth/admin-access';
import { ConfigError, loadSignInConfig, processEnv } from '../config';
import { createSignInLinks } from '../console/sign-in-links';
import { locateDemoSecrets, readDemoSecrets } from '../demo-secrets';

/**
 * `npm run admin-login -- --admin | --customer <uuid>`: prints a one-time sign-in link to the admin console
 * (signed with a key derived from HUB_ENCRYPTION_KEYS, valid HUB_CONSOLE_SIGN_IN_TTL_S ≤ 10 minutes, single use —
 * its use is recorded when it is redeemed). Run it where the Hub's configuration is; after `npm run demo` with
 * nothing set, the demo's saved keys and public URL are used (src/demo-secrets.ts).
 */

const USAGE = `usage: npm run admin-login -- (--admin | --customer <uuid>)
  --admin            sign in as a Hub admin (every customer)
  --customer <uuid>  sign in as this customer (its own connections only)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class UsageError extends Error {}

function principalFrom(argv: string[]): AdminPrincipal {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { customer: { type: 'string' }, admin: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if ((values.customer === undefined) === (values.admin !== true)) throw new UsageError('give exactly one of --admin or --customer <uuid>');
  if (values.customer !== undefined && !UUID.test(values.customer)) throw new UsageError(`--customer must be a UUID, got "${values.customer}"`);
  return values.customer === undefined ? { kind: 'admin' } : { kind: 'customer', customerId: values.customer.toLowerCase() };
}

/** The whole CLI, minus process globals: returns the exit status. */
export function runAdminLoginCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: { out: (s: string) => void; err: (s: string) => void },
  projectDir: string = process.cwd(),
): number {
  try {
    const principal = principalFrom(argv);
    // Unset variables come from the last demo's saved values, when there is one; set ones always win.
    const demoFile = env.HUB_ENCRYPTION_KEYS?.trim() && env.HUB_PUBLIC_URL?.trim() ? undefined : locateDemoSecrets(env.HUB_DATA_DIR, projectDir);
    const demo = demoFile === undefined ? {} : readDemoSecrets(demoFile);
    const fromDemo = { HUB_ENCRYPTION_KEYS: demo.HUB_ENCRYPTION_KEYS, HUB_PUBLIC_URL: demo.HUB_PUBLIC_URL };
    const merged = { ...env };
    for (const [name, value] of Object.entries(fromDemo)) if (!merged[name]?.trim() && value) merged[name] = value;
    const config = loadSignInConfig(merged);
    const link = createSignInLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys }).create(principal, config.ttlS);
    io.out(`${link.url}\n`);
    io.err(
      `One-time sign-in link for ${principal.kind === 'admin' ? 'a Hub admin' : `customer ${principal.customerId}`}; valid until ${link.expiresAt.toISOString()}.\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.message}\n(admin-login needs HUB_PUBLIC_URL and HUB_ENCRYPTION_KEYS as the Hub has them, or a demo started from this project)\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      io.err(`admin-login: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    io.err(`admin-login: ${(err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  process.exitCode = runAdminLoginCli(process.argv.slice(2), processEnv(), {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
  });
}
