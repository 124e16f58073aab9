import { DateTime, IANAZone } from 'luxon';
import { findIana, findWindows } from 'windows-iana';
import { type GraphError, graphError } from './errors';

/**
 * Outlook keeps time zones by their Windows names ("Pacific Standard Time"); Graph accepts Windows or IANA
 * names in a dateTimeTimeZone and in `Prefer: outlook.timezone` (learn.microsoft.com/graph/api/resources/
 * datetimetimezone: "timeZone… See below for more possible values", both kinds listed). The mapping is CLDR's
 * windowsZones table, through windows-iana; the arithmetic is luxon's on the platform's IANA database.
 */

/** The IANA zone for a Windows or IANA name, or undefined when neither knows it. */
export function ianaOf(zone: string): string | undefined {
  if (zone === 'UTC' || zone === 'tzone://Microsoft/Utc') return 'UTC';
  const fromWindows = findIana(zone)?.find((z) => IANAZone.isValidZone(z));
  if (fromWindows) return fromWindows;
  return IANAZone.isValidZone(zone) ? zone : undefined;
}

/** The Windows name of a zone given either way (mailboxSettings.timeZone is one). */
export function windowsOf(zone: string): string | undefined {
  if (findIana(zone)?.length) return zone;
  return findWindows(zone)?.[0];
}

export const zoneNotSupported = (zone: string): GraphError =>
  graphError(400, 'TimeZoneNotSupportedException', `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${zone}'.`);

/** `{ dateTime, timeZone }` → a UTC instant; dateTime is local to timeZone (an offset in it is ignored, as Graph does). */
export function parseDateTimeTimeZone(v: unknown, field: string): number | GraphError {
  const o = v as { dateTime?: unknown; timeZone?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.dateTime !== 'string')
    return graphError(400, 'ErrorInvalidRequest', `The ${field} property is missing or invalid: it needs a dateTime and a timeZone.`);
  const zoneName = typeof o.timeZone === 'string' && o.timeZone ? o.timeZone : 'UTC';
  const iana = ianaOf(zoneName);
  if (!iana) return zoneNotSupported(zoneName);
  const local = o.dateTime.replace(/(Z|[+-]\d{2}:\d{2})$/, '').replace(/(\.\d{3})\d+$/, '$1');
  const dt = DateTime.fromISO(local, { zone: iana });
  if (!dt.isValid) return graphError(400, 'ErrorInvalidRequest', `Cannot convert the literal '${o.dateTime}' to the expected type 'Edm.DateTime'.`);
  return dt.toMillis();
}

/** An instant as Graph writes it: seven fractional digits, no offset, and the zone's name as asked for. */
export function formatDateTimeTimeZone(ms: number, zoneName: string) {
  const iana = ianaOf(zoneName) ?? 'UTC';
  return { dateTime: `${DateTime.fromMillis(ms, { zone: iana }).toFormat("yyyy-MM-dd'T'HH:mm:ss")}.0000000`, timeZone: zoneName };
}

/** ISO 8601 UTC with seconds and a Z, as Graph writes DateTimeOffset properties. */
export const isoZ = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function startOfDayIn(ms: number, zone: string) {
  return DateTime.fromMillis(ms, { zone: ianaOf(zone) ?? 'UTC' })
    .startOf('day')
    .toMillis();
}

/** Parses a Prefer header into its preferences: `outlook.timezone="Pacific Standard Time", odata.maxpagesize=5`. */
export function preferences(header: string | undefined): Map<string, string> {
  const prefs = new Map<string, string>();
  if (!header) return prefs;
  for (const part of header.match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const m = /^\s*([A-Za-z.-]+)\s*(?:=\s*"?([^"]*)"?)?\s*$/.exec(part);
    if (m) prefs.set(m[1]!.toLowerCase(), m[2] ?? '');
  }
  return prefs;
}
