import { randomBytes } from 'node:crypto';
import type { MailPort, OutgoingMail } from '../../../src/core/mail';
import { IMMUTABLE_IDS } from '../../../src/providers/microsoft/mail-context';
import { SEND_ID_HEADER, SEND_ID_PROPERTY } from '../../../src/providers/microsoft/mail-send';
import { DEMO } from '../../helpers/microsoft';
import { type AdapterOptions, BEN, CHEN, type MailWorld, startMailWorld } from '../../helpers/outlook-mail';

/**
 * Sending through the Outlook adapter at most once, whatever fails: Graph's 5xx after (or before) it sent,
 * dropped connections, a crash between the draft and the send, Sent Items arriving late. Each test counts what
 * Ben received. The steps a tool takes on an uncertain answer (findSent, then a retry with the same marker in a
 * new call) are taken here as the vendor-neutral send logic takes them.
 */

let w: MailWorld;
let hubNow = Date.now();
const adapter = (upn: string = DEMO.ana, options: AdapterOptions = {}): MailPort => w.mail(upn, { now: () => hubNow, ...options });
const marker = () => randomBytes(16).toString('hex');
const mailTo = (subject: string, extra: Partial<OutgoingMail> = {}): OutgoingMail => ({
  to: [BEN],
  cc: [],
  bcc: [],
  subject,
  body: `About ${subject}`,
  bodyType: 'text',
  ...extra,
});

async function graph(upn: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${w.graphUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${await w.token(upn)}`, Prefer: IMMUTABLE_IDS, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return { status: res.status, body: res.status === 204 || res.status === 202 ? undefined : ((await res.json()) as any) };
}
const received = async (subject: string) =>
  (await graph(DEMO.ben, `/me/mailFolders/inbox/messages?$filter=${encodeURIComponent(`subject eq '${subject}'`)}&$select=id,subject,internetMessageHeaders`))
    .body.value as any[];
const withMarker = async (upn: string, m: string) =>
  (
    await graph(
      upn,
      `/me/messages?$select=id,isDraft,parentFolderId&$filter=${encodeURIComponent(`singleValueExtendedProperties/Any(ep: ep/id eq '${SEND_ID_PROPERTY}' and ep/value eq '${m}')`)}`,
    )
  ).body.value as any[];
const arrive = async (seconds = 3) => {
  await w.control('POST', '/clock/advance', { seconds });
  hubNow += seconds * 1000;
};

beforeAll(async () => {
  w = await startMailWorld();
});
afterAll(() => w.close());
beforeEach(async () => {
  hubNow = Date.now();
  await w.control('PUT', '/consistency', { sent_items_delay_ms: 2000, delivery_delay_ms: 0 });
});
afterEach(async () => {
  await w.control('DELETE', '/faults');
});

describe('a send that goes well', () => {
  it('when Ana sends, then Ben gets one message carrying the X-Hub-Send-Id header, and findSent finds the copy by its marker once it arrives', async () => {
    const m = marker();
    const since = hubNow;
    const sent = await adapter().send(mailTo('Pricing'), m, null);
    if (!sent.ok) throw new Error(sent.error.message);
    const inBens = await received('Pricing');
    expect(inBens).toHaveLength(1);
    expect(inBens[0].internetMessageHeaders).toEqual(expect.arrayContaining([{ name: SEND_ID_HEADER, value: m }]));
    // On its way to Sent Items: nothing to find yet, and the lookup will not call that "absent".
    const early = await adapter().findSent([m], since, 50);
    expect(early).toEqual({ ok: true, value: { kind: 'pending', retryAfterS: expect.any(Number) } });
    await arrive();
    expect(await adapter().findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'found', id: sent.value.id, threadId: sent.value.threadId } });
    expect(await adapter().findSent([marker()], since - 120_000, 50)).toEqual({ ok: true, value: { kind: 'absent' } });
  });

  it('when Ana replies to a message, then the reply stays in its conversation; when Ben answers it, thread() shows his reply as not hers', async () => {
    const [bensCopy] = await received('Pricing');
    const bens = adapter(DEMO.ben);
    const target = await bens.prepareReply(bensCopy.id);
    if (!target.ok) throw new Error(target.error.message);
    const reply = await bens.send(mailTo(`Re: ${target.value.subject}`, { to: [{ address: DEMO.ana, name: 'Ana Lima' }] }), marker(), target.value);
    if (!reply.ok) throw new Error(reply.error.message);
    expect(reply.value.threadId).toBe(target.value.threadId);
    await arrive();
    const anas = adapter();
    const found = await anas.search('subject:pricing', { maxResults: 10, includeBody: false });
    if (!found.ok) throw new Error(found.error.message);
    const conversation = found.value.messages[0]!.thread_id;
    const thread = await anas.thread(conversation);
    if (!thread.ok) throw new Error(thread.error.message);
    expect(thread.value.map((t) => [t.from, t.fromAccount])).toEqual([
      ['ana@northwind.example', true],
      ['ben@northwind.example', false],
    ]);
  });

  it('when a reply targets a message that is gone, then RESOURCE_NOT_FOUND and nothing is drafted', async () => {
    const sent = await adapter().send(mailTo('Ghost'), marker(), {
      messageId: `AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A${'q'.repeat(60)}AAA=`,
      threadId: 'x',
      subject: 'x',
      vendor: null,
    });
    expect(sent.ok ? 'ok' : sent.error.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('a send Graph does not confirm', () => {
  it('when Graph sends, then answers 503, then the adapter finds the sent copy and answers with it — one message', async () => {
    await w.control('PUT', '/consistency', { sent_items_delay_ms: 0, delivery_delay_ms: 0 });
    await w.control('POST', '/faults', { operation: 'messages.send', preset: 'serviceUnavailable', apply_first: true, times: 1 });
    const sent = await adapter().send(mailTo('After a 503'), marker(), null);
    expect(sent.ok).toBe(true);
    expect(await received('After a 503')).toHaveLength(1);
  });

  it('when Graph sends, the connection drops, and the copy is slow to reach Sent Items, then outcome unknown; the next look finds it — one message', async () => {
    await w.control('PUT', '/consistency', { sent_items_delay_ms: 30_000, delivery_delay_ms: 0 });
    await w.control('POST', '/faults', { operation: 'messages.send', drop: true, apply_first: true, times: 1 });
    const m = marker();
    const since = hubNow;
    const sent = await adapter().send(mailTo('Dropped after'), m, null);
    expect(sent.ok ? 'ok' : sent.error.details).toMatchObject({ outcome: 'unknown', verification: 'in_transit' });
    const look = await adapter().findSent([m], since, 50);
    expect(look).toEqual({ ok: true, value: { kind: 'pending', retryAfterS: expect.any(Number) } });
    await arrive(31);
    const again = await adapter().findSent([m], since, 50);
    expect(again.ok && again.value.kind).toBe('found');
    expect(await received('Dropped after')).toHaveLength(1);
  });

  it('when Graph answers 500 without sending, then outcome unknown (a draft may be waiting for transport); after the minute the retry sends that draft — one message, one draft', async () => {
    await w.control('POST', '/faults', { operation: 'messages.send', preset: 'internalError', times: 1 });
    const m = marker();
    const since = hubNow;
    const first = await adapter().send(mailTo('After a 500'), m, null);
    expect(first.ok ? 'ok' : first.error.details).toMatchObject({ upstream_status: 500, outcome: 'unknown', verification: 'in_transit' });
    const drafts = await withMarker(DEMO.ana, m);
    expect(drafts).toEqual([expect.objectContaining({ isDraft: true })]);
    // The retry, in a new call: look first — within the minute a draft may be one waiting for transport — then send.
    expect(await adapter().findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'pending', retryAfterS: expect.any(Number) } });
    await arrive(61);
    const retry = adapter();
    expect(await retry.findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'absent' } });
    const second = await retry.send(mailTo('After a 500'), m, null);
    expect(second.ok && second.value.id).toBe(drafts[0].id);
    await arrive();
    expect(await received('After a 500')).toHaveLength(1);
    expect(await withMarker(DEMO.ana, m)).toEqual([expect.objectContaining({ id: drafts[0].id, isDraft: false })]);
  });

  it('when the connection drops before Graph read the send, then outcome unknown; within the minute a retry waits, after it the retry sends that draft once', async () => {
    await w.control('POST', '/faults', { operation: 'messages.send', drop: true, times: 1 });
    const m = marker();
    const since = hubNow;
    const first = await adapter().send(mailTo('Dropped before'), m, null);
    expect(first.ok ? 'ok' : first.error.details).toMatchObject({ outcome: 'unknown', verification: 'in_transit' });
    // Still a draft, as a submitted one waiting for transport would be: not proof it was never sent.
    expect(await adapter().findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'pending', retryAfterS: expect.any(Number) } });
    await arrive(61);
    const retry = adapter();
    expect(await retry.findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'absent' } });
    const drafts = await withMarker(DEMO.ana, m);
    const second = await retry.send(mailTo('Dropped before'), m, null);
    expect(second.ok && second.value.id).toBe(drafts[0].id);
    await arrive();
    expect(await received('Dropped before')).toHaveLength(1);
    expect(await withMarker(DEMO.ana, m)).toEqual([expect.objectContaining({ isDraft: false })]);
  });

  it('when Graph answers 504 to a send it took and transport is slow, then outcome unknown and the draft is never sent again; it arrives once', async () => {
    await w.control('PUT', '/consistency', { sent_items_delay_ms: 30_000, delivery_delay_ms: 0 });
    await w.control('POST', '/faults', { operation: 'messages.send', preset: 'gatewayTimeout', apply_first: true, times: 1 });
    const m = marker();
    const since = hubNow;
    const first = await adapter().send(mailTo('After a 504'), m, null);
    expect(first.ok ? 'ok' : first.error.details).toMatchObject({ upstream_status: 504, outcome: 'unknown', verification: 'in_transit' });
    // The draft still shows in Drafts; a retry within the minute looks and is told to wait, never sends it again
    // (the sandbox, like nothing Microsoft documents against, would deliver a re-sent draft twice).
    expect(await withMarker(DEMO.ana, m)).toEqual([expect.objectContaining({ isDraft: true })]);
    const retry = adapter();
    expect(await retry.findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'pending', retryAfterS: expect.any(Number) } });
    await arrive(31);
    expect((await adapter().findSent([m], since, 50)).ok && 'found').toBe('found');
    expect(await received('After a 504')).toHaveLength(1);
  });

  it('when writing the draft fails after Graph wrote it, then not_sent (nothing can have gone out), and a retry that looks first sends that draft', async () => {
    await w.control('POST', '/faults', { operation: 'messages.create', preset: 'gatewayTimeout', apply_first: true, times: 1 });
    const m = marker();
    const first = await adapter().send(mailTo('Draft 504'), m, null);
    expect(first.ok ? 'ok' : first.error.details).toEqual({ reason: 'UnknownError', outcome: 'not_sent' });
    const since = hubNow;
    await arrive(61);
    const retry = adapter();
    expect(await retry.findSent([m], since, 50)).toEqual({ ok: true, value: { kind: 'absent' } });
    expect((await retry.send(mailTo('Draft 504'), m, null)).ok).toBe(true);
    await arrive();
    expect(await withMarker(DEMO.ana, m)).toEqual([expect.objectContaining({ isDraft: false })]);
    expect(await received('Draft 504')).toHaveLength(1);
  });

  it('when the Hub died between the draft and the send, then the retry sends the draft it left — never a second one', async () => {
    const m = marker();
    const left = await graph(DEMO.ana, '/me/messages', {
      method: 'POST',
      body: JSON.stringify({
        subject: 'Crashed between',
        body: { contentType: 'Text', content: 'x' },
        toRecipients: [{ emailAddress: { address: DEMO.ben } }],
        internetMessageHeaders: [{ name: SEND_ID_HEADER, value: m }],
        singleValueExtendedProperties: [{ id: SEND_ID_PROPERTY, value: m }],
      }),
    });
    expect(left.status).toBe(201);
    const retry = adapter();
    expect(await retry.findSent([m], hubNow - 60_000, 50)).toEqual({ ok: true, value: { kind: 'absent' } });
    const sent = await retry.send(mailTo('Crashed between'), m, null);
    expect(sent.ok && sent.value.id).toBe(left.body.id);
    expect(await received('Crashed between')).toHaveLength(1);
  });
});

describe('refusals', () => {
  it('when Graph throttles the send, then RATE_LIMITED with Retry-After and nothing was sent', async () => {
    await w.control('POST', '/faults', { operation: 'messages.send', preset: 'mailboxConcurrency', retry_after_s: 4, times: 1 });
    const sent = await adapter().send(mailTo('Throttled'), marker(), null);
    expect(sent.ok ? 'ok' : { code: sent.error.code, retryAfterS: sent.error.retryAfterS }).toEqual({ code: 'RATE_LIMITED', retryAfterS: 4 });
    expect(await received('Throttled')).toHaveLength(0);
  });

  it('when a message has more recipients than Exchange accepts, then RATE_LIMITED as the classifier maps ErrorSubmissionQuotaExceeded, not retryable', async () => {
    const many = Array.from({ length: 501 }, (_, i) => ({ address: `r${i}@elsewhere.example` }));
    const sent = await adapter().send(mailTo('Blast', { to: many }), marker(), null);
    expect(sent.ok ? 'ok' : { code: sent.error.code, retryable: sent.error.retryable, reason: sent.error.details?.reason }).toEqual({
      code: 'RATE_LIMITED',
      retryable: false,
      reason: 'ErrorSubmissionQuotaExceeded',
    });
  });

  it('when the grant cannot draft, then INTEGRATION_PERMISSION_DENIED before any request; Mail.ReadBasic cannot verify sends', async () => {
    w.attempts.count = 0;
    const sendOnly = adapter(DEMO.ana, { scopes: ['User.Read', 'Mail.Send', 'Mail.ReadBasic'] });
    const sent = await sendOnly.send(mailTo('Nope', { cc: [CHEN] }), marker(), null);
    expect(sent.ok ? 'ok' : sent.error.code).toBe('INTEGRATION_PERMISSION_DENIED');
    expect(w.attempts.count).toBe(0);
    expect(sendOnly.canVerifySends()).toBe(false);
    expect(await sendOnly.findSent([marker()], hubNow, 50)).toEqual({ ok: true, value: { kind: 'unverifiable', reason: 'no_read_scope' } });
    expect(adapter(DEMO.ana, { scopes: ['Mail.Read', 'Mail.Send'] }).canVerifySends()).toBe(true);
  });
});
