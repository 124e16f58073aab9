import { randomBytes } from 'node:crypto';
import { type AuthenticationProvider, Client, type Context, type Middleware, MiddlewareFactory } from '@microsoft/microsoft-graph-client';
import { SEND_ID_HEADER, SEND_ID_PROPERTY } from '../../../src/providers/microsoft/mail-send';
import { DEMO } from '../../helpers/microsoft';
import { BEN, type MailWorld, startMailWorld } from '../../helpers/outlook-mail';

/**
 * What the adapter sends, read back with Microsoft's own Graph client (@microsoft/microsoft-graph-client, its
 * default middleware: authentication, retries, paging). The client insists on https and sends the token only to
 * Graph or its customHosts, so it is given the sandbox as https://127.0.0.1:<port> and only its last hop goes to
 * the sandbox's http origin, saying the caller used https (as packages/microsoft-sandbox/test/support.ts does).
 */

let w: MailWorld;
beforeAll(async () => {
  w = await startMailWorld();
  await w.control('PUT', '/consistency', { sent_items_delay_ms: 0, delivery_delay_ms: 0 });
});
afterAll(() => w.close());

class LoopbackTransport implements Middleware {
  async execute(context: Context): Promise<void> {
    const url = typeof context.request === 'string' ? context.request : context.request.url;
    const headers = new Headers(context.options?.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set('X-Forwarded-Proto', 'https');
    context.response = await fetch(url.replace(`https://127.0.0.1:${w.running.port}`, w.running.url), { ...(context.options as RequestInit), headers });
  }
}

async function clientFor(upn: string): Promise<Client> {
  const token = await w.token(upn);
  const auth: AuthenticationProvider = { getAccessToken: async () => token };
  const chain = MiddlewareFactory.getDefaultMiddlewareChain(auth);
  chain[chain.length - 1] = new LoopbackTransport();
  return Client.initWithMiddleware({
    baseUrl: `https://127.0.0.1:${w.running.port}/`,
    defaultVersion: 'v1.0',
    customHosts: new Set(['127.0.0.1']),
    middleware: chain,
  });
}

test('when the adapter sends HTML mail, then the Graph client reads it in Ben’s inbox with the header and in Ana’s Sent Items by the marker', async () => {
  const marker = randomBytes(16).toString('hex');
  const sent = await w
    .mail(DEMO.ana, { now: Date.now })
    .send({ to: [BEN], cc: [], bcc: [], subject: 'Quarterly numbers', body: '<p>See <b>the table</b>.</p>', bodyType: 'html' }, marker, null);
  if (!sent.ok) throw new Error(sent.error.message);

  const ben = await clientFor(DEMO.ben);
  const inbox = await ben
    .api('/me/mailFolders/inbox/messages')
    .filter("subject eq 'Quarterly numbers'")
    .select('subject,body,from,internetMessageHeaders')
    .get();
  expect(inbox.value).toHaveLength(1);
  expect(inbox.value[0]).toMatchObject({
    from: { emailAddress: { address: DEMO.ana } },
    body: { contentType: 'html', content: '<p>See <b>the table</b>.</p>' },
  });
  expect(inbox.value[0].internetMessageHeaders).toEqual(expect.arrayContaining([{ name: SEND_ID_HEADER, value: marker }]));

  const ana = await clientFor(DEMO.ana);
  const copy = await ana
    .api('/me/mailFolders/sentitems/messages')
    .header('Prefer', 'IdType="ImmutableId"')
    .filter(`singleValueExtendedProperties/Any(ep: ep/id eq '${SEND_ID_PROPERTY}' and ep/value eq '${marker}')`)
    .select('id,conversationId,isDraft')
    .get();
  expect(copy.value).toEqual([expect.objectContaining({ id: sent.value.id, conversationId: sent.value.threadId, isDraft: false })]);
});
