// Owns: parsing the proposer's RFC 3339 timestamps (`command.at`) into epoch milliseconds,
// for the history window, and the proleptic Gregorian calendar arithmetic behind it (also used
// by the API's timestamp decoding). Hand-written because actors/ is pure and may not touch
// `Date` (lint rule); the conversions are Howard Hinnant's days-from-civil algorithms.
// Must not: read a clock or accept anything but a full RFC 3339 date-time with an offset.

export const millisPerMinute = 60_000;
const millisPerDay = 86_400_000;

const zero = 48; // '0'

/** The value of the `count` decimal digits of `text` at `at`, or -1 if one of them is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let end = at + count; at < end; at++) {
    const digit = text.charCodeAt(at) - zero;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Epoch milliseconds of an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, `T` and
 * `Z` in either case, a fraction of 1–9 digits), or undefined if it is not one. A scan of the
 * characters, not a regular expression: every store member parses each command's time twice per
 * write (the command's check and its apply), and a match's arrays were 2 KB of garbage per write
 * on each.
 */
export function rfc3339ToMillis(text: string): number | undefined {
  if (text.length < 20) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  if (text[4] !== '-' || text[7] !== '-' || (text[10] !== 'T' && text[10] !== 't') || text[13] !== ':' || text[16] !== ':') return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined; // 60: a leap second
  let at = 19;
  let fraction = 0;
  if (text[at] === '.') {
    const dot = at;
    for (at += 1; at < text.length && digitsAt(text, at, 1) >= 0; at++);
    if (at - dot < 2 || at - dot > 10) return undefined;
    // As the regular expression's version computed it (the same double, so the same millisecond
    // on every member whichever version it runs).
    fraction = Math.floor(Number(text.slice(dot, at)) * 1000);
  }
  const offsetMinutes = offsetAt(text, at);
  if (offsetMinutes === undefined) return undefined;
  const clock = ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction;
  return daysFromCivil(year, month, day) * millisPerDay + clock;
}

/** The offset in minutes of the zone designator that ends `text` at `at` (`Z`, `z` or `±HH:MM`), or undefined. */
function offsetAt(text: string, at: number): number | undefined {
  const sign = text[at];
  if (sign === 'Z' || sign === 'z') return at + 1 === text.length ? 0 : undefined;
  if ((sign !== '+' && sign !== '-') || at + 6 !== text.length || text[at + 3] !== ':') return undefined;
  const h = digitsAt(text, at + 1, 2);
  const m = digitsAt(text, at + 4, 2);
  if (h < 0 || m < 0 || h > 23 || m > 59) return undefined;
  return (sign === '-' ? -1 : 1) * (h * 60 + m);
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant, "chrono-Compatible Low-Level Date Algorithms"). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = (month + 9) % 12;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const millisPerSecond = 1000;

/**
 * The RFC 3339 form (UTC, whole seconds, as metav1.Time serializes) of `at` plus `seconds`, for
 * times apply derives from a command's time (a graceful deletion's deletionTimestamp). Undefined
 * if `at` is not RFC 3339 or the sum leaves years 0000–9999.
 */
export function addSecondsRfc3339(at: string, seconds: number): string | undefined {
  const millis = rfc3339ToMillis(at);
  if (millis === undefined || !Number.isSafeInteger(seconds)) return undefined;
  return millisToRfc3339(Math.floor(millis / millisPerSecond) * millisPerSecond + seconds * millisPerSecond);
}

/** Epoch milliseconds as RFC 3339 in UTC, whole seconds (fractions dropped); undefined outside years 0000–9999. */
export function millisToRfc3339(millis: number): string | undefined {
  if (!Number.isFinite(millis)) return undefined;
  const days = Math.floor(millis / millisPerDay);
  const secondsOfDay = Math.floor((millis - days * millisPerDay) / millisPerSecond);
  const [year, month, day] = civilFromDays(days);
  if (year < 0 || year > 9999) return undefined;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const clock = `${pad(Math.floor(secondsOfDay / 3600))}:${pad(Math.floor(secondsOfDay / 60) % 60)}:${pad(secondsOfDay % 60)}`;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${clock}Z`;
}

/** The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's civil_from_days, inverse of daysFromCivil). */
export function civilFromDays(days: number): [number, number, number] {
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}
