import type { Client } from '@microsoft/microsoft-graph-client';
import { type Harness, expectNoViolations, graphClient, seedPeople, startHarness, tokenFor } from './support';

/** Mail through @microsoft/microsoft-graph-client: Outlook's query rules, paging, bodies, replies, sending, ids. */

let h: Harness;
let ana: Client;
let ben: Client;
const PDF = Buffer.from('%PDF-1.4 tiny').toString('base64');
beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  ana = graphClient(h, await tokenFor(h, 'ana@contoso.example'));
  ben = graphClient(h, await tokenFor(h, 'ben@contoso.example'));
  const from = { name: 'Ben Okafor', address: 'ben@contoso.example' };
  const to = [{ name: 'Ana Lima', address: 'ana@contoso.example' }];
  for (let i = 0; i < 14; i++)
    await h.control('POST', '/accounts/ana@contoso.example/messages', {
      from,
      to,
      subject: `Report ${i}`,
      text: `Weekly report number ${i}`,
      received: `2026-02-${String(i + 1).padStart(2, '0')}T09:00:00Z`,
      is_read: i % 2 === 0,
    });
  await h.control('POST', '/accounts/ana@contoso.example/messages', {
    from,
    to,
    subject: 'Q3 plan',
    html: '<p>Draft <b>numbers</b> attached.</p>',
    received: '2026-02-20T10:00:00Z',
    thread: 'q3',
    attachments: [{ name: 'q3.pdf', content_type: 'application/pdf', content_base64: PDF }],
  });
});
afterAll(async () => {
  expectNoViolations(h);
  await h.close();
});

test('when messages are listed, then pages of 10 come with an @odata.nextLink the client follows, newest first', async () => {
  const page = await ana.api('/me/mailFolders/inbox/messages').select('subject,receivedDateTime').get();
  expect(page.value).toHaveLength(10);
  expect(page.value[0].subject).toBe('Q3 plan');
  expect(Object.keys(page.value[0]).sort()).toEqual(['@odata.etag', 'id', 'receivedDateTime', 'subject']);
  const rest = await ana.api(page['@odata.nextLink']).get();
  expect(rest.value).toHaveLength(5);
  await expect(ana.api('/me/messages').top(1001).get()).rejects.toMatchObject({ statusCode: 400 });
  const small = await ana
    .api('/me/messages')
    .header('Prefer', 'odata.maxpagesize=3')
    .responseType('raw' as never)
    .get();
  expect(small.headers.get('preference-applied')).toBe('odata.maxpagesize=3');
  expect(((await small.json()) as any).value).toHaveLength(3);
  await expect(ana.api('/me/messages').select('subject,shoeSize').get()).rejects.toMatchObject({ statusCode: 400, code: 'RequestBroker--ParseUri' });
});

test('when $filter and $orderby disagree, then InefficientFilter; when they follow Outlook’s rule, the answer is filtered and sorted', async () => {
  await expect(ana.api('/me/messages').filter('isRead eq false').orderby('receivedDateTime desc').get()).rejects.toMatchObject({
    statusCode: 400,
    code: 'InefficientFilter',
  });
  const ok = await ana
    .api('/me/messages')
    .filter('receivedDateTime ge 2026-02-05T00:00:00Z and isRead eq false')
    .orderby('receivedDateTime desc')
    .top(50)
    .get();
  expect(ok.value.map((m: any) => m.subject)).toEqual(['Q3 plan', 'Report 13', 'Report 11', 'Report 9', 'Report 7', 'Report 5']);
  const fromBen = await ana.api('/me/messages').filter("from/emailAddress/address eq 'ben@contoso.example' and hasAttachments eq true").get();
  expect(fromBen.value.map((m: any) => m.subject)).toEqual(['Q3 plan']);
});

test('when $search is used, then it matches KQL terms, refuses $filter and $orderby beside it, and pages with $skiptoken', async () => {
  const hits = await ana.api('/me/messages').search('"subject:report"').top(5).get();
  expect(hits.value).toHaveLength(5);
  expect(hits['@odata.nextLink']).toContain('%24skiptoken=');
  expect((await ana.api(hits['@odata.nextLink']).get()).value).toHaveLength(5);
  expect((await ana.api('/me/messages').search('"numbers"').get()).value.map((m: any) => m.subject)).toEqual(['Q3 plan']);
  await expect(ana.api('/me/messages').search('"report"').filter('isRead eq true').get()).rejects.toMatchObject({ statusCode: 400, code: 'SearchWithFilter' });
  await expect(ana.api('/me/messages').search('"report"').orderby('receivedDateTime').get()).rejects.toMatchObject({
    statusCode: 400,
    code: 'SearchWithOrderBy',
  });
});

test('when a message is read with Prefer: outlook.body-content-type="text", then the body is text; attachments come whole', async () => {
  const [q3] = (await ana.api('/me/messages').filter("subject eq 'Q3 plan'").get()).value;
  expect(q3.body.contentType).toBe('html');
  expect(q3.hasAttachments).toBe(true);
  expect(q3.internetMessageId).toMatch(/^<.+@.+>$/);
  const text = await ana.api(`/me/messages/${q3.id}`).header('Prefer', 'outlook.body-content-type="text"').get();
  expect(text.body).toEqual({ contentType: 'text', content: 'Draft numbers attached.' });
  const atts = await ana.api(`/me/messages/${q3.id}/attachments`).get();
  expect(atts.value[0]).toMatchObject({ '@odata.type': '#microsoft.graph.fileAttachment', name: 'q3.pdf', contentType: 'application/pdf', contentBytes: PDF });
  const raw = await fetch(`${h.running.url}/v1.0/me/messages/${q3.id}/attachments/${atts.value[0].id}/$value`, {
    headers: { authorization: `Bearer ${await tokenFor(h, 'ana@contoso.example')}` },
  });
  expect(Buffer.from(await raw.arrayBuffer()).toString('base64')).toBe(PDF);
});

test('when Ana replies through createReply and send, then the reply keeps the conversation, shows in Sent Items only after a delay, and reaches Ben', async () => {
  await h.control('PUT', '/consistency', { sent_items_delay_ms: 5000, delivery_delay_ms: 8000 });
  const [q3] = (await ana.api('/me/messages').filter("subject eq 'Q3 plan'").get()).value;
  const draft = await ana.api(`/me/messages/${q3.id}/createReply`).post({ comment: 'Looks good.' });
  expect(draft).toMatchObject({
    isDraft: true,
    subject: 'RE: Q3 plan',
    conversationId: q3.conversationId,
    toRecipients: [{ emailAddress: { address: 'ben@contoso.example' } }],
  });
  const patched = await ana.api(`/me/messages/${draft.id}`).patch({ ccRecipients: [{ emailAddress: { address: 'chen@contoso.example' } }] });
  expect(patched.ccRecipients).toHaveLength(1);
  await ana.api(`/me/messages/${draft.id}/send`).post({});
  // Until transport takes it, the draft stays in Drafts under its id, and Sent Items has nothing yet.
  expect(await ana.api(`/me/messages/${draft.id}`).get()).toMatchObject({ isDraft: true, sentDateTime: null });
  expect((await ana.api('/me/mailFolders/sentitems/messages').get()).value).toEqual([]);
  await h.control('POST', '/clock/advance', { seconds: 6 });
  // Taken: moved to Sent Items, so its default id changed.
  await expect(ana.api(`/me/messages/${draft.id}`).get()).rejects.toMatchObject({ statusCode: 404 });
  const sent = (await ana.api('/me/mailFolders/SentItems/messages').get()).value;
  expect(sent).toEqual([expect.objectContaining({ subject: 'RE: Q3 plan', conversationId: q3.conversationId, isDraft: false })]);
  expect((await ben.api('/me/mailFolders/inbox/messages').get()).value).toEqual([]);
  await h.control('POST', '/clock/advance', { seconds: 3 });
  const inbox = (await ben.api('/me/mailFolders/inbox/messages').get()).value;
  expect(inbox).toEqual([expect.objectContaining({ subject: 'RE: Q3 plan', internetMessageId: sent[0].internetMessageId, isRead: false })]);
  await h.control('PUT', '/consistency', { sent_items_delay_ms: 0, delivery_delay_ms: 0 });
});

test('when a draft is sent again before transport took it, then it is delivered twice — what a blind re-send costs', async () => {
  await h.control('PUT', '/consistency', { sent_items_delay_ms: 5000, delivery_delay_ms: 0 });
  const draft = await ana.api('/me/messages').post({ subject: 'Twice?', toRecipients: [{ emailAddress: { address: 'ben@contoso.example' } }] });
  await ana.api(`/me/messages/${draft.id}/send`).post({});
  expect(await ana.api(`/me/messages/${draft.id}`).get()).toMatchObject({ isDraft: true });
  await ana.api(`/me/messages/${draft.id}/send`).post({});
  await h.control('POST', '/clock/advance', { seconds: 6 });
  expect((await ben.api('/me/mailFolders/inbox/messages').filter("subject eq 'Twice?'").get()).value).toHaveLength(2);
  expect((await ana.api('/me/mailFolders/sentitems/messages').filter("subject eq 'Twice?'").get()).value).toHaveLength(1);
  // Taken now: a third send is refused, as for any sent message.
  const [copy] = (await ana.api('/me/mailFolders/sentitems/messages').filter("subject eq 'Twice?'").get()).value;
  await expect(ana.api(`/me/messages/${copy.id}/send`).post({})).rejects.toMatchObject({ statusCode: 400, code: 'ErrorInvalidOperation' });
  await h.control('PUT', '/consistency', { sent_items_delay_ms: 0, delivery_delay_ms: 0 });
});

test('when sendMail is called, then 202 with no body, a copy in Sent Items unless saveToSentItems is false; no recipients is refused', async () => {
  const res = await ben
    .api('/me/sendMail')
    .responseType('raw' as never)
    .post({
      message: {
        subject: 'Lunch?',
        body: { contentType: 'Text', content: 'Noon?' },
        toRecipients: [{ emailAddress: { address: 'ana@contoso.example' } }],
        attachments: [{ '@odata.type': '#microsoft.graph.fileAttachment', name: 'menu.pdf', contentType: 'application/pdf', contentBytes: PDF }],
      },
    });
  expect(res.status).toBe(202);
  expect(await res.text()).toBe('');
  await ben.api('/me/sendMail').post({
    message: { subject: 'Quiet', body: { contentType: 'Text', content: 'x' }, toRecipients: [{ emailAddress: { address: 'ana@contoso.example' } }] },
    saveToSentItems: false,
  });
  const sent = (await ben.api('/me/mailFolders/sentitems/messages').get()).value.map((m: any) => m.subject);
  expect(sent).toContain('Lunch?');
  expect(sent).not.toContain('Quiet');
  const got = (await ana.api('/me/messages').filter("subject eq 'Lunch?'").get()).value[0];
  expect(got.hasAttachments).toBe(true);
  await expect(ben.api('/me/sendMail').post({ message: { subject: 'Nobody', body: { contentType: 'Text', content: 'x' } } })).rejects.toMatchObject({
    statusCode: 400,
    code: 'ErrorInvalidRecipients',
  });
  const tooMany = Array.from({ length: 501 }, (_, i) => ({ emailAddress: { address: `r${i}@elsewhere.example` } }));
  await expect(
    ben.api('/me/sendMail').post({ message: { subject: 'Blast', body: { contentType: 'Text', content: 'x' }, toRecipients: tooMany } }),
  ).rejects.toMatchObject({ code: 'ErrorSubmissionQuotaExceeded' });
});

test('when a message moves, then its id changes unless Prefer: IdType="ImmutableId" was used, and both old REST ids stop working', async () => {
  const [m] = (await ana.api('/me/messages').filter("subject eq 'Report 0'").get()).value;
  const immutable = (await ana.api(`/me/messages/${m.id}`).header('Prefer', 'IdType="ImmutableId"').get()).id;
  expect(immutable).not.toBe(m.id);
  const moved = await ana.api(`/me/messages/${m.id}/move`).post({ destinationId: 'archive' });
  expect(moved.id).not.toBe(m.id);
  await expect(ana.api(`/me/messages/${m.id}`).get()).rejects.toMatchObject({ statusCode: 404, code: 'ErrorItemNotFound' });
  const again = await ana.api(`/me/messages/${moved.id}/move`).header('Prefer', 'IdType="ImmutableId"').post({ destinationId: 'inbox' });
  expect(again.id).toBe(immutable);
  expect((await ana.api(`/me/messages/${immutable}`).get()).subject).toBe('Report 0');
  await ana.api(`/me/messages/${immutable}`).delete();
  expect((await ana.api('/me/mailFolders/deleteditems/messages').get()).value.map((x: any) => x.subject)).toEqual(['Report 0']);
});

test('when a draft is created and a received message patched, then drafts take any field and sent mail only flags and read state', async () => {
  const d = await ana
    .api('/me/messages')
    .post({ subject: 'Idea', body: { contentType: 'HTML', content: '<p>hi</p>' }, toRecipients: [{ emailAddress: { address: 'ben@contoso.example' } }] });
  expect(d).toMatchObject({ isDraft: true, subject: 'Idea' });
  const [r] = (await ana.api('/me/messages').filter("subject eq 'Report 1'").get()).value;
  const flagged = await ana
    .api(`/me/messages/${r.id}`)
    .header('If-Match', r['@odata.etag'])
    .patch({ isRead: false, flag: { flagStatus: 'flagged' } });
  expect(flagged.flag).toEqual({ flagStatus: 'flagged' });
  await expect(ana.api(`/me/messages/${r.id}`).header('If-Match', r['@odata.etag']).patch({ isRead: true })).rejects.toMatchObject({
    statusCode: 412,
    code: 'ErrorIrresolvableConflict',
  });
  await expect(ana.api(`/me/messages/${r.id}`).patch({ subject: 'Rewritten' })).rejects.toMatchObject({ statusCode: 400 });
});
