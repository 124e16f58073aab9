import type { Config } from './config';
import type { IntegrationId } from './core/integrations';
import { createConnectLinks } from './integrations/connect-links';
import type { RunningHub } from './server';

/**
 * Connects a demo customer's integrations through the Hub's own connect flow, as an admin would: the signed link →
 * the Hub → the vendor's sign-in (the sandbox, set by the caller to consent on its own for this one step) → the
 * Hub's callback, which exchanges the code and stores the sealed tokens.
 *
 * The sandboxes' worlds are new at every start: a connection the last run stored holds tokens of a world that is
 * gone, and reconnecting would try to carry that grant on (src/integrations/grant-reuse.ts). So it is forgotten
 * first, as an admin's disconnect would; the new sandbox has nothing of it to revoke.
 */
export async function connectThroughFlow(
  hub: RunningHub,
  options: {
    publicUrl: string;
    encryptionKeys: Config['encryptionKeys'];
    customerId: string;
    integrations: readonly IntegrationId[];
    /** For the error: "the demo customer's", "the Microsoft demo customer's". */
    whose: string;
  },
): Promise<void> {
  const links = createConnectLinks({ publicUrl: options.publicUrl, encryptionKeys: options.encryptionKeys, ttlS: { admin: 300, setup: 300 } });
  // The link is on the public URL; the request goes to this process (they differ behind a proxy).
  const atHub = (url: string) => new URL(new URL(url).pathname + new URL(url).search, hub.url).toString();
  for (const integration of options.integrations) {
    await hub.store.remove(options.customerId, null, integration);
    const link = links.create({ customerId: options.customerId, userId: null, integration, returnUrl: null, origin: 'admin', replace: false });
    const start = await fetch(atHub(link.url), { redirect: 'manual' });
    const cookie = start.headers.get('set-cookie')?.split(';')[0];
    const signIn = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
    const callback = await fetch(atHub(signIn.headers.get('location') ?? ''), { redirect: 'manual', headers: cookie ? { cookie } : {} });
    if (callback.status !== 200) throw new Error(`connecting ${options.whose} ${integration} failed: ${callback.status}`);
  }
}
