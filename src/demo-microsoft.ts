import {
  MS_DEMO_ACCOUNTS,
  MS_DEMO_TENANT,
  MS_SANDBOX_DEFAULT_APP,
  type RunningSandbox,
  createSandbox,
  loadMicrosoftSandboxConfig,
  populateDemoWorld,
} from '@hub/microsoft-sandbox';
import type { DemoConfig } from './config';
import { explainListenError } from './server';

/**
 * The Microsoft sandbox beside the Google one in `npm run demo`: the identity platform and Graph v1.0 with the
 * demo tenant (three people, a week of meetings, Ana's inbox) and the Hub registered as an app, in sandbox
 * mode. Its port is MS_SANDBOX_PORT; unset, 8091 when free and any free port otherwise (so demos started side by
 * side, as the test suites do, never collide). It listens where DEMO_HOST says unless MS_SANDBOX_HOST is set.
 */
export async function startDemoMicrosoftSandbox(
  env: Record<string, string | undefined>,
  demo: DemoConfig,
  hubPublicUrl: string,
): Promise<{ running: RunningSandbox; url: string; note: string }> {
  const config = loadMicrosoftSandboxConfig({ ...env, MS_SANDBOX_HOST: env.MS_SANDBOX_HOST?.trim() || demo.listenHost });
  const sandbox = createSandbox({
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
    control: true,
    apps: [
      {
        clientId: MS_SANDBOX_DEFAULT_APP.clientId,
        secret: MS_SANDBOX_DEFAULT_APP.clientSecret,
        redirectUris: [`${hubPublicUrl}/integrations/microsoft/callback`],
        name: 'Hub (demo)',
        permissions: ['User.Read', 'Calendars.ReadWrite', 'Mail.ReadWrite', 'Mail.Send', 'MailboxSettings.Read'],
      },
    ],
    populate: populateDemoWorld(new Date()),
  });
  const chosen = Boolean(env.MS_SANDBOX_PORT?.trim());
  const running = await sandbox.listen(config.port, config.host).catch((err: unknown) => {
    if (!chosen && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') return sandbox.listen(0, config.host);
    throw explainListenError(err, 'MS_SANDBOX_PORT');
  });
  const url = `http://${demo.host}:${running.port}`;
  const note = `Microsoft sandbox: ${url} (authority ${url}/${MS_DEMO_TENANT.id}, Graph ${url}/v1.0, control API ${url}/_sandbox/); people ${Object.values(MS_DEMO_ACCOUNTS).join(', ')}.`;
  return { running, url, note };
}
