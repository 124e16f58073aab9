import { randomUUID } from 'node:crypto';
import { asAdmin } from '../helpers/admin';
import { runTool } from '../helpers/connected';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub, microsoftGraphEnv } from '../helpers/hub';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { connectToMicrosoft } from '../helpers/microsoft-connected';

/**
 * email_send's answers when the vendor does not confirm a send are the tool's own (src/tools/email/send-once.ts) and
 * run for every provider: on Outlook they name Outlook — never Gmail, which the customer may not use at all.
 */

let ms: MicrosoftWorld;
let hub: TestHub;
beforeAll(async () => {
  ms = await startMicrosoftWorld();
  hub = await buildTestHub({ env: microsoftGraphEnv(ms.graphUrl) });
});
afterAll(async () => {
  await hub?.close();
  await ms?.close();
});
afterEach(() => ms.control('DELETE', '/faults'));

const mail = { to: [DEMO.ben], subject: 'Quarterly numbers', body: 'Attached below.' };

test('when Graph answers 500 to an Outlook send, then the unknown outcome names Outlook Mail, not Gmail, its receipt names outlook_mail, and a retry within the minute waits rather than send the draft', async () => {
  const ana = await connectToMicrosoft(hub, ms, { upn: DEMO.ana, integration: 'outlook_mail' });
  // Graph's 500 without sending: the draft stays a draft, which a send waiting for transport would too, so the
  // outcome is unknown and the tool says when to look again.
  await ms.control('POST', '/faults', { operation: 'messages.send', preset: 'internalError', times: 1 });
  const requestId = `send-${randomUUID()}`;
  const failed = await runTool(hub, ana, 'email_send', mail, { requestId }).expect(502);
  expect(failed.body.error).toMatchObject({
    code: 'EXTERNAL_API_ERROR',
    retryable: true,
    details: { upstream_status: 500, outcome: 'unknown', verification: 'not_found_yet' },
    message: expect.stringMatching(/^Outlook Mail did not confirm the send \(HTTP 500\); the message is not in Sent yet, so it may still go out/),
  });
  expect(failed.body.error.message).not.toMatch(/Gmail|Google/);
  // Its receipt names the integration, and lists Graph's operations in the contract's google_operations.
  await hub.audit.drain();
  const listed = await client(hub.app).get(`/api/admin/customers/${ana.customerId}/receipts?tool=email_send`).set('Authorization', asAdmin()).expect(200);
  expect(listed.body.receipts[0]).toMatchObject({
    integration: 'outlook_mail',
    google_operations: expect.arrayContaining([expect.objectContaining({ operation: 'messages.send', status: 500 })]),
  });
  // A new call cannot tell that draft from one waiting in Drafts for transport (which a second send may deliver
  // twice), so within a minute of the first attempt it is told when to come back; sending is the adapter suite's.
  const retry = await runTool(hub, ana, 'email_send', mail, { requestId }).expect(502);
  expect(retry.body.error).toMatchObject({ retryable: true, details: { outcome: 'unknown', verification: 'not_found_yet' } });
  expect(retry.body.error.retry_after_s).toBeGreaterThan(0);
  expect(retry.body.error.retry_after_s).toBeLessThanOrEqual(60);
});
