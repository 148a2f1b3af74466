// Owns: parsing the proposer's RFC 3339 timestamps (`command.at`) into epoch milliseconds,
// for the history window. Hand-written because actors/ is pure and may not touch `Date`
// (lint rule); the conversion is Howard Hinnant's days-from-civil algorithm.
// Must not: read a clock or accept anything but a full RFC 3339 date-time with an offset.

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

export const millisPerMinute = 60_000;
const millisPerDay = 86_400_000;

/** Epoch milliseconds of an RFC 3339 date-time, or undefined if it is not one. */
export function rfc3339ToMillis(text: string): number | undefined {
  const match = rfc3339.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined; // 60: a leap second
  const fraction = match[7] === undefined ? 0 : Math.floor(Number(`0${match[7]}`) * 1000);
  const offsetMinutes = offsetOf(match[9], match[10], match[11]);
  if (offsetMinutes === undefined) return undefined;
  const clock = ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction;
  return daysFromCivil(year, month, day) * millisPerDay + clock;
}

function offsetOf(sign: string | undefined, hours: string | undefined, minutes: string | undefined): number | undefined {
  if (sign === undefined || hours === undefined || minutes === undefined) return 0; // 'Z'
  const h = Number(hours);
  const m = Number(minutes);
  if (h > 23 || m > 59) return undefined;
  return (sign === '-' ? -1 : 1) * (h * 60 + m);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant, "chrono-Compatible Low-Level Date Algorithms"). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = (month + 9) % 12;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

