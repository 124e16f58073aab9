import { IANAZone } from 'luxon';

/**
 * IANA zones for the calendar tools, validated once and with their offsets remembered. luxon validates a zone
 * name by building an `Intl.DateTimeFormat` on every `isValidZone` call (~0.1 ms), and an IANAZone computes each
 * offset with a `formatToParts` — several per DateTime made in the zone. Together that was about a quarter of
 * the Hub's CPU per calendar call.
 *
 * What is remembered is a pure function of the zone name and the runtime's tz rules (which do not change while
 * the process runs), so it is kept for the process, like luxon's own caches, and bounded: at most ZONES_KEPT zone
 * names (beyond that a zone works uncached: correct, only slower) and OFFSETS_KEPT offsets per zone.
 */

const DAY_MS = 86_400_000;
const QUARTER_MS = 900_000;
const ZONES_KEPT = 200;
const OFFSETS_KEPT = 4096;

function remember(map: Map<number, number>, key: number, value: number): void {
  if (map.size >= OFFSETS_KEPT) map.clear();
  map.set(key, value);
}

/**
 * An IANAZone whose offsets are looked up once per UTC day — when the offsets at the day's start and the next
 * day's start agree, the whole day has it (tz rules never change an offset and change it back within a day) —
 * and per quarter-hour on a day with a transition (offsets change only at quarter-hour instants since the
 * local-mean-time era; the formatter before this made the same assumption).
 */
class RememberedZone extends IANAZone {
  private readonly days = new Map<number, number>(); // UTC day → its offset, or NaN when the day has a transition
  private readonly quarters = new Map<number, number>();

  override offset(ts: number): number {
    if (!Number.isFinite(ts)) return super.offset(ts);
    const day = Math.floor(ts / DAY_MS);
    let whole = this.days.get(day);
    if (whole === undefined) {
      const start = super.offset(day * DAY_MS);
      whole = start === super.offset((day + 1) * DAY_MS) ? start : NaN;
      remember(this.days, day, whole);
    }
    if (!Number.isNaN(whole)) return whole;
    const quarter = Math.floor(ts / QUARTER_MS);
    let offset = this.quarters.get(quarter);
    if (offset === undefined) {
      offset = super.offset(quarter * QUARTER_MS);
      remember(this.quarters, quarter, offset);
    }
    return offset;
  }
}

const zones = new Map<string, RememberedZone>();

/**
 * The zone named `name` (an IANA name: "America/New_York", "UTC"; luxon would also take fixed offsets, which
 * Google refuses), or undefined when it is not one. Invalid names are not remembered (there are endlessly many).
 */
export function ianaZone(name: string): IANAZone | undefined {
  const known = zones.get(name);
  if (known) return known;
  if (!/^[A-Za-z]/.test(name) || !IANAZone.isValidZone(name)) return undefined;
  const zone = new RememberedZone(name);
  if (zones.size < ZONES_KEPT) zones.set(name, zone);
  return zone;
}

/** The zone for luxon: remembered when `name` is an IANA name, else luxon's own (an invalid zone, as before). */
export const zoneNamed = (name: string): IANAZone => ianaZone(name) ?? IANAZone.create(name);
