import './require-node'; // first: refuses an unsupported Node before anything else loads
import { SANDBOX_DEFAULT_CLIENT, SandboxConfigError, loadSandboxConfig, processEnv } from './config';
import { createSandbox } from './app';
import { DEMO_ACCOUNTS, demoAccounts } from './demo-data';

/**
 * The `google-sandbox` command (the Hub's `npm run sandbox`): the Google sandbox on SANDBOX_PORT (default 8090).
 * Point a Hub at it with HUB_GOOGLE_SANDBOX_URL and the client id/secret printed below (any other googleapis
 * program: README.md of this package). SANDBOX_CONTROL=on adds the control API.
 */
async function main() {
  let config;
  try {
    config = loadSandboxConfig(processEnv());
  } catch (err) {
    if (!(err instanceof SandboxConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  const started = Date.now();
  const sandbox = createSandbox({
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
    control: config.control,
    accessTokenLifetimeS: config.accessTokenLifetimeS,
    clients: [{ ...config.client, name: 'Hub' }],
    accounts: config.demoData ? demoAccounts(new Date()) : [],
    onError: (err) => process.stderr.write(`sandbox bug: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
  });
  const running = await sandbox.listen(config.port, config.host);
  // The default client secret is public (it is in the source); a configured one is never printed.
  const secret = config.client.clientSecret === SANDBOX_DEFAULT_CLIENT.clientSecret ? config.client.clientSecret : '<SANDBOX_CLIENT_SECRET>';
  const lines = [
    `Google sandbox listening on ${running.url} (started in ${Date.now() - started} ms)`,
    `  point a Hub at it:  HUB_GOOGLE_SANDBOX_URL=${running.url} HUB_GOOGLE_CLIENT_ID=${config.client.clientId} HUB_GOOGLE_CLIENT_SECRET=${secret}`,
    `  redirect URIs accepted: ${config.client.redirectUris.join(', ')}`,
    `  accounts: ${config.demoData ? Object.values(DEMO_ACCOUNTS).join(', ') : 'none (SANDBOX_DEMO_DATA=off)'}`,
    `  control API: ${config.control ? `${running.url}/_sandbox/ (sandbox mode)` : 'off (SANDBOX_CONTROL=on enables /_sandbox/)'}`,
    `  seed: ${config.seed ?? 'none (random)'}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  const stop = () => running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
