import { z } from 'zod';
import type { WorkingHoursFact } from '../../core/calendar';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import { type Graph, factKey } from './calendar-graph';
import { ianaZoneOf } from './time-zones';

/**
 * The account's time zone and working hours, from GET /me/mailboxSettings (user-get-mailboxsettings): Outlook
 * keeps both, the zone by its Windows name (or an IANA one), the hours as `HH:mm:ss.fffffff` local times with
 * their own zone. Read once per connection every ten minutes (a zone changes rarely: ten minutes of staleness
 * costs at most a mislabelled offset for that long), and shared by both facts.
 */

const SETTINGS_TTL_MS = 10 * 60_000;
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
type Weekday = (typeof WEEK)[number];

const settingsSchema = z.object({
  timeZone: z.string().max(200).nullish(),
  workingHours: z
    .object({
      daysOfWeek: z.array(z.string().max(32)).max(14).nullish(),
      startTime: z.string().max(32).nullish(),
      endTime: z.string().max(32).nullish(),
      timeZone: z.object({ name: z.string().max(200).nullish() }).nullish(),
    })
    .nullish(),
});
type Settings = z.infer<typeof settingsSchema>;

function settings(graph: Graph): Promise<Result<Settings>> {
  return graph.deps.cache.memo(factKey(graph.deps, 'calendar:mailboxSettings'), SETTINGS_TTL_MS, () =>
    graph.send('mailboxSettings.get', true, { method: 'GET', path: '/me/mailboxSettings' }, settingsSchema),
  );
}

/** A zone name a caller may see: printable, cut. */
const shown = (name: string) => name.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);

const noIanaZone = (name: string | null | undefined): HubError =>
  hubError('EXTERNAL_API_ERROR', `Outlook keeps the account's time zone as "${shown(name ?? '')}", which has no IANA equivalent`, {
    retryable: false,
    details: { reason: 'unknown_time_zone', time_zone: shown(name ?? '') },
  });

export async function timeZone(graph: Graph): Promise<Result<string>> {
  const got = await settings(graph);
  if (!got.ok) return got;
  const zone = got.value.timeZone ? ianaZoneOf(got.value.timeZone) : undefined;
  return zone ? ok(zone) : fail(noIanaZone(got.value.timeZone));
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)(:[0-5]\d(\.\d+)?)?$/;

/** Working hours as the tools keep them ("HH:MM", end after start, "24:00" for midnight); null when Outlook's cannot be. */
export async function workingHours(graph: Graph): Promise<Result<WorkingHoursFact | null>> {
  const got = await settings(graph);
  if (!got.ok) return got;
  const wh = got.value.workingHours;
  if (!wh) return ok(null);
  const start = TIME.exec(wh.startTime ?? '');
  const end = TIME.exec(wh.endTime ?? '');
  const days = WEEK.filter((d) => (wh.daysOfWeek ?? []).some((x) => x.toLowerCase() === d));
  if (!start || !end || days.length === 0) return ok(null);
  const startHm = `${start[1]}:${start[2]}`;
  const endHm = `${end[1]}:${end[2]}` === '00:00' ? '24:00' : `${end[1]}:${end[2]}`;
  if (endHm <= startHm) {
    // Hours across midnight: the tools' working hours cannot say so; they fall back to their default.
    graph.deps.logger.warn({ operation: 'mailboxSettings.get' }, 'Outlook working hours end before they start; not used');
    return ok(null);
  }
  const zoneName = wh.timeZone?.name ?? got.value.timeZone;
  const zone = zoneName ? ianaZoneOf(zoneName) : undefined;
  if (!zone) return fail(noIanaZone(zoneName));
  return ok({ start: startHm, end: endHm, days: days as Weekday[], timeZone: zone });
}
