// Owns: the RFC 3339 parser's agreement with its specification, checked against a regular
// expression version of it (the parser's previous form, kept here as the oracle): every member
// must compute the same milliseconds from a command's time whichever version it runs.
import { describe, expect, it } from 'vitest';
import { addSecondsRfc3339, rfc3339ToMillis } from '../../../actors/time.ts';
import { createRng } from '../../../raft/stdx/rng.ts';

const pattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

function oracle(text: string): number | undefined {
  const match = pattern.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > days) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const fraction = match[7] === undefined ? 0 : Math.floor(Number(`0${match[7]}`) * 1000);
  let offset = 0;
  if (match[9] !== undefined) {
    const h = Number(match[10]);
    const m = Number(match[11]);
    if (h > 23 || m > 59) return undefined;
    offset = (match[9] === '-' ? -1 : 1) * (h * 60 + m);
  }
  // Date.UTC is a fine oracle for the calendar in years 0100–9999 (JavaScript maps 0–99 to 19xx).
  return Date.UTC(year, month - 1, day, hour, minute, 0, 0) + (second * 1000) + fraction - offset * 60_000;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

describe('rfc3339ToMillis', () => {
  it('reads what Date reads, fractions floored to the millisecond, offsets applied', () => {
    expect(rfc3339ToMillis('2026-11-29T14:33:03Z')).toBe(Date.parse('2026-11-29T14:33:03Z'));
    expect(rfc3339ToMillis('2026-11-29T14:33:03.123Z')).toBe(Date.parse('2026-11-29T14:33:03.123Z'));
    expect(rfc3339ToMillis('2026-11-29T14:33:03.1239999Z')).toBe(Date.parse('2026-11-29T14:33:03.123Z'));
    expect(rfc3339ToMillis('2026-11-29t14:33:03+02:30')).toBe(Date.parse('2026-11-29T12:03:03Z'));
    expect(rfc3339ToMillis('2024-02-29T00:00:00-00:00')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(rfc3339ToMillis('2016-12-31T23:59:60Z')).toBe(Date.parse('2017-01-01T00:00:00Z'));
  });

  it('refuses what is not a full RFC 3339 date-time', () => {
    for (const text of ['', '2026-11-29', '2026-11-29T14:33Z', '2026-11-29T14:33:03', '2026-11-29 14:33:03Z',
      '2026-11-29T14:33:03.Z', '2026-11-29T14:33:03.1234567890Z', '2026-13-01T00:00:00Z', '2023-02-29T00:00:00Z',
      '2026-11-29T24:00:00Z', '2026-11-29T14:60:00Z', '2026-11-29T14:33:61Z', '2026-11-29T14:33:03+24:00',
      '2026-11-29T14:33:03+02:60', '2026-11-29T14:33:03+0230', '2026-11-29T14:33:03ZZ', '2026-11-29T14:33:03Z ',
      ' 2026-11-29T14:33:03Z', '2026-1a-29T14:33:03Z', '+2026-11-29T14:33:03Z', '２026-11-29T14:33:03Z']) {
      expect(rfc3339ToMillis(text), text).toBeUndefined();
    }
  });

  it('agrees with the regular expression version on 20,000 generated and mutated strings', () => {
    // A seeded sequence, so a failure names its case.
    const rng = createRng(16);
    const next = (): number => rng.nextUint32() / 0x1_0000_0000;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const digits = [...'0123456789'];
    let valid = 0;
    for (let n = 0; n < 20_000; n++) {
      const year = 100 + Math.floor(next() * 9900);
      const fractionDigits = Math.floor(next() * 11);
      let fraction = fractionDigits === 0 ? '' : '.';
      for (let d = 0; d < fractionDigits; d++) fraction += pick(digits);
      const zone = next() < 0.5 ? pick(['Z', 'z']) : `${pick(['+', '-'])}${pad(Math.floor(next() * 26))}:${pad(Math.floor(next() * 62))}`;
      let text = `${pad(year, 4)}-${pad(Math.floor(next() * 14))}-${pad(Math.floor(next() * 33))}${pick(['T', 't', ' '])}`
        + `${pad(Math.floor(next() * 25))}:${pad(Math.floor(next() * 61))}:${pad(Math.floor(next() * 62))}${fraction}${zone}`;
      if (next() < 0.3) {
        // One mutation: a character replaced, removed or inserted.
        const at = Math.floor(next() * (text.length + 1));
        const character = pick([...'0123456789-:.TtZz+ x']);
        const kind = Math.floor(next() * 3);
        text = kind === 0 ? text.slice(0, at) + character + text.slice(at + 1) : kind === 1 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + character + text.slice(at);
      }
      const expected = oracle(text);
      if (expected !== undefined) valid += 1;
      expect(rfc3339ToMillis(text), text).toBe(expected);
    }
    // The generator reaches both sides.
    expect(valid).toBeGreaterThan(1_000);
    expect(valid).toBeLessThan(19_000);
  });

  it('keeps addSecondsRfc3339 on whole seconds', () => {
    expect(addSecondsRfc3339('2026-11-29T14:33:03.999Z', 30)).toBe('2026-11-29T14:33:33Z');
    expect(addSecondsRfc3339('not a time', 30)).toBeUndefined();
  });
});
