// Owns: Go's time.ParseDuration and Duration.String, as kube's flags and configuration files
// read and print durations ("1h30m", "300ms", "5m0s"), with Go's error texts ("time: invalid
// duration …", "time: missing unit …", "time: unknown unit …").
import { goQuote } from './go-format.ts';

const unitNanos: Readonly<Record<string, bigint>> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n,
};

/** Go's maximum Duration (int64 nanoseconds). */
const maxNanos = 2n ** 63n - 1n;

/** Go's time.ParseDuration in nanoseconds; throws Go's error text. */
export function parseGoDurationNanos(text: string): bigint {
  const invalid = (): Error => new Error(`time: invalid duration ${goQuote(text)}`);
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw invalid();
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const whole = number[1] ?? '';
    const fraction = number[2];
    if (whole === '' && (fraction === undefined || fraction === '')) throw invalid();
    rest = rest.slice(number[0].length);
    const unit = /^[^0-9.]*/.exec(rest)![0];
    if (unit === '') throw new Error(`time: missing unit in duration ${goQuote(text)}`);
    const nanos = unitNanos[unit];
    if (nanos === undefined) throw new Error(`time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}`);
    rest = rest.slice(unit.length);
    let value = BigInt(whole === '' ? '0' : whole) * nanos;
    if (fraction !== undefined && fraction !== '') value += (BigInt(fraction) * nanos) / 10n ** BigInt(fraction.length);
    total += value;
    if (total > maxNanos + (negative ? 1n : 0n)) throw invalid();
  }
  return negative ? -total : total;
}

/** Go's time.ParseDuration in whole milliseconds (rounded down); throws Go's error text. */
export function parseGoDuration(text: string): number {
  return Number(parseGoDurationNanos(text) / 1_000_000n);
}

/** Go's Duration.String for whole milliseconds: "5m0s", "30s", "1h0m0s", "1.5s", "0s". */
export function formatGoDuration(milliseconds: number): string {
  if (milliseconds === 0) return '0s';
  const sign = milliseconds < 0 ? '-' : '';
  let rest = Math.abs(milliseconds);
  if (rest < 1000) return `${sign}${rest}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = (rest / 1000).toString();
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
