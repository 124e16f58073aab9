import {
  MS_DEMO_ACCOUNTS,
  MS_DEMO_TENANT,
  MS_SANDBOX_DEFAULT_APP,
  type RunningSandbox,
  type World,
  createSandbox,
  loadMicrosoftSandboxConfig,
  populateDemoWorld,
} from '@hub/microsoft-sandbox';
import type { Config, DemoConfig } from './config';
import { connectThroughFlow } from './demo-connect';
import { DEMO_MICROSOFT_CUSTOMER_ID } from './demo-lines';
import type { RunningHub } from './server';

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
  /** server.ts's, passed in: importing it here would load `pg` before a tracing SDK could patch it (demo.ts). */
  explainListenError: (err: unknown, variable: string) => unknown,
): Promise<{ running: RunningSandbox; url: string; note: string; world: World; env: Record<string, string> }> {
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
  const note = `Microsoft sandbox: ${url} (authority ${url}/${MS_DEMO_TENANT.id}, Graph ${url}/v1.0, control API ${url}/_sandbox/); people ${Object.values(MS_DEMO_ACCOUNTS).join(', ')}; second demo customer connected as ${MS_DEMO_ACCOUNTS.ana} through the connect flow.`;
  // The Hub's Microsoft settings pointed at this sandbox and its app registration, as the Google ones are at its.
  const hubEnv = {
    // Where a browser is sent to sign in, and where the Hub calls: the address DEMO_HOST names, as for Google.
    HUB_MICROSOFT_SANDBOX_URL: url,
    HUB_MICROSOFT_CLIENT_ID: MS_SANDBOX_DEFAULT_APP.clientId,
    HUB_MICROSOFT_CLIENT_SECRET: MS_SANDBOX_DEFAULT_APP.clientSecret,
  };
  return { running, url, note, world: sandbox.world, env: hubEnv };
}

/**
 * Connects the second demo customer's Outlook Calendar and Outlook Mail (Ana Lima of Northwind) through the Hub's
 * own connect flow, as the Google customer is: the signed link → the Hub → Microsoft's sign-in (the sandbox
 * consents as Ana, for this one step) → the Hub's callback, which exchanges the code and stores the sealed tokens.
 */
export async function connectDemoMicrosoftCustomer(hub: RunningHub, world: World, publicUrl: string, encryptionKeys: Config['encryptionKeys']) {
  const previous = world.identity.consent;
  world.identity.consent = { mode: 'auto', account: MS_DEMO_ACCOUNTS.ana };
  try {
    await connectThroughFlow(hub, {
      publicUrl,
      encryptionKeys,
      customerId: DEMO_MICROSOFT_CUSTOMER_ID,
      integrations: ['outlook_calendar', 'outlook_mail'],
      whose: "the Microsoft demo customer's",
    });
  } finally {
    world.identity.consent = previous; // people opening an Outlook connect link in the demo see the sign-in page
  }
}
