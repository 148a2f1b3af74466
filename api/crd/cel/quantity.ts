// Owns: resource.Quantity values for the CEL quantity library: parsing with apimachinery's
// grammar and error texts (decimal and binary SI suffixes, decimal exponents, rounding up to
// nano precision), exact comparison and arithmetic over a bigint coefficient and a power of ten,
// and AsInt64 / AsApproximateFloat64.

const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const numericWrong = 'unable to parse numeric part of quantity';
const suffixWrong = "unable to parse quantity's suffix";

const int64Max = (1n << 63n) - 1n;
const int64Min = -(1n << 63n);

const decimalSuffixes: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Readonly<Record<string, bigint>> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };

/** A quantity parse failure, with apimachinery's message. */
export class QuantityError extends Error {}

function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}

/** An exact decimal quantity: coefficient × 10^exponent. */
export class Quantity {
  readonly coefficient: bigint;
  readonly exponent: number;

  constructor(coefficient: bigint, exponent: number) {
    let c = coefficient;
    let e = exponent;
    if (c === 0n) e = 0;
    else while (c % 10n === 0n) {
      c /= 10n;
      e += 1;
    }
    this.coefficient = c;
    this.exponent = e;
  }

  static fromInt(value: bigint): Quantity {
    return new Quantity(value, 0);
  }

  compare(other: Quantity): number {
    const exponent = Math.min(this.exponent, other.exponent);
    const a = this.coefficient * pow10(this.exponent - exponent);
    const b = other.coefficient * pow10(other.exponent - exponent);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  add(other: Quantity): Quantity {
    const exponent = Math.min(this.exponent, other.exponent);
    return new Quantity(this.coefficient * pow10(this.exponent - exponent) + other.coefficient * pow10(other.exponent - exponent), exponent);
  }

  negate(): Quantity {
    return new Quantity(-this.coefficient, this.exponent);
  }

  sign(): bigint {
    return this.coefficient === 0n ? 0n : this.coefficient < 0n ? -1n : 1n;
  }

  /** AsInt64: the integer value when it is one and fits int64. */
  asInt64(): bigint | undefined {
    if (this.exponent < 0) return undefined;
    if (this.exponent > 19) return this.coefficient === 0n ? 0n : undefined;
    const value = this.coefficient * pow10(this.exponent);
    return value > int64Max || value < int64Min ? undefined : value;
  }

  asApproximateFloat(): number {
    return Number(`${this.coefficient}e${this.exponent}`);
  }
}

/** resource.ParseQuantity. */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(formatWrong);
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (match === null) throw new QuantityError(formatWrong);
  const sign = match[1] === '-' ? -1n : 1n;
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  const suffix = match[4] ?? '';
  if (whole === '' && fraction === '') throw new QuantityError(formatWrong);
  if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) throw new QuantityError(formatWrong);
  let coefficient = BigInt(`${whole}${fraction}` === '' ? '0' : `${whole}${fraction}`) * sign;
  let exponent = -fraction.length;
  const binary = binarySuffixes[suffix];
  if (binary !== undefined) coefficient *= binary;
  else if (decimalSuffixes[suffix] !== undefined) exponent += decimalSuffixes[suffix]!;
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    const value = Number(suffix.slice(1));
    if (!Number.isSafeInteger(value) || Math.abs(value) > 1000) throw new QuantityError(suffixWrong);
    exponent += value;
  } else throw new QuantityError(suffixWrong);
  if (whole.length + fraction.length > 1000) throw new QuantityError(numericWrong);
  // Values are kept to nano precision, rounded up (away from zero) as apimachinery does.
  if (exponent < -9) {
    const divisor = pow10(-9 - exponent);
    let rounded = coefficient / divisor;
    if (rounded * divisor !== coefficient) rounded += coefficient < 0n ? -1n : 1n;
    coefficient = rounded;
    exponent = -9;
  }
  return new Quantity(coefficient, exponent);
}
