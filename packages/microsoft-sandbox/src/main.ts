import './require-node'; // first: refuses an unsupported Node before anything else loads
import { createSandbox } from './app';
import { MS_SANDBOX_DEFAULT_APP, MicrosoftSandboxConfigError, loadMicrosoftSandboxConfig, processEnv } from './config';
import { MS_DEMO_ACCOUNTS, MS_DEMO_TENANT, populateDemoWorld } from './demo-data';
import { GRAPH_SCOPES } from './identity/scopes';

/**
 * The `microsoft-sandbox` command: the Microsoft sandbox on MS_SANDBOX_PORT (default 8091). MS_SANDBOX_CONTROL=on
 * adds the control API. README.md of this package shows how to point msal-node and the Graph client at it.
 */
async function main() {
  let config;
  try {
    config = loadMicrosoftSandboxConfig(processEnv());
  } catch (err) {
    if (!(err instanceof MicrosoftSandboxConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  const started = Date.now();
  const sandbox = createSandbox({
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
    control: config.control,
    apps: [
      {
        clientId: config.app.clientId,
        secret: config.app.clientSecret,
        redirectUris: config.app.redirectUris,
        name: 'Hub',
        permissions: Object.keys(GRAPH_SCOPES).filter((s) => !GRAPH_SCOPES[s]!.adminOnly),
      },
    ],
    ...(config.demoData ? { populate: populateDemoWorld(new Date()) } : {}),
    onError: (err) => process.stderr.write(`sandbox bug: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
  });
  const running = await sandbox.listen(config.port, config.host);
  const secret = config.app.clientSecret === MS_SANDBOX_DEFAULT_APP.clientSecret ? config.app.clientSecret : '<MS_SANDBOX_CLIENT_SECRET>';
  process.stdout.write(
    [
      `Microsoft sandbox listening on ${running.url} (started in ${Date.now() - started} ms)`,
      `  authority: ${running.url}/${config.demoData ? MS_DEMO_TENANT.id : 'organizations'}   Graph: ${running.url}/v1.0`,
      `  app: client id ${config.app.clientId}, secret ${secret}, redirect URIs ${config.app.redirectUris.join(', ')}`,
      `  accounts: ${config.demoData ? Object.values(MS_DEMO_ACCOUNTS).join(', ') : 'none (MS_SANDBOX_DEMO_DATA=off)'}`,
      `  control API: ${config.control ? `${running.url}/_sandbox/ (sandbox mode)` : 'off (MS_SANDBOX_CONTROL=on enables /_sandbox/)'}`,
      '',
    ].join('\n'),
  );
  const stop = () => running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
