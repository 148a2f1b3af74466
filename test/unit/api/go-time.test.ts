// metav1.Time and MicroTime as Go parses and writes them: canonical UTC text to the second or
// microsecond, Go's layout parser's leniencies (one-digit hour, comma before the fraction, any
// fraction length for RFC3339, "+24:00") and its error texts for a value it refuses.
import { describe, expect, it } from 'vitest';
import { GoTimeParseError, canonicalGoTimestamp, parseGoTimestamp } from '../../../api/go-time.ts';

const rfc3339 = '"2006-01-02T15:04:05Z07:00"';
const rfc3339Micro = '"2006-01-02T15:04:05.000000Z07:00"';

describe('metav1.Time', () => {
  it.each([
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    ['2026-01-01T01:00:00.123+01:00', '2026-01-01T00:00:00Z'],
    ['2026-01-01T00:00:00.999999999Z', '2026-01-01T00:00:00Z'],
    ['2026-01-01T00:00:00,5Z', '2026-01-01T00:00:00Z'],
    ['2026-01-01T00:30:00-00:45', '2026-01-01T01:15:00Z'],
    ['2025-12-31T23:00:00-02:00', '2026-01-01T01:00:00Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z'],
    ['2026-01-01T9:05:00Z', '2026-01-01T09:05:00Z'],
    ['2026-01-01T00:00:00+24:00', '2025-12-31T00:00:00Z'],
    ['0000-01-01T00:00:00+01:00', '-0001-12-31T23:00:00Z'],
    ['1969-12-31T23:59:59Z', '1969-12-31T23:59:59Z'],
  ])('%s is written back as %s', (input, output) => {
    expect(canonicalGoTimestamp(input, 'Time')).toBe(output);
  });

  it('keeps the instant: seconds since the epoch and the nanoseconds read', () => {
    expect(parseGoTimestamp('1970-01-01T00:00:01.5Z', 'Time')).toEqual({ seconds: 1, nanos: 500_000_000 });
    expect(parseGoTimestamp('2026-01-01T00:00:00Z', 'Time').seconds).toBe(Date.UTC(2026, 0, 1) / 1000);
  });

  it.each([
    ['yesterday', `parsing time "yesterday" as ${rfc3339}: cannot parse "yesterday" as "2006"`],
    ['', `parsing time "" as ${rfc3339}: cannot parse "" as "2006"`],
    ['2026-1-01T00:00:00Z', `parsing time "2026-1-01T00:00:00Z" as ${rfc3339}: cannot parse "1-01T00:00:00Z" as "01"`],
    ['2026-01-01 00:00:00Z', `parsing time "2026-01-01 00:00:00Z" as ${rfc3339}: cannot parse " 00:00:00Z" as "T"`],
    ['2026-01-01T00:00:00', `parsing time "2026-01-01T00:00:00" as ${rfc3339}: cannot parse "" as "Z07:00"`],
    ['2026-01-01T00:00:00z', `parsing time "2026-01-01T00:00:00z" as ${rfc3339}: cannot parse "z" as "Z07:00"`],
    ['2026-13-01T00:00:00Z', 'parsing time "2026-13-01T00:00:00Z": month out of range'],
    ['2026-02-29T00:00:00Z', 'parsing time "2026-02-29T00:00:00Z": day out of range'],
    ['2026-01-01T24:00:00Z', 'parsing time "2026-01-01T24:00:00Z": hour out of range'],
    ['2026-01-01T00:60:00Z', 'parsing time "2026-01-01T00:60:00Z": minute out of range'],
    ['2026-01-01T00:00:60Z', 'parsing time "2026-01-01T00:00:60Z": second out of range'],
    ['2026-01-01T00:00:00+25:00', 'parsing time "2026-01-01T00:00:00+25:00": time zone offset hour out of range'],
    ['2026-01-01T00:00:00Zjunk', 'parsing time "2026-01-01T00:00:00Zjunk": extra text: "junk"'],
    ['2026-01-01T00:00:00\u00e9', `parsing time "2026-01-01T00:00:00\\xc3\\xa9" as ${rfc3339}: cannot parse "\\xc3\\xa9" as "Z07:00"`],
  ])('refuses %j as Go does', (input, message) => {
    expect(() => parseGoTimestamp(input, 'Time')).toThrow(GoTimeParseError);
    expect(() => parseGoTimestamp(input, 'Time')).toThrow(message);
  });
});

describe('metav1.MicroTime', () => {
  it('is written back in UTC with six fraction digits', () => {
    expect(canonicalGoTimestamp('2026-01-01T01:00:00.123456+01:00', 'MicroTime')).toBe('2026-01-01T00:00:00.123456Z');
    expect(canonicalGoTimestamp('2026-01-01T00:00:00,000001Z', 'MicroTime')).toBe('2026-01-01T00:00:00.000001Z');
  });

  it('needs exactly six fraction digits, as the layout RFC3339Micro does', () => {
    expect(() => parseGoTimestamp('2026-01-01T00:00:00Z', 'MicroTime')).toThrow(`parsing time "2026-01-01T00:00:00Z" as ${rfc3339Micro}: cannot parse "Z" as ".000000"`);
    expect(() => parseGoTimestamp('2026-01-01T00:00:00.123Z', 'MicroTime')).toThrow(`cannot parse ".123Z" as ".000000"`);
    expect(() => parseGoTimestamp('2026-01-01T00:00:00.123456789Z', 'MicroTime')).toThrow(`cannot parse "789Z" as "Z07:00"`);
    expect(() => parseGoTimestamp('2026-01-01T00:00:00.-12345Z', 'MicroTime')).toThrow('parsing time "2026-01-01T00:00:00.-12345Z": fractional second out of range');
  });
});
