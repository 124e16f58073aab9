import { IANAZone } from 'luxon';
import { WINDOWS_TO_IANA_MAP, findWindows } from 'windows-iana';

/**
 * Outlook keeps a mailbox's time zone by its Windows name ("Pacific Standard Time"); Graph also accepts and may
 * return IANA names (learn.microsoft.com/graph/api/resources/datetimetimezone). The Hub speaks IANA, so a Windows
 * name is translated with CLDR's windowsZones table (through windows-iana): the zone CLDR lists for territory
 * "001" — its "golden" zone for that Windows zone — never a guess from the name's words or its current offset.
 * The arithmetic is the platform's IANA data (luxon/Intl); a name neither table knows is undefined, and the caller
 * says so clearly instead of assuming UTC.
 */

const GOLDEN = new Map<string, string>();
const GOLDEN_LOWER = new Map<string, string>();
for (const entry of WINDOWS_TO_IANA_MAP) {
  if (entry.territory !== '001' || !entry.iana[0]) continue;
  GOLDEN.set(entry.windowsName, entry.iana[0]);
  GOLDEN_LOWER.set(entry.windowsName.toLowerCase(), entry.iana[0]);
}

/** Graph's own spelling of UTC in originalStartTimeZone and friends. */
const MICROSOFT_UTC = 'tzone://microsoft/utc';

/** Every Windows zone name CLDR maps (for tests and documentation). */
export const WINDOWS_ZONE_NAMES: readonly string[] = [...GOLDEN.keys()];

/** IANA names the platform knows: "Area/Location" forms and UTC (fixed offsets such as "+02:00" are not IANA names). */
const isIanaName = (name: string): boolean => /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) && IANAZone.isValidZone(name);

/**
 * Answers already worked out, by the name as Graph spelled it. Every time Graph returns carries its zone name, and
 * checking one against the platform's data builds an Intl formatter (luxon's isValidZone): about 11 ms of CPU per
 * availability call before this memo. The names come from a vendor, so the memo stops growing at MEMO_LIMIT and
 * later names are worked out each time — correct, only slower.
 */
const MEMO = new Map<string, string | undefined>();
const MEMO_LIMIT = 1_024;

/** The IANA zone for a zone name Outlook gave (Windows or IANA); undefined when it has no IANA equivalent. */
export function ianaZoneOf(name: string): string | undefined {
  if (MEMO.has(name)) return MEMO.get(name);
  const zone = resolveZone(name);
  if (MEMO.size < MEMO_LIMIT) MEMO.set(name, zone);
  return zone;
}

/** Whether an IANA zone is UTC itself (not merely at offset zero today), so its wall times read as UTC. */
export const isUtcZone = (iana: string): boolean =>
  iana === 'UTC' || iana === 'Etc/UTC' || iana === 'Etc/GMT' || iana === 'Etc/Universal' || iana === 'Etc/Zulu';

function resolveZone(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed.toLowerCase() === MICROSOFT_UTC) return GOLDEN.get('UTC');
  const golden = GOLDEN.get(trimmed) ?? GOLDEN_LOWER.get(trimmed.toLowerCase());
  if (golden !== undefined) return IANAZone.isValidZone(golden) ? golden : undefined;
  return isIanaName(trimmed) ? trimmed : undefined;
}

/**
 * The Windows name CLDR gives an IANA zone (the first, where a zone is listed under several); undefined when none.
 * windows-iana looks a zone up through its alias groups, which leave out a few names the table itself lists
 * (America/Montreal), so the table is read directly when that finds nothing.
 */
export function windowsZoneOf(iana: string): string | undefined {
  return findWindows(iana)[0] ?? WINDOWS_TO_IANA_MAP.find((entry) => (entry.iana as readonly string[]).includes(iana))?.windowsName;
}
