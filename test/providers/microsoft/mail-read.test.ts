import { IMMUTABLE_IDS } from '../../../src/providers/microsoft/mail-context';
import { DEMO } from '../../helpers/microsoft';
import { type MailWorld, startMailWorld } from '../../helpers/outlook-mail';

/** Reading Outlook mail through the mail port: one message, marking it read, a conversation, the account's address. */

let w: MailWorld;
const ids: Record<string, string> = {};
let conversation = '';

beforeAll(async () => {
  w = await startMailWorld();
  const token = await w.token(DEMO.ana);
  const res = await fetch(`${w.graphUrl}/me/messages?$top=100&$select=id,subject,receivedDateTime,conversationId`, {
    headers: { authorization: `Bearer ${token}`, Prefer: IMMUTABLE_IDS },
  });
  for (const m of ((await res.json()) as { value: { id: string; subject: string; receivedDateTime: string; conversationId: string }[] }).value) {
    ids[m.subject === 'RE: Q3 plan' ? `RE: Q3 plan@${m.receivedDateTime}` : m.subject] = m.id;
    if (m.subject === 'Q3 plan') conversation = m.conversationId;
  }
});
afterAll(() => w.close());
afterEach(async () => {
  await w.control('DELETE', '/faults');
});

const bensReply = () => ids['RE: Q3 plan@2026-03-07T17:00:00Z']!;

describe('getMessage', () => {
  it('when a message with a PDF is read, then its fields, its attachment (no bytes) and its unread state come back', async () => {
    const got = await w.mail(DEMO.ana).getMessage(bensReply());
    expect(got).toEqual({
      ok: true,
      value: {
        message_id: bensReply(),
        thread_id: conversation,
        from: 'ben@northwind.example',
        to: ['ana@northwind.example'],
        subject: 'RE: Q3 plan',
        date: '2026-03-07T17:00:00Z',
        attachments: [{ filename: 'q3-targets.pdf', size: expect.any(Number), mime_type: 'application/pdf', attachment_id: expect.any(String) }],
        unread: true,
        body: expect.stringContaining('Draft numbers attached.'),
      },
    });
  });

  it('when an HTML-only message is read, then its body is text laid out from the HTML, never the HTML', async () => {
    const got = await w.mail(DEMO.ana).getMessage(ids['Offsite logistics']!);
    if (!got.ok) throw new Error(got.error.message);
    expect(got.value.body).toMatch(/FRIDAY OFFSITE|Friday offsite/);
    expect(got.value.body).toContain('Bring laptops');
    expect(got.value.body).not.toMatch(/<\/?[a-z]/);
    expect(got.value).not.toHaveProperty('body_degraded');
  });

  it('when an id is unknown, malformed or hostile, then RESOURCE_NOT_FOUND — the hostile ones without asking Graph', async () => {
    const unknown = await w.mail(DEMO.ana).getMessage(`AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A${'x'.repeat(60)}AAA=`);
    expect(unknown.ok ? 'ok' : unknown.error.code).toBe('RESOURCE_NOT_FOUND');
    const malformed = await w.mail(DEMO.ana).getMessage('short');
    expect(malformed.ok ? 'ok' : malformed.error.code).toBe('RESOURCE_NOT_FOUND');
    w.attempts.count = 0;
    for (const hostile of ['../../me/sendMail', 'a b', 'x?$select=body', 'id#frag', '']) {
      const got = await w.mail(DEMO.ana).getMessage(hostile);
      expect({ hostile, code: got.ok ? 'ok' : got.error.code }).toEqual({ hostile, code: 'RESOURCE_NOT_FOUND' });
    }
    expect(w.attempts.count).toBe(0);
  });
});

describe('markRead', () => {
  it('when a message is marked read twice, then it is read and the second call is as fine as the first', async () => {
    const mail = w.mail(DEMO.ana);
    expect(await mail.markRead(ids['Scheduled maintenance this weekend']!)).toEqual({ ok: true, value: undefined });
    expect(await mail.markRead(ids['Scheduled maintenance this weekend']!)).toEqual({ ok: true, value: undefined });
    const got = await mail.getMessage(ids['Scheduled maintenance this weekend']!);
    expect(got.ok && got.value.unread).toBe(false);
    const unknown = await mail.markRead(`AAkALgAAAAAAHYQDEapmEc2byACqAC-EWg0A${'y'.repeat(60)}AAA=`);
    expect(unknown.ok ? 'ok' : unknown.error.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('thread, ownAddress, prepareReply', () => {
  it('when a conversation is read, then every message in any folder comes oldest first, the account’s own marked fromAccount', async () => {
    const got = await w.mail(DEMO.ana).thread(conversation);
    if (!got.ok) throw new Error(got.error.message);
    expect(got.value.map((m) => [m.from, m.date, m.fromAccount])).toEqual([
      ['ben@northwind.example', '2026-03-06T09:00:00Z', false],
      ['ana@northwind.example', '2026-03-06T11:00:00Z', true],
      ['ben@northwind.example', '2026-03-07T17:00:00Z', false],
    ]);
    const none = await w.mail(DEMO.ana).thread(`AAQkAG${'z'.repeat(60)}=`);
    expect(none.ok ? 'ok' : none.error.code).toBe('RESOURCE_NOT_FOUND');
    const hostile = await w.mail(DEMO.ana).thread("x' or conversationId ne 'y");
    expect(hostile.ok ? 'ok' : hostile.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('when the account’s address is asked twice through one cache, then Graph is asked once; mail, else the UPN', async () => {
    const mail = w.mail(DEMO.ana);
    w.attempts.count = 0;
    expect(await mail.ownAddress()).toEqual({ ok: true, value: 'ana@northwind.example' });
    expect(await mail.ownAddress()).toEqual({ ok: true, value: 'ana@northwind.example' });
    expect(w.attempts.count).toBe(1);
  });

  it('when a reply is prepared, then the original’s subject and conversation come back', async () => {
    const got = await w.mail(DEMO.ana).prepareReply(ids['Q3 plan']!);
    expect(got).toEqual({ ok: true, value: { messageId: ids['Q3 plan'], threadId: conversation, subject: 'Q3 plan', vendor: expect.anything() } });
    const gone = await w.mail(DEMO.ana).prepareReply('nope');
    expect(gone.ok ? 'ok' : gone.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('when Graph throttles a read, then RATE_LIMITED with its Retry-After', async () => {
    await w.control('POST', '/faults', { operation: 'messages.get', preset: 'mailboxConcurrency', retry_after_s: 3, times: 1 });
    const got = await w.mail(DEMO.ana).getMessage(ids['Q3 plan']!);
    expect(got.ok ? 'ok' : { code: got.error.code, retryAfterS: got.error.retryAfterS }).toEqual({ code: 'RATE_LIMITED', retryAfterS: 3 });
  });
});
