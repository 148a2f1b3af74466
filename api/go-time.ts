// Owns: the two timestamp forms of kube's API objects as Go decodes and encodes them: metav1.Time
// (time.Parse with the RFC3339 layout; written back in UTC to the second) and metav1.MicroTime
// (layout RFC3339Micro, exactly six fraction digits; written back in UTC to the microsecond).
// Parsing follows Go's general layout parser element by element, with its quirks (a one-digit
// hour, a comma before the fraction, any number of fraction digits for RFC3339, offsets up to
// 24:60) and its error texts ("parsing time … as …: cannot parse … as …", "… month out of
// range", "… extra text: …"), which kube returns as the decode error of a bad timestamp.

import { civilFromDays, daysFromCivil, daysInMonth } from '../actors/index.ts';

/** A timestamp Go's parser refused; the message is time.ParseError's. */
export class GoTimeParseError extends Error {
  override readonly name = 'GoTimeParseError';
}

/** Which metav1 type: Time keeps seconds, MicroTime microseconds. */
export type TimestampKind = 'Time' | 'MicroTime';

const layouts: Readonly<Record<TimestampKind, string>> = {
  Time: '2006-01-02T15:04:05Z07:00',
  MicroTime: '2006-01-02T15:04:05.000000Z07:00',
};

/** One element of the layout: the literal before it, and the element's own text in the layout. */
interface LayoutElement {
  readonly prefix: string;
  readonly element: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micro' | 'zone';
  readonly text: string;
}

const elements: Readonly<Record<TimestampKind, readonly LayoutElement[]>> = {
  Time: [
    { prefix: '', element: 'year', text: '2006' }, { prefix: '-', element: 'month', text: '01' }, { prefix: '-', element: 'day', text: '02' },
    { prefix: 'T', element: 'hour', text: '15' }, { prefix: ':', element: 'minute', text: '04' }, { prefix: ':', element: 'second', text: '05' },
    { prefix: '', element: 'zone', text: 'Z07:00' },
  ],
  MicroTime: [
    { prefix: '', element: 'year', text: '2006' }, { prefix: '-', element: 'month', text: '01' }, { prefix: '-', element: 'day', text: '02' },
    { prefix: 'T', element: 'hour', text: '15' }, { prefix: ':', element: 'minute', text: '04' }, { prefix: ':', element: 'second', text: '05' },
    { prefix: '', element: 'micro', text: '.000000' }, { prefix: '', element: 'zone', text: 'Z07:00' },
  ],
};

/** Go's time.quote: double quotes, `"` and `\` escaped, bytes outside printable ASCII as \xNN. */
function goQuote(text: string): string {
  let quoted = '"';
  for (const byte of new TextEncoder().encode(text)) {
    if (byte < 0x20 || byte >= 0x80) quoted += `\\x${byte.toString(16).padStart(2, '0')}`;
    else {
      const char = String.fromCharCode(byte);
      quoted += char === '"' || char === '\\' ? `\\${char}` : char;
    }
  }
  return `${quoted}"`;
}

function isDigitAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 48 && code <= 57;
}

/** Go's getnum: one or two leading digits (exactly two when fixed). */
function leadingNumber(text: string, fixed: boolean): { readonly value: number; readonly rest: string } | undefined {
  if (!isDigitAt(text, 0)) return undefined;
  if (!isDigitAt(text, 1)) return fixed ? undefined : { value: text.charCodeAt(0) - 48, rest: text.slice(1) };
  return { value: (text.charCodeAt(0) - 48) * 10 + (text.charCodeAt(1) - 48), rest: text.slice(2) };
}

/** An instant: whole seconds since the Unix epoch (UTC) and the nanoseconds within the second. */
export interface GoInstant {
  readonly seconds: number;
  readonly nanos: number;
}

/** time.Parse(layout of `kind`, text), or GoTimeParseError with Go's message. */
export function parseGoTimestamp(text: string, kind: TimestampKind): GoInstant {
  const layout = layouts[kind];
  const cannotParse = (valueElement: string, layoutElement: string): GoTimeParseError =>
    new GoTimeParseError(`parsing time ${goQuote(text)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElement)} as ${goQuote(layoutElement)}`);
  const outOfRange = (what: string): GoTimeParseError => new GoTimeParseError(`parsing time ${goQuote(text)}: ${what} out of range`);
  let value = text;
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offsetSeconds = 0;
  for (const { prefix, element, text: layoutText } of elements[kind]) {
    for (const char of prefix) {
      if (value[0] !== char) throw cannotParse(value, prefix);
      value = value.slice(1);
    }
    const before = value;
    // Go's getnum for one element (two digits, or one or two when not fixed), then its range.
    const readNumber = (fixed: boolean, low: number, high: number, name: string): { readonly value: number; readonly rest: string } => {
      const parsed = leadingNumber(value, fixed);
      if (parsed === undefined) throw cannotParse(before, layoutText);
      if (parsed.value < low || parsed.value > high) throw outOfRange(name);
      return parsed;
    };
    switch (element) {
      case 'year': {
        const digits = value.slice(0, 4);
        if (value.length < 4 || !isDigitAt(value, 0) || !/^[+-]?\d+$/.test(digits)) throw cannotParse(before, layoutText);
        year = Number(digits);
        value = value.slice(4);
        break;
      }
      case 'month':
        ({ value: month, rest: value } = readNumber(true, 1, 12, 'month'));
        break;
      case 'day':
        // Any two digits: the day is checked against its month once the whole text is read.
        ({ value: day, rest: value } = readNumber(true, 0, 99, 'day'));
        break;
      case 'hour':
        ({ value: hour, rest: value } = readNumber(false, 0, 23, 'hour'));
        break;
      case 'minute':
        ({ value: minute, rest: value } = readNumber(true, 0, 59, 'minute'));
        break;
      case 'second': {
        ({ value: second, rest: value } = readNumber(true, 0, 59, 'second'));
        // RFC3339 has no fraction in its layout, yet Go reads one (after '.' or ',') of any length.
        if (kind === 'Time' && value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
          let end = 2;
          while (isDigitAt(value, end)) end++;
          nanos = Number(value.slice(1, Math.min(end, 10)).padEnd(9, '0'));
          value = value.slice(end);
        }
        break;
      }
      case 'micro': {
        // ".000000": '.' or ',' and the next six characters, read as Go's atoi reads them (a sign allowed).
        const fraction = value.slice(1, 7);
        if (value.length < 7 || (value[0] !== '.' && value[0] !== ',') || !/^[+-]?\d+$/.test(fraction)) throw cannotParse(before, layoutText);
        if (fraction.startsWith('-') && Number(fraction) !== 0) throw outOfRange('fractional second');
        nanos = Math.abs(Number(fraction)) * 1000;
        value = value.slice(7);
        break;
      }
      case 'zone': {
        if (value[0] === 'Z') {
          value = value.slice(1);
          break;
        }
        if (value.length < 6 || value[3] !== ':') throw cannotParse(before, layoutText);
        const hours = leadingNumber(value.slice(1, 3), true);
        const minutes = hours === undefined ? undefined : leadingNumber(value.slice(4, 6), true);
        if (hours === undefined || minutes === undefined) throw cannotParse(before, layoutText);
        // Go judges the offset's range (> rather than >=: "+24:00" passes) before its sign.
        if (hours.value > 24) throw outOfRange('time zone offset hour');
        if (minutes.value > 60) throw outOfRange('time zone offset minute');
        if (value[0] !== '+' && value[0] !== '-') throw cannotParse(before, layoutText);
        offsetSeconds = (value[0] === '-' ? -1 : 1) * (hours.value * 3600 + minutes.value * 60);
        value = value.slice(6);
        break;
      }
    }
  }
  if (value.length > 0) throw new GoTimeParseError(`parsing time ${goQuote(text)}: extra text: ${goQuote(value)}`);
  if (day < 1 || day > daysInMonth(year, month)) throw outOfRange('day');
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return { seconds, nanos };
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** Go's RFC3339 (Time) or RFC3339Micro (MicroTime) text of an instant, in UTC. */
export function formatGoTimestamp(instant: GoInstant, kind: TimestampKind): string {
  const days = Math.floor(instant.seconds / 86400);
  const within = instant.seconds - days * 86400;
  const [year, month, day] = civilFromDays(days);
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  const clock = `${pad(Math.floor(within / 3600), 2)}:${pad(Math.floor((within % 3600) / 60), 2)}:${pad(within % 60, 2)}`;
  const fraction = kind === 'MicroTime' ? `.${pad(Math.floor(instant.nanos / 1000), 6)}` : '';
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)}T${clock}${fraction}Z`;
}

/** A timestamp as kube writes it back after decoding it: UTC, to the second (Time) or microsecond (MicroTime). */
export function canonicalGoTimestamp(text: string, kind: TimestampKind): string {
  return formatGoTimestamp(parseGoTimestamp(text, kind), kind);
}
