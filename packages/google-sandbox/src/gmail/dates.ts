/** Time-zone arithmetic with Intl only (no tz database dependency). */

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    } catch {
      f = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', timeZoneName: 'longOffset' });
    }
    offsetFormatters.set(timeZone, f);
  }
  return f;
}

/** Minutes east of UTC that `timeZone` observes at instant `ms` ("GMT-08:00" → -480). */
export function utcOffsetMinutes(ms: number, timeZone: string): number {
  const name =
    offsetFormatter(timeZone)
      .formatToParts(new Date(ms))
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The instant of local midnight on y-m-d in `timeZone` (re-checked once, so DST switch days land right). */
export function localMidnight(year: number, month: number, day: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day);
  let ms = guess - utcOffsetMinutes(guess, timeZone) * 60_000;
  ms = guess - utcOffsetMinutes(ms, timeZone) * 60_000;
  return ms;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 2822 date as Gmail writes it: `Tue, 4 Feb 2025 10:00:00 -0800` (no leading zero on the day). */
export function formatMailDate(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${DAYS[local.getUTCDay()]}, ${local.getUTCDate()} ${MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()} ` +
    `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}

/** The offset written in an RFC 3339 timestamp (`Z` → 0, `-05:00` → -300). */
export function rfc3339OffsetMinutes(text: string): number {
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(text);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}
