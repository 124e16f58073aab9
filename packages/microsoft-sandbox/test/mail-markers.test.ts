import type { Client } from '@microsoft/microsoft-graph-client';
import { type Harness, expectNoViolations, graphClient, seedPeople, startHarness, tokenFor } from './support';

/**
 * What a sender can attach to a message to find it again, and what Graph shows of it where: custom internet
 * headers, single-value extended properties, immutable ids across the send, counts, attachment selections.
 */

let h: Harness;
let ana: Client;
let ben: Client;
const PROP = 'String {6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b} Name HubSendId';
const IMMUTABLE = { Prefer: 'IdType="ImmutableId"' };

beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  ana = graphClient(h, await tokenFor(h, 'ana@contoso.example'));
  ben = graphClient(h, await tokenFor(h, 'ben@contoso.example'));
});
afterAll(async () => {
  expectNoViolations(h);
  await h.close();
});

const draftWith = (extra: Record<string, unknown>) =>
  ana
    .api('/me/messages')
    .headers(IMMUTABLE)
    .post({ subject: 'Marked', body: { contentType: 'Text', content: 'x' }, toRecipients: [{ emailAddress: { address: 'ben@contoso.example' } }], ...extra });

test('when custom headers are given, then only x- names, at most five, and only when the message is created', async () => {
  await expect(draftWith({ internetMessageHeaders: [{ name: 'In-Reply-To', value: '<a@b>' }] })).rejects.toMatchObject({
    statusCode: 400,
    code: 'InvalidInternetMessageHeader',
  });
  const six = Array.from({ length: 6 }, (_, i) => ({ name: `x-h${i}`, value: 'v' }));
  await expect(draftWith({ internetMessageHeaders: six })).rejects.toMatchObject({ statusCode: 400, code: 'InvalidInternetMessageHeaderCollection' });
  const d = await draftWith({ internetMessageHeaders: [{ name: 'X-Hub-Send-Id', value: 'abc' }] });
  await expect(ana.api(`/me/messages/${d.id}`).patch({ internetMessageHeaders: [{ name: 'x-late', value: '1' }] })).rejects.toMatchObject({ statusCode: 400 });
});

test('when a message with a header and an extended property is sent, then the recipient sees the header, the sender finds the property, not the header', async () => {
  await h.control('PUT', '/consistency', { sent_items_delay_ms: 3000, delivery_delay_ms: 0 });
  const d = await draftWith({
    subject: 'Tracked',
    internetMessageHeaders: [{ name: 'X-Hub-Send-Id', value: 'tok123' }],
    singleValueExtendedProperties: [{ id: PROP, value: 'tok123' }],
  });
  const byProperty = (id: string, value: string) =>
    ana
      .api('/me/messages')
      .headers(IMMUTABLE)
      .filter(`singleValueExtendedProperties/Any(ep: ep/id eq '${id}' and ep/value eq '${value}')`)
      .select('id,isDraft')
      .get();
  expect((await byProperty(PROP, 'TOK123')).value).toEqual([expect.objectContaining({ id: d.id, isDraft: true })]); // values ignore case
  expect((await byProperty(PROP.replace('HubSendId', 'hubsendid'), 'tok123')).value).toEqual([]); // names do not
  await ana.api(`/me/messages/${d.id}/send`).post({});
  // On its way: until transport takes it, the immutable id still names the draft, in Drafts; Sent Items has no copy.
  expect(await ana.api(`/me/messages/${d.id}`).headers(IMMUTABLE).select('isDraft').get()).toMatchObject({ isDraft: true });
  expect((await byProperty(PROP, 'tok123')).value).toEqual([expect.objectContaining({ id: d.id, isDraft: true })]);
  expect((await ana.api('/me/mailFolders/sentitems/messages').get()).value).toEqual([]);
  await h.control('POST', '/clock/advance', { seconds: 4 });
  const sent = await ana.api(`/me/messages/${d.id}`).headers(IMMUTABLE).select('isDraft,internetMessageHeaders,subject').get();
  expect(sent).toMatchObject({ isDraft: false, subject: 'Tracked' });
  expect(sent.internetMessageHeaders).toBeUndefined();
  expect((await byProperty(PROP, 'tok123')).value).toEqual([expect.objectContaining({ id: d.id, isDraft: false })]);
  const [got] = (await ben.api('/me/mailFolders/inbox/messages').filter("subject eq 'Tracked'").select('subject,internetMessageHeaders').get()).value;
  expect(got.internetMessageHeaders).toEqual(expect.arrayContaining([{ name: 'X-Hub-Send-Id', value: 'tok123' }]));
  const plain = await ben.api(`/me/messages/${got.id}`).get();
  expect(plain.internetMessageHeaders).toBeUndefined(); // only with $select
  const onBens = await ben.api('/me/messages').filter(`singleValueExtendedProperties/Any(ep: ep/id eq '${PROP}' and ep/value eq 'tok123')`).get();
  expect(onBens.value).toEqual([]);
  await h.control('PUT', '/consistency', { sent_items_delay_ms: 0, delivery_delay_ms: 0 });
});

test('when a reply is drafted with a comment and a body at once, then 400; a message parameter alone sets the reply', async () => {
  const [tracked] = (await ben.api('/me/messages').filter("subject eq 'Tracked'").get()).value;
  await expect(
    ben.api(`/me/messages/${tracked.id}/createReply`).post({ comment: 'Hi', message: { body: { contentType: 'Text', content: 'Hello' } } }),
  ).rejects.toMatchObject({ statusCode: 400 });
  const reply = await ben.api(`/me/messages/${tracked.id}/createReply`).post({
    message: {
      body: { contentType: 'Text', content: 'Hello' },
      internetMessageHeaders: [{ name: 'x-hub-send-id', value: 'r1' }],
      singleValueExtendedProperties: [{ id: PROP, value: 'r1' }],
    },
  });
  expect(reply).toMatchObject({ conversationId: tracked.conversationId, body: { content: expect.stringContaining('Hello') } });
});

test('when $count=true is asked with a filter, then @odata.count counts every match; a $skiptoken the sandbox did not issue is refused', async () => {
  const all = await ana.api('/me/messages').filter('isRead eq true').top(100).get();
  const page = await ana.api('/me/messages').filter('isRead eq true').count(true).top(1).get();
  expect(all.value.length).toBeGreaterThan(1);
  expect(page['@odata.count']).toBe(all.value.length);
  expect(page.value).toHaveLength(1);
  await expect(ana.api('/me/messages?$search="tracked"&$skiptoken=garbage').get()).rejects.toMatchObject({ statusCode: 400 });
});

test('when attachments are listed with $select, then the chosen properties come without the bytes', async () => {
  const d = await draftWith({
    attachments: [
      { '@odata.type': '#microsoft.graph.fileAttachment', name: 'a.txt', contentType: 'text/plain', contentBytes: Buffer.from('hi').toString('base64') },
    ],
  });
  const list = await ana.api(`/me/messages/${d.id}/attachments`).select('id,name,contentType,size,isInline').get();
  expect(list.value).toEqual([
    { '@odata.type': '#microsoft.graph.fileAttachment', id: expect.any(String), name: 'a.txt', contentType: 'text/plain', size: 2, isInline: false },
  ]);
  await expect(ana.api(`/me/messages/${d.id}/attachments`).select('shoeSize').get()).rejects.toMatchObject({ statusCode: 400 });
});
