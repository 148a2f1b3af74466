// Owns: resource.Quantity as apimachinery v0.33 (k8s.io/apimachinery/pkg/api/resource) has it:
// ParseQuantity's grammar, quirks and three error texts; Quantity.UnmarshalJSON of a decoded
// JSON value; Quantity.String() (CanonicalizeBytes, including the input text ParseQuantity keeps
// when it judges it canonical); Cmp, Sign, Value, MilliValue and ScaledValue. The amount is held
// as an exact decimal (a string of significant digits times a power of ten), never written out
// digit by digit, so "1e999999999" or a value rounded from 10,000 digits costs microseconds and
// prints as a short string, while kube's int32 and int64 arithmetic (wrapped exponents, the
// int64 fast path's canonical form, Value()'s overflow) is reproduced where it shows.

const formatWrongMessage = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const numericMessage = 'unable to parse numeric part of quantity';
const suffixMessage = "unable to parse quantity's suffix";

/** apimachinery's ErrFormatWrong, ErrNumeric and ErrSuffix texts. */
export const quantityErrorMessages = { formatWrong: formatWrongMessage, numeric: numericMessage, suffix: suffixMessage } as const;

/** A quantity that does not parse; the message is apimachinery's (ErrFormatWrong, ErrNumeric or ErrSuffix). */
export class QuantityError extends Error {
  override readonly name = 'QuantityError';
}

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/**
 * Which of kube's two representations holds the amount, which decides how its canonical form
 * and its scaled values come out: an int64Amount (an int64 times 10^exponent, from ParseQuantity's
 * fast path) or an inf.Dec (an unscaled big integer over 10^scale, from the slow path).
 */
type Representation = { readonly kind: 'int64'; readonly exponent: number } | { readonly kind: 'decimal'; readonly scale: number };

const int64Max = (1n << 63n) - 1n;
const int64MaxDigits = int64Max.toString();
const nanoExponent = -9;

const decimalSuffixExponents: Readonly<Record<string, number>> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixExponents: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixOfExponent: ReadonlyMap<number, string> = new Map(Object.entries(decimalSuffixExponents).map(([suffix, exponent]) => [exponent, suffix]));
const binarySuffixOfPower = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const suffixLetters = new Set('eEinumkKMGTP');

/** Go's int32 arithmetic: the value modulo 2^32, as a signed 32-bit integer. */
function wrapInt32(value: number): number {
  return value | 0;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}

function countTrailingZeros(digits: string): number {
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--;
  return digits.length - end;
}

function withoutLeadingZeros(digits: string): string {
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 48) start++;
  return digits.slice(start);
}

/** Adds one to a string of decimal digits. */
function incrementDigits(digits: string): string {
  let index = digits.length - 1;
  while (index >= 0 && digits[index] === '9') index--;
  if (index < 0) return `1${'0'.repeat(digits.length)}`;
  return `${digits.slice(0, index)}${String.fromCharCode(digits.charCodeAt(index) + 1)}${'0'.repeat(digits.length - index - 1)}`;
}

/** Multiplies a string of decimal digits by 2^power, in one linear pass per 2^20 (chunks of 7 digits stay exact in a double). */
function multiplyDigitsByPowerOfTwo(digits: string, power: number): string {
  const chunkWidth = 7;
  const chunkBase = 10 ** chunkWidth;
  const chunks: number[] = [];
  for (let end = digits.length; end > 0; end -= chunkWidth) chunks.push(Number(digits.slice(Math.max(0, end - chunkWidth), end)));
  for (let remaining = power; remaining > 0; remaining -= 20) {
    const factor = 2 ** Math.min(20, remaining);
    let carry = 0;
    for (let index = 0; index < chunks.length; index++) {
      const product = chunks[index]! * factor + carry;
      chunks[index] = product % chunkBase;
      carry = Math.floor(product / chunkBase);
    }
    while (carry > 0) {
      chunks.push(carry % chunkBase);
      carry = Math.floor(carry / chunkBase);
    }
  }
  let text = String(chunks[chunks.length - 1]);
  for (let index = chunks.length - 2; index >= 0; index--) text += String(chunks[index]).padStart(chunkWidth, '0');
  return text;
}

/** A string of decimal digits modulo 2^64, read in chunks. */
function digitsModulo64(digits: string): bigint {
  const chunkWidth = 18;
  const chunkBase = pow10(chunkWidth);
  let first = digits.length % chunkWidth || chunkWidth;
  let result = BigInt(digits.slice(0, first));
  for (; first < digits.length; first += chunkWidth) result = BigInt.asUintN(64, result * chunkBase + BigInt(digits.slice(first, first + chunkWidth)));
  return result;
}

/** big.Int.Int64 of ±digits × 10^zeros: the low 64 bits of the magnitude, sign applied, as an int64. */
function int64OfBig(negative: boolean, digits: string, zeros: number): bigint {
  const powerLow = zeros >= 64 ? 0n : BigInt.asUintN(64, pow10(zeros));
  const low = BigInt.asUintN(64, digitsModulo64(digits) * powerLow);
  return BigInt.asIntN(64, negative ? -low : low);
}

/** strconv.ParseInt(text, 10, 64); undefined for a syntax or range error. */
function parseGoInt64(text: string): bigint | undefined {
  const signed = text[0] === '+' || text[0] === '-';
  const body = signed ? text.slice(1) : text;
  if (body.length === 0) return undefined;
  for (const char of body) if (!isDigit(char)) return undefined;
  const significant = withoutLeadingZeros(body);
  if (significant.length > 19) return undefined;
  const value = BigInt(significant === '' ? '0' : significant) * (text[0] === '-' ? -1n : 1n);
  return value > int64Max || value < -int64Max - 1n ? undefined : value;
}

/**
 * A resource.Quantity: ±digits × 10^exponent exactly (digits has no leading or trailing zero;
 * zero is "0" × 10^0), the format it was written in, and the input text ParseQuantity kept as
 * its canonical string, when it kept one.
 */
export class Quantity {
  readonly format: QuantityFormat;
  private readonly negative: boolean;
  private readonly digits: string;
  private readonly exponent: number;
  private readonly representation: Representation;
  /** The input text ParseQuantity stored as the cached string (String() returns it as is). */
  readonly keptText: string | undefined;

  private constructor(negative: boolean, digits: string, exponent: number, format: QuantityFormat, representation: Representation, keptText: string | undefined) {
    const significant = withoutLeadingZeros(digits);
    const zeros = countTrailingZeros(significant);
    const isZero = significant.length === 0;
    this.negative = negative && !isZero;
    this.digits = isZero ? '0' : significant.slice(0, significant.length - zeros);
    this.exponent = isZero ? 0 : exponent + zeros;
    this.format = format;
    this.representation = representation;
    this.keptText = keptText;
  }

  /** @internal ParseQuantity's two outcomes: an int64Amount (value × 10^exponent) or an inf.Dec rounded to nano units. */
  static fromInt64(value: bigint, exponent: number, format: QuantityFormat, keptText?: string): Quantity {
    const negative = value < 0n;
    return new Quantity(negative, (negative ? -value : value).toString(), exponent, format, { kind: 'int64', exponent }, keptText);
  }

  /** @internal */
  static fromDecimal(negative: boolean, digits: string, exponent: number, format: QuantityFormat, scale: number): Quantity {
    return new Quantity(negative, digits, exponent, format, { kind: 'decimal', scale }, undefined);
  }

  isZero(): boolean {
    return this.digits === '0';
  }

  /** Quantity.Sign. */
  sign(): -1 | 0 | 1 {
    return this.isZero() ? 0 : this.negative ? -1 : 1;
  }

  /** Whether the value is a whole number. */
  isInteger(): boolean {
    return this.exponent >= 0;
  }

  /** Quantity.Cmp: -1, 0 or 1 as this is less than, equal to or greater than other (exact, whatever the sizes). */
  compare(other: Quantity): -1 | 0 | 1 {
    const left = this.sign();
    const right = other.sign();
    if (left !== right) return left < right ? -1 : 1;
    if (left === 0) return 0;
    const magnitude = compareMagnitudes(this.digits, this.exponent, other.digits, other.exponent);
    if (left > 0 || magnitude === 0) return magnitude;
    return magnitude < 0 ? 1 : -1;
  }

  /** Quantity.Value(): ScaledValue(0). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** Quantity.MilliValue(): ScaledValue(-3). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /**
   * Quantity.ScaledValue: the value in units of 10^scale, rounded up, as the int64 kube computes
   * (an int64Amount rounds away from zero and gives 0 on overflow; an inf.Dec rounds towards
   * +∞ and keeps the low 64 bits).
   */
  scaledValue(scale: number): bigint {
    if (this.isZero()) return 0n;
    const magnitudeDigits = this.digits;
    if (this.representation.kind === 'int64') {
      const own = this.representation.exponent;
      const amount = BigInt(magnitudeDigits) * pow10(this.exponent - own) * (this.negative ? -1n : 1n);
      if (own < scale) {
        const divisor = pow10(wrapInt32(scale - own));
        const magnitude = (amount < 0n ? -amount : amount);
        const rounded = (magnitude + divisor - 1n) / divisor;
        return amount < 0n ? -rounded : rounded;
      }
      const shift = wrapInt32(own - scale);
      if (shift <= 0) return amount;
      if (shift > 19) return 0n;
      const product = amount * pow10(shift);
      return product > int64Max || product < -int64Max - 1n ? 0n : product;
    }
    // inf.Dec: unscaled = ±digits × 10^zeros over 10^scale.
    const decimalScale = this.representation.scale;
    const zeros = this.exponent + decimalScale;
    const difference = decimalScale - wrapInt32(-scale);
    if (difference === 0) return int64OfBig(this.negative, magnitudeDigits, zeros);
    if (difference < 0) {
      const multiplier = -difference <= 18 ? pow10(-difference) : -int64Max - 1n;
      return BigInt.asIntN(64, int64OfBig(this.negative, magnitudeDigits, zeros) * multiplier);
    }
    const belowInt64Max = this.negative || compareMagnitudes(magnitudeDigits, zeros, int64MaxDigits, 0) < 0;
    if (belowInt64Max && difference < 19) {
      const unscaled = int64OfBig(this.negative, magnitudeDigits, zeros);
      const divisor = pow10(difference);
      const quotient = unscaled / divisor;
      return unscaled % divisor !== 0n ? quotient + 1n : quotient;
    }
    // Euclidean division by 10^difference, then one more when there is a remainder.
    if (zeros >= difference) return int64OfBig(this.negative, magnitudeDigits, zeros - difference);
    const dropped = difference - zeros;
    const kept = magnitudeDigits.length > dropped ? magnitudeDigits.slice(0, magnitudeDigits.length - dropped) : '0';
    const floor = this.negative ? int64OfBig(true, incrementDigits(kept), 0) : int64OfBig(false, kept, 0);
    return BigInt.asIntN(64, floor + 1n);
  }

  /** Quantity.String() (CanonicalizeBytes): the kept input text, else the canonical form ("1536Mi", "500m", "2k", "1e3"). */
  toString(): string {
    if (this.keptText !== undefined) return this.keptText;
    if (this.isZero()) return '0';
    const { negative, digits, exponent } = this;
    let format = this.format;
    // BinarySI shows as DecimalSI below 1024 in magnitude or with a fraction.
    if (format === 'BinarySI' && (compareMagnitudes(digits, exponent, '1024', 0) < 0 || exponent < 0)) format = 'DecimalSI';
    if (format === 'BinarySI') {
      let whole = BigInt(digits) * pow10(exponent);
      let power = 0;
      while (whole >= 1024n && whole % 1024n === 0n) {
        whole /= 1024n;
        power++;
      }
      return `${negative ? '-' : ''}${whole}${binarySuffixOfPower[power] ?? ''}`;
    }
    const canonical = canonicalDecimal(negative, digits, exponent, this.representation);
    if (format === 'DecimalExponent') return canonical.exponent === 0 ? canonical.number : `${canonical.number}e${canonical.exponent}`;
    // The DecimalSI table has no suffix past E (10^18); kube then writes none at all.
    return canonical.number + (decimalSuffixOfExponent.get(canonical.exponent) ?? '');
  }
}

/** Compares the magnitudes digitsA × 10^exponentA and digitsB × 10^exponentB (both normalised and non-zero). */
function compareMagnitudes(digitsA: string, exponentA: number, digitsB: string, exponentB: number): -1 | 0 | 1 {
  const orderA = digitsA.length + exponentA;
  const orderB = digitsB.length + exponentB;
  if (orderA !== orderB) return orderA < orderB ? -1 : 1;
  const common = Math.min(digitsA.length, digitsB.length);
  const headA = digitsA.slice(0, common);
  const headB = digitsB.slice(0, common);
  if (headA !== headB) return headA < headB ? -1 : 1;
  return digitsA.length === digitsB.length ? 0 : digitsA.length < digitsB.length ? -1 : 1;
}

interface ScannedQuantity {
  readonly positive: boolean;
  /** The number part as written (sign and leading zeros included): what the slow path reads as an inf.Dec. */
  readonly numberText: string;
  /** The integer digits without leading zeros ("0" when there are none). */
  readonly whole: string;
  readonly fraction: string;
  readonly suffix: string;
}

/** parseQuantityString: splits sign, number and suffix; only a stray character after the suffix is ErrFormatWrong. */
function scanQuantity(text: string): ScannedQuantity {
  const end = text.length;
  let position = 0;
  let positive = true;
  if (text[0] === '-') {
    positive = false;
    position = 1;
  } else if (text[0] === '+') {
    position = 1;
  }
  while (position < end && text[position] === '0') position++;
  if (position >= end) return { positive, numberText: '0', whole: '0', fraction: '', suffix: '' };
  const wholeStart = position;
  while (position < end && isDigit(text[position])) position++;
  const whole = text.slice(wholeStart, position) || '0';
  if (position >= end) return { positive, numberText: text, whole, fraction: '', suffix: '' };
  let fraction = '';
  if (text[position] === '.') {
    position++;
    const fractionStart = position;
    while (position < end && isDigit(text[position])) position++;
    fraction = text.slice(fractionStart, position);
    if (position >= end) return { positive, numberText: text, whole, fraction, suffix: '' };
  }
  const numberText = text.slice(0, position);
  const suffixStart = position;
  while (position < end && suffixLetters.has(text[position]!)) position++;
  if (position < end && (text[position] === '-' || text[position] === '+')) position++;
  while (position < end && isDigit(text[position])) position++;
  if (position < end) throw new QuantityError(formatWrongMessage);
  return { positive, numberText, whole, fraction, suffix: text.slice(suffixStart) };
}

interface SuffixMeaning {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

/** The suffixer's interpret: the SI tables, else "e"/"E" and an int64 exponent, truncated to int32 as kube does. */
function interpretSuffix(suffix: string): SuffixMeaning {
  if (Object.hasOwn(decimalSuffixExponents, suffix)) return { base: 10, exponent: decimalSuffixExponents[suffix]!, format: 'DecimalSI' };
  if (Object.hasOwn(binarySuffixExponents, suffix)) return { base: 2, exponent: binarySuffixExponents[suffix]!, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const exponent = parseGoInt64(suffix.slice(1));
    if (exponent !== undefined) return { base: 10, exponent: Number(BigInt.asIntN(32, exponent)), format: 'DecimalExponent' };
  }
  throw new QuantityError(suffixMessage);
}

/** The int64 fast path: the amount when it fits an int64 at a scale of nano or coarser, with the input kept as the string when kube judges it canonical. */
function parseFast(text: string, scanned: ScannedQuantity, meaning: SuffixMeaning): Quantity | undefined {
  const { whole, fraction } = scanned;
  let scale = 0;
  let precision: number;
  let multiplier = 1n;
  if (meaning.format === 'BinarySI') {
    if (fraction.length > 0) return undefined;
    multiplier = 1n << BigInt(meaning.exponent);
    // 1Mi has about 6 decimal digits: exponent × 3 / 10 (whole for every binary suffix).
    precision = 15 - whole.length - (meaning.exponent * 3) / 10 - 1;
  } else {
    scale = meaning.exponent;
    precision = 18 - (whole.length + fraction.length);
  }
  if (precision < 0) return undefined;
  scale = wrapInt32(scale - fraction.length);
  if (scale < nanoExponent) return undefined;
  const shifted = whole + fraction;
  const parsed = BigInt(shifted);
  const product = parsed * multiplier;
  if (product > int64Max) return undefined;
  const amount = scanned.positive ? product : -product;
  const canonical = meaning.format === 'BinarySI'
    ? meaning.exponent % 10 === 0 && (parsed & 7n) !== 0n
    : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  return Quantity.fromInt64(amount, scale, meaning.format, canonical ? text : undefined);
}

/** The inf.Dec slow path: the exact value, rounded up (away from zero) to nano units, BinarySI capped at the int64 maximum. */
function parseSlow(scanned: ScannedQuantity, meaning: SuffixMeaning): Quantity {
  let numberText = scanned.numberText;
  if (numberText[0] === '+' || numberText[0] === '-') numberText = numberText.slice(1);
  const point = numberText.indexOf('.');
  const integerDigits = point < 0 ? numberText : numberText.slice(0, point);
  const fractionDigits = point < 0 ? '' : numberText.slice(point + 1);
  if (integerDigits.length + fractionDigits.length === 0) throw new QuantityError(numericMessage);
  let format = meaning.format;
  let digits = withoutLeadingZeros(integerDigits + fractionDigits);
  let decimalScale = fractionDigits.length;
  if (digits.length === 0) return Quantity.fromDecimal(false, '0', 0, format, decimalScale);
  if (meaning.base === 10) decimalScale = wrapInt32(decimalScale + wrapInt32(-meaning.exponent));
  const zeros = countTrailingZeros(digits);
  digits = digits.slice(0, digits.length - zeros);
  let exponent = -decimalScale + zeros;
  if (meaning.base === 2) {
    digits = multiplyDigitsByPowerOfTwo(digits, meaning.exponent);
    const productZeros = countTrailingZeros(digits);
    digits = digits.slice(0, digits.length - productZeros);
    exponent += productZeros;
  }
  if (exponent < nanoExponent) {
    const dropped = nanoExponent - exponent;
    digits = digits.length > dropped ? incrementDigits(digits.slice(0, digits.length - dropped)) : '1';
    const carriedZeros = countTrailingZeros(digits);
    digits = digits.slice(0, digits.length - carriedZeros);
    exponent = nanoExponent + carriedZeros;
  }
  let scale = -nanoExponent;
  if (format === 'BinarySI' && compareMagnitudes(digits, exponent, int64MaxDigits, 0) > 0) {
    digits = int64MaxDigits;
    exponent = 0;
    scale = 0;
  }
  if (format === 'BinarySI' && digits.length + exponent <= 0) format = 'DecimalSI';
  return Quantity.fromDecimal(!scanned.positive, digits, exponent, format, scale);
}

/** resource.ParseQuantity: the quantity, or a QuantityError with apimachinery's message. */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(formatWrongMessage);
  if (text === '0') return Quantity.fromInt64(0n, 0, 'DecimalSI', text);
  const scanned = scanQuantity(text);
  const meaning = interpretSuffix(scanned.suffix);
  return parseFast(text, scanned, meaning) ?? parseSlow(scanned, meaning);
}

/** Characters Go's strings.TrimSpace removes that a JSON string can hold unescaped. */
const rawJsonSpaces = new Set([0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);

function trimRawJsonSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && rawJsonSpaces.has(text.charCodeAt(start))) start++;
  while (end > start && rawJsonSpaces.has(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/** Whether the string holds a character JSON can only escape ('"', '\\', a control character): UnmarshalJSON then sees a backslash. */
function holdsJsonEscape(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return true;
  }
  return false;
}

/**
 * Quantity.UnmarshalJSON of a decoded JSON value: a string is parsed after strings.TrimSpace; a
 * number is parsed from its text (String(n), e.g. "1e+21"); anything else is ErrFormatWrong.
 * UnmarshalJSON sees a string's raw text, escapes included, so a string holding a character JSON
 * can only escape ('"', '\\', a control character) is ErrFormatWrong, and only spaces that can
 * stand unescaped are trimmed. null is the caller's: Go leaves the Quantity zero.
 */
export function quantityFromJson(raw: unknown): Quantity {
  if (typeof raw === 'number') return parseQuantity(String(raw));
  if (typeof raw !== 'string' || holdsJsonEscape(raw)) throw new QuantityError(formatWrongMessage);
  return parseQuantity(trimRawJsonSpace(raw));
}

/** AsCanonicalBytes: the digits and a power of ten that is a multiple of 3 (kube's int32 exponent, wrapped as Go wraps it). */
function canonicalDecimal(negative: boolean, digits: string, trueExponent: number, representation: Representation): { readonly number: string; readonly exponent: number } {
  let exponent = wrapInt32(trueExponent);
  let mantissa = digits;
  const sign = negative ? '-' : '';
  if (representation.kind === 'int64') {
    // The int64 amount lowers the exponent once, by one or two; past int64 it falls back to inf.Dec.
    const remainder = exponent % 3;
    const shift = remainder === 1 || remainder === -2 ? 1 : remainder === 2 || remainder === -1 ? 2 : 0;
    if (shift === 0) return { number: sign + mantissa, exponent };
    const widened = mantissa + '0'.repeat(shift);
    const limit = negative ? int64Max + 1n : int64Max;
    if (BigInt(widened) <= limit) return { number: sign + widened, exponent: wrapInt32(exponent - shift) };
  }
  while (exponent % 3 !== 0) {
    mantissa += '0';
    exponent = wrapInt32(exponent - 1);
  }
  return { number: sign + mantissa, exponent };
}

/** Quantity.String(): the kept input text, else the canonical form. */
export function formatQuantity(quantity: Quantity): string {
  return quantity.toString();
}
