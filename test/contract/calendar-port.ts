import { IANAZone } from 'luxon';
import type { ErrorCode } from '../../src/core/errors';
import { type FaultKind, type ProviderFactory, type ProviderWorld, contractCase } from './provider-world';

/**
 * The calendar port's contract (src/core/calendar.ts), as behaviour every provider must show against its
 * sandbox: a create repeated under one key makes one event, a calendar that cannot be read is never free, times
 * keep their instants across a daylight-saving change, and each family of vendor failure becomes its contract code.
 */

const t = (iso: string) => Date.parse(iso);

/** A zone's offset changes from `from` to `to`: [instant, new offset], found a fortnight at a time, then to the minute. */
function transitions(zone: IANAZone, from: number, to: number): [number, number][] {
  const STEP = 14 * 86_400_000;
  const out: [number, number][] = [];
  let before = zone.offset(from);
  for (let at = from; at < to; at += STEP) {
    const end = Math.min(at + STEP, to);
    const after = zone.offset(end);
    if (after === before) continue;
    let lo = at;
    let hi = end;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (zone.offset(mid) === before) lo = mid;
      else hi = mid;
    }
    out.push([hi, zone.offset(hi)]);
    before = after;
  }
  return out;
}

/**
 * Whether two IANA zones keep the same UTC offset at every instant from 2010 to 2040: the same offset at the start
 * and the same changes, each to the minute (two changes within a fortnight would escape; no zone makes them).
 */
function sameRules(a: string, b: string): boolean {
  const za = IANAZone.create(a);
  const zb = IANAZone.create(b);
  if (!za.isValid || !zb.isValid) return false;
  const from = Date.UTC(2010, 0, 1);
  const to = Date.UTC(2040, 0, 1);
  return za.offset(from) === zb.offset(from) && JSON.stringify(transitions(za, from, to)) === JSON.stringify(transitions(zb, from, to));
}
/** A key as the Hub derives them: 32 base32hex characters. */
const key = () => Array.from({ length: 32 }, () => '0123456789abcdefghijklmnopqrstuv'[Math.floor(Math.random() * 32)]).join('');

export const ERROR_FAMILIES: Record<FaultKind, { code: ErrorCode; retryable: boolean }> = {
  rate_limited: { code: 'RATE_LIMITED', retryable: true },
  server_error: { code: 'EXTERNAL_API_ERROR', retryable: true },
  token_rejected: { code: 'INTEGRATION_EXPIRED', retryable: false },
  permission_denied: { code: 'INTEGRATION_PERMISSION_DENIED', retryable: false },
};

export function calendarPortContract(provider: ProviderFactory): void {
  describe(`the calendar port on ${provider.name}`, () => {
    let world: ProviderWorld;
    beforeAll(async () => {
      world = await provider.start();
    });
    afterAll(() => world?.close());
    beforeEach(() => world.reset());

    const draft = { title: 'Contract review', start: '2027-02-10T10:00:00+01:00', end: '2027-02-10T11:00:00+01:00' };

    contractCase(provider, 'create-once', 'when a create is repeated with one key, then one event exists and the repeat answers it as replayed', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'Europe/Madrid' });
      const calendar = world.calendar(ana);
      const dedupKey = key();
      const first = await calendar.createEvent('primary', draft, { dedupKey });
      const again = await world.calendar(ana).createEvent('primary', draft, { dedupKey });
      expect(first.ok && again.ok).toBe(true);
      if (!first.ok || !again.ok) return;
      expect(first.value.replayed).toBe(false);
      expect(again.value).toMatchObject({ replayed: true, event: { id: first.value.event.id } });
      // Read back at once, as an agent would next: the account's own lists show the one event (the adapter
      // absorbs its vendor's lag after its own create), so its time is never offered as free.
      const day = { start: t('2027-02-10T00:00:00Z'), end: t('2027-02-11T00:00:00Z') };
      const busy = await calendar.freeBusy(['primary'], day, 'Europe/Madrid');
      expect(busy.ok && busy.value.get('primary')).toEqual({ readable: true, busy: [{ start: t('2027-02-10T09:00:00Z'), end: t('2027-02-10T10:00:00Z') }] });
      const agenda = await calendar.agenda(day);
      expect(agenda.ok && agenda.value.events.map((e) => [e.start, e.end])).toEqual([
        [{ instant: t('2027-02-10T09:00:00Z') }, { instant: t('2027-02-10T10:00:00Z') }],
      ]);
    });

    it('when a create is answered with a failure after the vendor made the event, then the repeat under the same key finds it', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'Europe/Madrid' });
      const dedupKey = key();
      await world.fault('event.create', 'server_error', { applied: true });
      // The adapter may recover the event itself (and answer it), or answer the failure: either way, no second event.
      await world.calendar(ana).createEvent('primary', draft, { dedupKey });
      const again = await world.calendar(ana).createEvent('primary', draft, { dedupKey });
      expect(again.ok && again.value.replayed).toBe(true);
      const agenda = await world.calendar(ana).agenda({ start: t('2027-02-10T00:00:00Z'), end: t('2027-02-11T00:00:00Z') });
      expect(agenda.ok && agenda.value.events).toHaveLength(1);
    });

    contractCase(
      provider,
      'unreadable-never-free',
      'when a calendar cannot be read (not shared, no such person), then it is unreadable, never free',
      async () => {
        const stranger = await world.account({
          name: 'stranger',
          timeZone: 'UTC',
          events: [{ title: 'x', start: '2027-02-10T09:00:00Z', end: '2027-02-10T10:00:00Z' }],
        });
        const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
        const nobody = world.nobody();
        const busy = await world.calendar(ana).freeBusy([stranger, nobody], { start: t('2027-02-10T00:00:00Z'), end: t('2027-02-11T00:00:00Z') }, 'UTC');
        expect(busy.ok).toBe(true);
        if (!busy.ok) return;
        expect(busy.value.get(stranger)).toMatchObject({ readable: false });
        expect(busy.value.get(nobody)).toMatchObject({ readable: false });
      },
    );

    it('when a colleague shares free/busy, then their busy time comes back merged and clipped to the range', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
      const ben = await world.account({
        name: 'ben',
        timeZone: 'UTC',
        sharesFreeBusyWith: [ana],
        events: [
          { title: 'a', start: '2027-02-09T23:00:00Z', end: '2027-02-10T01:00:00Z' },
          { title: 'b', start: '2027-02-10T09:00:00Z', end: '2027-02-10T10:00:00Z' },
          { title: 'c', start: '2027-02-10T09:30:00Z', end: '2027-02-10T11:00:00Z' },
        ],
      });
      const busy = await world.calendar(ana).freeBusy([ben], { start: t('2027-02-10T00:00:00Z'), end: t('2027-02-11T00:00:00Z') }, 'UTC');
      expect(busy.ok && busy.value.get(ben)).toEqual({
        readable: true,
        busy: [
          { start: t('2027-02-10T00:00:00Z'), end: t('2027-02-10T01:00:00Z') },
          { start: t('2027-02-10T09:00:00Z'), end: t('2027-02-10T11:00:00Z') },
        ],
      });
    });

    it('when free/busy spans longer than one vendor request takes, then the pieces come back joined, a meeting across a cut whole', async () => {
      // 100 days: past Google's 90 × 24 h and Outlook's 61 × 24 h a request. The meetings sit at the start, across
      // day 61 (Outlook's cut), across day 90 (Google's) and at the end.
      const ana = await world.account({
        name: 'ana',
        timeZone: 'UTC',
        events: [
          { title: 'first', start: '2027-01-01T10:00:00Z', end: '2027-01-01T11:00:00Z' },
          { title: 'across 61', start: '2027-03-02T23:00:00Z', end: '2027-03-03T01:00:00Z' },
          { title: 'across 90', start: '2027-03-31T23:00:00Z', end: '2027-04-01T01:00:00Z' },
          { title: 'last', start: '2027-04-10T22:00:00Z', end: '2027-04-10T23:00:00Z' },
        ],
      });
      const busy = await world.calendar(ana).freeBusy(['primary'], { start: t('2027-01-01T00:00:00Z'), end: t('2027-04-11T00:00:00Z') }, 'UTC');
      expect(busy.ok && busy.value.get('primary')).toEqual({
        readable: true,
        busy: [
          { start: t('2027-01-01T10:00:00Z'), end: t('2027-01-01T11:00:00Z') },
          { start: t('2027-03-02T23:00:00Z'), end: t('2027-03-03T01:00:00Z') },
          { start: t('2027-03-31T23:00:00Z'), end: t('2027-04-01T01:00:00Z') },
          { start: t('2027-04-10T22:00:00Z'), end: t('2027-04-10T23:00:00Z') },
        ],
      });
    });

    contractCase(
      provider,
      'dst',
      "when events lie on both sides of a daylight-saving change, then each keeps its instant and the zone is the account's",
      async () => {
        // Europe/Madrid moves from +01:00 to +02:00 on 28 March 2027.
        const ana = await world.account({
          name: 'ana',
          timeZone: 'Europe/Madrid',
          events: [
            { title: 'before', start: '2027-03-27T10:00:00+01:00', end: '2027-03-27T11:00:00+01:00' },
            { title: 'after', start: '2027-03-29T10:00:00+02:00', end: '2027-03-29T11:00:00+02:00' },
          ],
        });
        const calendar = world.calendar(ana);
        // The account's zone, by its rules: a vendor that keeps its own zone names answers an IANA zone with the
        // same offsets at every instant (Outlook's "Romance Standard Time" is Madrid's, Paris's and Brussels's).
        const zone = await calendar.timeZone();
        expect(zone.ok && sameRules(zone.value, 'Europe/Madrid')).toBe(true);
        expect(sameRules('Europe/Lisbon', 'Europe/Madrid')).toBe(false); // an hour apart: the comparison can fail
        const range = { start: t('2027-03-26T00:00:00Z'), end: t('2027-03-31T00:00:00Z') };
        const busy = await calendar.freeBusy(['primary'], range, 'Europe/Madrid');
        expect(busy.ok && busy.value.get('primary')).toEqual({
          readable: true,
          busy: [
            { start: t('2027-03-27T09:00:00Z'), end: t('2027-03-27T10:00:00Z') },
            { start: t('2027-03-29T08:00:00Z'), end: t('2027-03-29T09:00:00Z') },
          ],
        });
        const agenda = await calendar.agenda(range);
        expect(agenda.ok && agenda.value.events.map((e) => [e.start, e.end])).toEqual([
          [{ instant: t('2027-03-27T09:00:00Z') }, { instant: t('2027-03-27T10:00:00Z') }],
          [{ instant: t('2027-03-29T08:00:00Z') }, { instant: t('2027-03-29T09:00:00Z') }],
        ]);
      },
    );

    it('when an event does not exist, then getEvent, updateEvent and deleteEvent answer RESOURCE_NOT_FOUND', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
      const calendar = world.calendar(ana);
      const missing = 'abcdefghij0123456789abcdefghij01';
      for (const answer of [
        await calendar.getEvent('primary', missing),
        await calendar.updateEvent('primary', missing, { title: 'x' }, {}),
        await calendar.deleteEvent('primary', missing, {}),
      ]) {
        expect(answer.ok || answer.error.code).toBe('RESOURCE_NOT_FOUND');
      }
    });

    it('when an event is deleted twice, then the second delete ends in the same state', async () => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
      const calendar = world.calendar(ana);
      const created = await calendar.createEvent('primary', draft, { dedupKey: null });
      if (!created.ok) throw new Error(created.error.message);
      expect(await calendar.deleteEvent('primary', created.value.event.id, { notify: false })).toEqual({ ok: true, value: { alreadyDeleted: false } });
      const again = await calendar.deleteEvent('primary', created.value.event.id, { notify: false });
      expect(again.ok || again.error.code).not.toBe('INTERNAL_ERROR');
      if (again.ok) expect(again.value.alreadyDeleted).toBe(true);
      else expect(again.error.code).toBe('RESOURCE_NOT_FOUND');
    });

    it.each(Object.entries(ERROR_FAMILIES))('when the vendor answers a %s failure, then the port answers its contract code', async (kind, expected) => {
      const ana = await world.account({ name: 'ana', timeZone: 'UTC' });
      const created = await world.calendar(ana).createEvent('primary', draft, { dedupKey: null });
      if (!created.ok) throw new Error(created.error.message);
      await world.fault('event.get', kind as FaultKind);
      const got = await world.calendar(ana).getEvent('primary', created.value.event.id);
      expect(got.ok || { code: got.error.code, retryable: got.error.retryable }).toEqual(expected);
    });
  });
}
