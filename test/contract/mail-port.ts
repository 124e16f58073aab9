import { type FaultKind, type ProviderFactory, type ProviderWorld, contractCase } from './provider-world';
import { ERROR_FAMILIES } from './calendar-port';

/**
 * The mail port's contract (src/core/mail.ts) against the provider's sandbox: search pages walk every match once,
 * newest first; a send whose answer is lost is found by its marker and never made twice; unknown ids are
 * RESOURCE_NOT_FOUND; each family of vendor failure becomes its contract code.
 */

const SENDER = 'john@example.com';
const update = (i: number) => ({
  from: SENDER,
  subject: `Update ${i}`,
  text: `Update number ${i}`,
  date: `2027-01-${String(10 + i).padStart(2, '0')}T09:00:00Z`,
});

export function mailPortContract(provider: ProviderFactory): void {
  describe(`the mail port on ${provider.name}`, () => {
    let world: ProviderWorld;
    beforeAll(async () => {
      world = await provider.start();
    });
    afterAll(() => world?.close());
    beforeEach(() => world.reset());

    it('when matches span pages, then the page tokens walk them newest first without repeats, and the last page has none', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC', messages: [1, 2, 3, 4, 5].map(update) });
      const mail = world.mail(ana);
      const subjects: string[] = [];
      let pageToken: string | undefined;
      let pages = 0;
      do {
        const page = await mail.search(`from:${SENDER}`, { maxResults: 2, includeBody: false, ...(pageToken ? { pageToken } : {}) });
        if (!page.ok) throw new Error(page.error.message);
        subjects.push(...page.value.messages.map((m) => m.subject));
        pageToken = page.value.nextPageToken ?? undefined;
        pages++;
      } while (pageToken && pages < 10);
      expect(subjects).toEqual(['Update 5', 'Update 4', 'Update 3', 'Update 2', 'Update 1']);
      expect(pages).toBe(3);
    });

    contractCase(
      provider,
      'send-once',
      'when a send is answered with a failure after the vendor sent it, then findSent finds it by its marker and one copy exists',
      async () => {
        const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
        const mail = world.mail(ana);
        const since = Date.now();
        const marker = 'c0ffee00c0ffee00c0ffee00c0ffee00';
        await world.fault('mail.send', 'server_error', { applied: true });
        const outgoing = { to: [{ address: 'ben@example.com' }], cc: [], bcc: [], subject: 'Once only', body: 'Hello', bodyType: 'text' as const };
        const sent = await mail.send(outgoing, marker, null);
        // The port's promise: a failure after which the mail may have gone out says so (an adapter that verified
        // the send itself may answer it instead).
        if (!sent.ok) expect(sent.error.details?.outcome === 'unknown' || (sent.error.details?.upstream_status as number) >= 500).toBe(true);
        expect(mail.canVerifySends()).toBe(true);
        const found = await world.mail(ana).findSent([marker], since, 50);
        expect(found.ok && found.value.kind).toBe('found');
        const copies = await world.mail(ana).search('in:sent subject:"Once only"', { maxResults: 10, includeBody: false });
        expect(copies.ok && copies.value.messages).toHaveLength(1);
        // A marker nobody sent is never found. For an attempt begun moments ago a vendor whose sent mail shows a
        // message only once it arrives cannot yet tell absent from on-its-way, and says so (`pending`, with when
        // to look again) — never `absent` before it is true; once that time has passed, it is absent everywhere.
        const unused = '0000000000000000ffffffffffffffff';
        const fresh = await world.mail(ana).findSent([unused], Date.now(), 50);
        expect(fresh.ok && (fresh.value.kind === 'absent' || (fresh.value.kind === 'pending' && fresh.value.retryAfterS > 0))).toBe(true);
        expect(await world.mail(ana).findSent([unused], since - 10 * 60_000, 50)).toEqual({ ok: true, value: { kind: 'absent' } });
      },
    );

    it('when a send has just gone out, then findSent finds it or says it is still on its way, never absent', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
      const since = Date.now();
      const marker = 'feed0000feed0000feed0000feed0000';
      const outgoing = { to: [{ address: 'ben@example.com' }], cc: [], bcc: [], subject: 'Just sent', body: 'Hello', bodyType: 'text' as const };
      const sent = await world.mail(ana).send(outgoing, marker, null);
      if (!sent.ok) throw new Error(sent.error.message);
      const found = await world.mail(ana).findSent([marker], since, 50);
      expect(found.ok && found.value.kind).not.toBe('absent');
      if (found.ok && found.value.kind === 'found') expect(found.value.id).toBe(sent.value.id);
      else expect(found).toEqual({ ok: true, value: { kind: 'pending', retryAfterS: expect.any(Number) } });
    });

    it("when a reply is sent, then it stays in the conversation of the message it answers, as the account's own", async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC', messages: [update(1)] });
      const page = await world.mail(ana).search('subject:"Update 1"', { maxResults: 1, includeBody: false });
      const original = page.ok ? page.value.messages[0] : undefined;
      if (!original) throw new Error('seeded message not found');
      const target = await world.mail(ana).prepareReply(original.message_id);
      if (!target.ok) throw new Error(target.error.message);
      expect(target.value).toMatchObject({ messageId: original.message_id, threadId: original.thread_id, subject: 'Update 1' });
      const since = Date.now();
      const marker = 'beef0000beef0000beef0000beef0000';
      const reply = { to: [{ address: SENDER }], cc: [], bcc: [], subject: 'Re: Update 1', body: 'Thanks', bodyType: 'text' as const };
      const sent = await world.mail(ana).send(reply, marker, target.value);
      if (!sent.ok) throw new Error(sent.error.message);
      expect(sent.value.threadId).toBe(original.thread_id);
      // Sent mail may show it only once it arrives (Outlook): look until it does, within a few seconds.
      let found = await world.mail(ana).findSent([marker], since, 50);
      for (let i = 0; i < 20 && found.ok && found.value.kind === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        found = await world.mail(ana).findSent([marker], since, 50);
      }
      expect(found).toEqual({ ok: true, value: { kind: 'found', id: sent.value.id, threadId: original.thread_id } });
      // Both, in any order (the seeded message is dated in 2027, so "oldest first" puts the reply first).
      const thread = await world.mail(ana).thread(original.thread_id);
      const members = thread.ok ? thread.value.map((m) => [m.message_id, m.fromAccount]) : [];
      expect(members).toHaveLength(2);
      expect(members).toEqual(
        expect.arrayContaining([
          [original.message_id, false],
          [sent.value.id, true],
        ]),
      );
    });

    it('when a message or thread does not exist, then the port answers RESOURCE_NOT_FOUND', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
      const mail = world.mail(ana);
      for (const answer of [await mail.getMessage('18c0ffee00000000'), await mail.thread('18c0ffee00000000'), await mail.markRead('18c0ffee00000000')]) {
        expect(answer.ok || answer.error.code).toBe('RESOURCE_NOT_FOUND');
      }
    });

    it('when a message is read, then its body, its unread state and its thread come back, and marking it read is safe to repeat', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC', messages: [update(1)] });
      const mail = world.mail(ana);
      const page = await mail.search('subject:"Update 1"', { maxResults: 1, includeBody: false });
      if (!page.ok || !page.value.messages[0]) throw new Error('seeded message not found');
      const id = page.value.messages[0].message_id;
      const got = await mail.getMessage(id);
      expect(got.ok && { body: got.value.body, from: got.value.from, unread: got.value.unread }).toEqual({
        body: 'Update number 1',
        from: SENDER,
        unread: true,
      });
      expect(await mail.markRead(id)).toEqual({ ok: true, value: undefined });
      expect(await mail.markRead(id)).toEqual({ ok: true, value: undefined });
      const again = await world.mail(ana).getMessage(id);
      expect(again.ok && again.value.unread).toBe(false);
      const thread = await mail.thread(page.value.messages[0].thread_id);
      expect(thread.ok && thread.value.map((m) => [m.from, m.fromAccount])).toEqual([[SENDER, false]]);
    });

    it.each(Object.entries(ERROR_FAMILIES))('when the vendor answers a %s failure, then the port answers its contract code', async (kind, expected) => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC', messages: [update(1)] });
      await world.fault('mail.search', kind as FaultKind);
      const page = await world.mail(ana).search(`from:${SENDER}`, { maxResults: 5, includeBody: false });
      expect(page.ok || { code: page.error.code, retryable: page.error.retryable }).toEqual(expected);
    });
  });
}
