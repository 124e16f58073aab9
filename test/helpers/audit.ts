import { asAdmin } from './admin';
import { sandboxHubEnv } from './connected';
import { client } from './http';
import { type TestHub, buildTestHub } from './hub';
import { type TestSandbox, useTestSandbox } from './sandbox';

/**
 * The audit trail's suites: one Google sandbox and one Hub talking to it per file, writing receipts every 20 ms so a
 * test reads them soon after its call; receipts are read as an operator does, through the admin API.
 */
export interface AuditSuite {
  sb: TestSandbox;
  hub(): TestHub;
  /** A supertest client of the suite's Hub. */
  api(): ReturnType<typeof client>;
  /** The admin API's receipts of a customer (its body), once everything queued is written; `status` is checked. */
  receipts(customerId: string, query?: string, options?: { auth?: string; status?: number }): Promise<any>;
}

export function useAuditSuite(): AuditSuite {
  const sb = useTestSandbox();
  let hub: TestHub | undefined;
  beforeAll(async () => {
    hub = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_AUDIT_FLUSH_MS: '20' }) });
  });
  afterAll(async () => {
    await hub?.close();
  });
  const api = () => client(hub!.app);
  const receipts = async (customerId: string, query = '', options: { auth?: string; status?: number } = {}) => {
    await hub!.audit.drain();
    return (
      await api()
        .get(`/api/admin/customers/${customerId}/receipts${query}`)
        .set('Authorization', options.auth ?? asAdmin())
        .expect(options.status ?? 200)
    ).body;
  };
  return { sb, hub: () => hub!, api, receipts };
}
