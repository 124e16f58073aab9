import { localMidnight } from '../dates';

/** The values of Gmail's date and size operators. */

/**
 * after:/before: dates. Gmail's API documents that dates are midnight in PST (America/Los_Angeles), not
 * the user's zone; precise bounds are given as epoch seconds instead.
 */
export function parseDateBound(v: string): number | undefined {
  if (/^\d{9,}$/.test(v)) return Number(v) * 1000;
  let m = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$/.exec(v);
  if (m) return validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  if (m) return validDate(Number(m[3]), Number(m[1]), Number(m[2]));
  return undefined;
}

function validDate(y: number, mo: number, d: number): number | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return undefined;
  return localMidnight(y, mo, d, 'America/Los_Angeles');
}

/** newer_than:/older_than: — d(ays), m(onths), y(ears); h(ours) works in Gmail too. */
export function relativeBound(v: string, now: number): number | undefined {
  const m = /^(\d+)([hdmy])$/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  const date = new Date(now);
  switch (m[2]) {
    case 'h':
      return now - n * 3_600_000;
    case 'd':
      return now - n * 86_400_000;
    case 'm':
      return date.setUTCMonth(date.getUTCMonth() - n);
    default:
      return date.setUTCFullYear(date.getUTCFullYear() - n);
  }
}

export function parseSize(v: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([kmb]?)b?$/.exec(v);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] === 'm' ? 1024 * 1024 : m[2] === 'k' ? 1024 : 1);
}
