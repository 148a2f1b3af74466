// resource.Quantity as apimachinery v0.33 parses and prints it: the canonical strings, the
// values and formats ParseQuantity produces, the inputs it refuses (with which of its three
// messages), UnmarshalJSON of decoded values, Cmp and ScaledValue; the expected values are
// apimachinery's (quantity_test.go and what quantity.go, suffix.go and amount.go compute). A
// huge exponent or a long mantissa stays cheap and prints short.
import { describe, expect, it } from 'vitest';
import { QuantityError, formatQuantity, parseQuantity, quantityErrorMessages, quantityFromJson } from '../../../api/quantity.ts';
import type { QuantityFormat } from '../../../api/quantity.ts';

const canonical = (text: string): string => formatQuantity(parseQuantity(text));

function parseError(text: string): string | undefined {
  try {
    parseQuantity(text);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(QuantityError);
    return (error as QuantityError).message;
  }
}

describe('the canonical form (Quantity.String)', () => {
  it.each([
    ['0', '0'], ['00', '0'], ['1', '1'], ['1000m', '1'], ['0.5', '500m'], ['.5', '500m'], ['0.1', '100m'], ['1000', '1k'],
    ['10000', '10k'], ['1500', '1500'], ['1.5Gi', '1536Mi'], ['1024Mi', '1Gi'], ['2048Mi', '2Gi'], ['1Ki', '1Ki'], ['1.5Ki', '1536'],
    ['2e3', '2e3'], ['1n', '1n'], ['-1', '-1'], ['0.0000000001', '1n'], ['0.0000000005', '1n'], ['3.001n', '4n'], ['1.1E-9', '2e-9'],
    ['0.00000012345', '124n'], ['0.5Mi', '512Ki'], ['100.035Ki', '102435840m'], ['0.05Gi', '53687091200m'],
    // TestQuantityParseEmit
    ['1Mi', '1Mi'], ['1Gi', '1Gi'], ['1000M', '1G'], ['.001Ki', '1024m'], ['.000001Ki', '1024u'], ['.000000001Ki', '1024n'], ['.000000000001Ki', '2n'],
    ['-1Ki', '-1Ki'], ['-1024Mi', '-1Gi'], ['-.001Ki', '-1024m'], ['-.000000000001Ki', '-2n'],
    // TestQuantityString's alternate spellings
    ['307200Ki', '300Mi'], ['1025024Mi', '1001Gi'], ['1024Gi', '1Ti'], ['5000m', '5'], ['0.001T', '1G'], ['1000u', '1m'], ['1.08', '1080m'],
    ['1080000000n', '1080m'], ['.001e12', '1e9'], ['0.001e0', '1e-3'], ['1000e-12', '1e-9'],
  ])('%s is written %s', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it('keeps an input that is already canonical verbatim (TestQuantityString)', () => {
    const kept = ['1Gi', '300Mi', '6Ki', '1001Gi', '1Ti', '5', '500m', '1G', '1m', '80m', '1080m', '300M', '1T', '1234567M', '1234567m', '3k', '1025', '0',
      '1e9', '1e-3', '1e-9', '80e-3', '300e6', '1e12', '1e3', '3e3', '1n', '80n', '1080n', '1u', '80u', '1080u'];
    for (const text of kept) expect(parseQuantity(text).keptText, text).toBe(text);
    for (const text of ['1024Mi', '5000m', '0.5', '1000M', '1.08', '00']) expect(parseQuantity(text).keptText, text).toBeUndefined();
  });

  it('keeps what the int64 fast path judges canonical even when it is not: a sign, leading zeros, "1.", "E", three decimals', () => {
    for (const text of ['+1', '01', '1.', '1.G', '1E3', '1e+3', '+1Ki', '1.001', '12E']) expect(canonical(text), text).toBe(text);
  });

  it('writes no suffix for a DecimalSI exponent past E (the table ends at 10^18)', () => {
    expect(canonical('1000E')).toBe('1');
    expect(canonical('5000E')).toBe('5');
    expect(canonical('1000000E')).toBe('1');
    expect(canonical('1' + '0'.repeat(21))).toBe('1');
  });

  it('caps BinarySI at the int64 maximum, and shows it without a suffix', () => {
    for (const text of ['9Ei', '8Ei', '9223372036854775807Ki']) expect(canonical(text), text).toBe('9223372036854775807');
    expect(canonical('-9Ei')).toBe('-9223372036854775807');
    expect(canonical('7Ei')).toBe('7Ei');
    expect(canonical('12E')).toBe('12E');
    expect(canonical('12000E')).toBe('12');
  });

  it('keeps huge exponents short both ways', () => {
    expect(canonical('1e999999999')).toBe('1e999999999');
    expect(canonical('1e1000000')).toBe('10e999999');
    expect(canonical('-1e1000000')).toBe('-10e999999');
    expect(canonical('1e-999999999')).toBe('1e-9');
    expect(canonical('-1e-999999999')).toBe('-1e-9');
    expect(canonical(`${'9'.repeat(10000)}e-999999999`)).toBe('1e-9');
    expect(canonical('1E-1000000')).toBe('1e-9');
    expect(canonical('1.5k')).toBe('1500');
  });

  it('truncates an exponent to int32 as the suffixer does, and wraps the scale as Go does', () => {
    expect(parseQuantity('1e4294967296').compare(parseQuantity('1'))).toBe(0);
    expect(canonical('1e4294967296')).toBe('1e4294967296');
    expect(canonical('10e2147483647')).toBe('10e2147483647');
    expect(canonical('1.5e-2147483648')).toBe('150e2147483646');
  });

  it('parses a number part without digits as zero', () => {
    for (const text of ['Gi', 'm', 'k', '-', '+', '.', '-.', '.Ki', '0Ki', '-0']) expect(canonical(text), text).toBe('0');
    expect(parseQuantity('Gi').format).toBe('BinarySI');
  });
});

describe('parsed values and formats (TestQuantityParse)', () => {
  const table: readonly (readonly [string, string, QuantityFormat])[] = [
    ['0', '0', 'DecimalSI'], ['0n', '0', 'DecimalSI'], ['0Ki', '0', 'BinarySI'], ['0Ti', '0', 'BinarySI'], ['0T', '0', 'DecimalSI'],
    ['1', '1', 'DecimalSI'], ['1Ki', '1024', 'BinarySI'], ['8Ki', '8192', 'BinarySI'], ['7Mi', '7340032', 'BinarySI'], ['6Gi', '6442450944', 'BinarySI'],
    ['5Ti', '5497558138880', 'BinarySI'], ['4Pi', '4503599627370496', 'BinarySI'], ['3Ei', '3458764513820540928', 'BinarySI'],
    ['10Ti', '10995116277760', 'BinarySI'], ['100Ti', '109951162777600', 'BinarySI'],
    ['5n', '5e-9', 'DecimalSI'], ['4u', '4e-6', 'DecimalSI'], ['3m', '3e-3', 'DecimalSI'], ['9', '9', 'DecimalSI'], ['8k', '8e3', 'DecimalSI'],
    ['50k', '5e4', 'DecimalSI'], ['7M', '7e6', 'DecimalSI'], ['6G', '6e9', 'DecimalSI'], ['5T', '5e12', 'DecimalSI'], ['40T', '4e13', 'DecimalSI'],
    ['300T', '3e14', 'DecimalSI'], ['2P', '2e15', 'DecimalSI'], ['1E', '1e18', 'DecimalSI'],
    ['1E-3', '1e-3', 'DecimalExponent'], ['1e3', '1e3', 'DecimalExponent'], ['1E6', '1e6', 'DecimalExponent'], ['1e9', '1e9', 'DecimalExponent'],
    ['1E12', '1e12', 'DecimalExponent'], ['1e15', '1e15', 'DecimalExponent'], ['1E18', '1e18', 'DecimalExponent'], ['1e14', '1e14', 'DecimalExponent'],
    ['100.035k', '100035', 'DecimalSI'], ['0.001', '1e-3', 'DecimalSI'], ['0.0005k', '5e-1', 'DecimalSI'], ['0.005', '5e-3', 'DecimalSI'],
    ['0.05', '5e-2', 'DecimalSI'], ['0.5', '5e-1', 'DecimalSI'], ['0.00050k', '5e-1', 'DecimalSI'], ['0.00500', '5e-3', 'DecimalSI'],
    ['0.50000', '5e-1', 'DecimalSI'], ['0.5e0', '5e-1', 'DecimalExponent'], ['0.5e-1', '5e-2', 'DecimalExponent'], ['0.5e-2', '5e-3', 'DecimalExponent'],
    ['10.035M', '10035e3', 'DecimalSI'], ['1.2e3', '12e2', 'DecimalExponent'], ['1.3E+6', '13e5', 'DecimalExponent'], ['1.40e9', '14e8', 'DecimalExponent'],
    ['1.53E12', '153e10', 'DecimalExponent'], ['1.6e15', '16e14', 'DecimalExponent'], ['1.7E18', '17e17', 'DecimalExponent'],
    ['9.01', '901e-2', 'DecimalSI'], ['8.1k', '81e2', 'DecimalSI'], ['7.123456M', '7123456', 'DecimalSI'], ['6.987654321G', '6987654321', 'DecimalSI'],
    ['5.444T', '5444e9', 'DecimalSI'], ['40.1T', '401e11', 'DecimalSI'], ['300.2T', '3002e11', 'DecimalSI'], ['2.5P', '25e14', 'DecimalSI'], ['1.01E', '101e16', 'DecimalSI'],
    ['3.001n', '4e-9', 'DecimalSI'], ['1.1E-9', '2e-9', 'DecimalExponent'], ['0.0000000001', '1e-9', 'DecimalSI'], ['0.0000000005', '1e-9', 'DecimalSI'],
    ['0.00000000050', '1e-9', 'DecimalSI'], ['0.5e-9', '1e-9', 'DecimalExponent'], ['0.9n', '1e-9', 'DecimalSI'], ['0.00000012345', '124e-9', 'DecimalSI'],
    ['0.00000012354', '124e-9', 'DecimalSI'], ['9Ei', '9223372036854775807', 'BinarySI'], ['9223372036854775807Ki', '9223372036854775807', 'BinarySI'],
    ['12E', '12e18', 'DecimalSI'], ['100.035Ki', '10243584e-2', 'BinarySI'], ['0.5Mi', '524288', 'BinarySI'], ['0.05Gi', '536870912e-1', 'BinarySI'],
    ['0.025Ti', '274877906944e-1', 'BinarySI'], ['0.000000000001Ki', '2e-9', 'DecimalSI'], ['.001', '1e-3', 'DecimalSI'], ['.0001k', '100e-3', 'DecimalSI'],
    ['1.', '1', 'DecimalSI'], ['1.G', '1e9', 'DecimalSI'],
  ];

  it.each(table)('%s is %s in %s, and so with either sign', (input, value, format) => {
    const expected = parseQuantity(value);
    for (const [prefix, signed] of [['', expected], ['+', expected], ['-', parseQuantity(value === '0' ? '0' : `-${value}`)]] as const) {
      const got = parseQuantity(prefix + input);
      expect(got.compare(signed), prefix + input).toBe(0);
      expect(got.format, prefix + input).toBe(format);
    }
  });
});

describe('refused quantities', () => {
  const { formatWrong, numeric, suffix } = quantityErrorMessages;

  it('carry apimachinery\'s three messages', () => {
    expect(formatWrong).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(numeric).toBe('unable to parse numeric part of quantity');
    expect(suffix).toBe("unable to parse quantity's suffix");
  });

  it.each([
    ['', formatWrong], ['abc', formatWrong], ['aoeu', formatWrong], ['Non-Numeric', formatWrong], ['1.5.5', formatWrong], ['1.1.M', formatWrong],
    ['1+1.0M', formatWrong], ['0.1am', formatWrong], [' 1', formatWrong], ['1 ', formatWrong], ['1Gib', formatWrong], ['1 Gi', formatWrong],
    ['1e', suffix], ['1Kii', suffix], ['0.1mi', suffix], ['.5i', suffix], ['1i', suffix], ['-3.01i', suffix], ['-3.01e-', suffix], ['1e+', suffix],
    ['1ki', suffix], ['1Ee5', suffix], ['1e9223372036854775808', suffix],
    // The slow path reads the number part as an inf.Dec, which needs a digit.
    ['e-10', numeric], ['-e-10', numeric], ['.e-10', numeric], ['Ei', numeric], ['.Pi', numeric],
  ])('%j: %s', (input, message) => {
    expect(parseError(input)).toBe(message);
  });
});

describe('Quantity.UnmarshalJSON of a decoded value', () => {
  it('trims a string and reads a number from its text (TestJSONWhitespace)', () => {
    const text = (raw: unknown): string => formatQuantity(quantityFromJson(raw));
    expect(text(' 1')).toBe('1');
    expect(text('1 ')).toBe('1');
    expect(text(' 100m ')).toBe('100m');
    expect(text('\u00a01Gi\u3000')).toBe('1Gi');
    expect(text(1)).toBe('1');
    expect(text(10)).toBe('10');
    expect(text(-1)).toBe('-1');
    expect(text(0.5)).toBe('500m');
    expect(text(1e21)).toBe('1e+21');
  });

  it('refuses other JSON types, and a string that held an escape, with ErrFormatWrong', () => {
    for (const raw of [true, false, {}, { n: 1 }, [], ['1'], null, '\t1', '1\n', 'a"b']) {
      expect(() => quantityFromJson(raw), JSON.stringify(raw)).toThrow(new QuantityError(quantityErrorMessages.formatWrong));
    }
    expect(() => quantityFromJson('1e')).toThrow(quantityErrorMessages.suffix);
  });
});

describe('comparison and scaled values', () => {
  it('compares exactly, whatever the representation or size (TestQuantityCmp)', () => {
    const compare = (left: string, right: string): number => parseQuantity(left).compare(parseQuantity(right));
    expect(compare('0', '0')).toBe(0);
    expect(compare('100m', '50m')).toBe(1);
    expect(compare('50m', '100m')).toBe(-1);
    expect(compare('10000T', '100Gi')).toBe(1);
    expect(compare('1Ki', '1024')).toBe(0);
    expect(compare('1e999999999', '1e999999998')).toBe(1);
    expect(compare('-1e999999999', '1')).toBe(-1);
    expect(compare('1.000000001', '1')).toBe(1);
    expect(compare(`${'9'.repeat(10000)}`, `1e10000`)).toBe(-1);
    expect(parseQuantity('-5m').sign()).toBe(-1);
    expect(parseQuantity('0Ki').sign()).toBe(0);
  });

  it('rounds ScaledValue up as kube does (TestScaledValue)', () => {
    const cases: readonly (readonly [string, number, bigint])[] = [
      ['1n', -9, 1n], ['1n', -6, 1n], ['1n', -3, 1n], ['1n', 0, 1n], ['1u', -9, 1000n], ['1u', -6, 1n], ['1u', -3, 1n], ['1u', 0, 1n],
      ['1m', -9, 1_000_000n], ['1m', -6, 1000n], ['1m', -3, 1n], ['1m', 0, 1n], ['1', -9, 1_000_000_000n], ['1', -6, 1_000_000n],
      ['1', -3, 1000n], ['1', 0, 1n], ['1e2', -2, 10_000n],
    ];
    for (const [text, scale, expected] of cases) expect(parseQuantity(text).scaledValue(scale), `${text} at ${scale}`).toBe(expected);
  });

  it('reproduces Value and MilliValue at the edges: away from zero for an int64 amount, towards +∞ for an inf.Dec, int64 overflow', () => {
    expect(parseQuantity('1.5').value()).toBe(2n);
    expect(parseQuantity('-1.5').value()).toBe(-2n);
    expect(parseQuantity('-0.0000000001').value()).toBe(1n);
    expect(parseQuantity('0.9999').milliValue()).toBe(1000n);
    expect(parseQuantity('1e999999999').value()).toBe(0n);
    expect(parseQuantity('9Ei').value()).toBe(9223372036854775807n);
    expect(parseQuantity('9Ei').milliValue()).toBe(-1000n);
  });
});

describe('cost', () => {
  it('parses and prints huge exponents and long mantissas quickly, as short strings', () => {
    const started = performance.now();
    for (const text of ['1e999999999', '-1e999999999', '1e-999999999', `${'9'.repeat(10000)}e-999999999`, '1e100000000', `0.${'7'.repeat(100000)}Ki`]) {
      const quantity = parseQuantity(text);
      expect(formatQuantity(quantity).length, text).toBeLessThan(40);
      quantity.value();
      quantity.milliValue();
      quantity.compare(parseQuantity('1'));
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
