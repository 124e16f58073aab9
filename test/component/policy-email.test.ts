import { asAdmin } from '../helpers/admin';
import { runTool, sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { ANA, BEN, mailboxAt, twoConnectedMailboxes } from '../helpers/email';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * `email_allowed_recipient_domains` against the Google sandbox: a recipient outside the allowed domains — in to,
 * cc or bcc — is refused with POLICY_DENIED before anything reaches Gmail (the sandbox logs no request at all,
 * not even a token refresh), and nothing is sent; recipients inside them are sent to as usual.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

const sentBy = (email: string) => mailboxAt(sb, email).filter((m) => m.labelIds.includes('SENT'));
const allowOnly = (customerId: string, domains: string[]) =>
  client(hub.app)
    .put(`/api/admin/customers/${customerId}/policy`)
    .set('Authorization', asAdmin())
    .send({ email_allowed_recipient_domains: domains })
    .expect(201);

test.each([
  ['to', { to: ['mallory@evil.example'] }],
  ['cc', { to: [BEN.email], cc: ['Mallory <mallory@EVIL.example>'] }],
  ['bcc', { to: [BEN.email], bcc: ['mallory@evil.example'] }],
  ['a subdomain not listed', { to: ['x@mail.acme.example'] }],
])('when a recipient in %s is outside the allowed domains, then POLICY_DENIED and no request reaches Google', async (_where, recipients) => {
  const { ana } = await twoConnectedMailboxes(hub, sb);
  await allowOnly(ana.customerId, ['acme.example', 'partner.example']);
  const requests = await sandboxRequestsFrom(sb);
  const res = await runTool(hub, ana, 'email_send', { ...recipients, subject: 'Hi', body: 'x' }).expect(403);
  expect(res.body.error.code).toBe('POLICY_DENIED');
  expect(res.body.error.details.rule).toBe('email_allowed_recipient_domains');
  expect(res.body.error.details.policy).toBe('customer');
  expect(res.body.error.details.refused_domains).toHaveLength(1);
  expect(res.body.metadata.api_calls).toBe(0);
  expect(await requests()).toEqual([]);
  expect(sentBy(ANA.email)).toEqual([]);
});

test('when every recipient is inside the allowed domains (any letter case), then the mail goes out', async () => {
  const { ana } = await twoConnectedMailboxes(hub, sb);
  await allowOnly(ana.customerId, ['ACME.example']);
  await runTool(hub, ana, 'email_send', { to: [`Ben <${BEN.email.toUpperCase()}>`], cc: [BEN.email], subject: 'Hi', body: 'x' }).expect(200);
  expect(sentBy(ANA.email)).toHaveLength(1);
});

test('when a read-only policy meets email_read with mark_as_read, then POLICY_DENIED and the message stays unread; reading it without marking is allowed', async () => {
  const { ana } = await twoConnectedMailboxes(hub, sb, {
    ana: [{ from: `Ben <${BEN.email}>`, to: [ANA.email], subject: 'Quarterly numbers', text: 'See attached.' }],
  });
  await client(hub.app).put(`/api/admin/customers/${ana.customerId}/policy`).set('Authorization', asAdmin()).send({ max_side_effects: 'reads' }).expect(201);
  const message = mailboxAt(sb, ANA.email)[0]!;
  expect(message.labelIds).toContain('UNREAD');
  const requests = await sandboxRequestsFrom(sb);
  const refused = await runTool(hub, ana, 'email_read', { message_id: message.id, mark_as_read: true }).expect(403);
  expect(refused.body.error).toMatchObject({ code: 'POLICY_DENIED', details: { rule: 'max_side_effects' } });
  expect(await requests()).toEqual([]);
  const read = await runTool(hub, ana, 'email_read', { message_id: message.id }).expect(200);
  expect(read.body.result.subject).toBe('Quarterly numbers');
  expect(mailboxAt(sb, ANA.email)[0]!.labelIds).toContain('UNREAD');
});
