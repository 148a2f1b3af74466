// Owns: the cron schedule rules CronJobs are validated with, as kube-apiserver 1.33 has them:
// kube parses spec.schedule with github.com/robfig/cron/v3's ParseStandard (five fields:
// minute, hour, day of month, month, day of week; or a descriptor: @yearly, @annually,
// @monthly, @weekly, @daily, @midnight, @hourly, `@every <Go duration>`; an optional leading
// TZ=<zone> or CRON_TZ=<zone>), and reports the parser's error text as the cause message; and
// it checks spec.timeZone against the tz database (Go's time.LoadLocation). Zones are checked
// against the IANA database ICU carries (Intl), with the tz database's naming rules (names are
// case-sensitive and every component starts with a capital letter, as the zoneinfo files are
// named). Pure functions: a schedule's error message, or undefined when it parses.
import { parseGoDurationNanos } from '../go-duration.ts';

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const daysOfMonth: Bounds = { min: 1, max: 31 };
const months: Bounds = {
  min: 1, max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const daysOfWeek: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

class CronError extends Error {}

/** Go's strconv.Quote for the ASCII text a schedule holds. */
function goQuote(text: string): string {
  return JSON.stringify(text);
}

/** strconv.Atoi: a decimal integer with an optional sign, else Go's error text. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new CronError(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || Math.abs(value) > 2 ** 63 - 1) throw new CronError(`strconv.Atoi: parsing ${goQuote(text)}: value out of range`);
  return value;
}

/** robfig's mustParseInt: a non-negative integer. */
function parseNumber(expression: string): number {
  let value: number;
  try {
    value = atoi(expression);
  } catch (error) {
    throw new CronError(`failed to parse int from ${expression}: ${(error as Error).message}`);
  }
  if (value < 0) throw new CronError(`negative number (${value}) not allowed: ${expression}`);
  return value;
}

function parseNumberOrName(expression: string, bounds: Bounds): number {
  const named = bounds.names?.[expression.toLowerCase()];
  return named ?? parseNumber(expression);
}

/** robfig's getRange: `*`, `?`, a number or name, a range, each with an optional `/step`. */
function checkRange(expression: string, bounds: Bounds): void {
  const rangeAndStep = expression.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseNumberOrName(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseNumberOrName(lowAndHigh[1]!, bounds);
    else throw new CronError(`too many hyphens: ${expression}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (single) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expression}`);
  }
  if (start < bounds.min) throw new CronError(`beginning of range (${start}) below minimum (${bounds.min}): ${expression}`);
  if (end > bounds.max) throw new CronError(`end of range (${end}) above maximum (${bounds.max}): ${expression}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expression}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expression}`);
}

/** robfig's getField: comma-separated ranges (empty ones are skipped, as strings.FieldsFunc does). */
function checkField(field: string, bounds: Bounds): void {
  for (const expression of field.split(',')) {
    if (expression !== '') checkRange(expression, bounds);
  }
}

/** Go's time.ParseDuration, for its error text ("time: invalid duration ..."); the value is not needed. */
function checkGoDuration(text: string): void {
  try {
    parseGoDurationNanos(text);
  } catch (error) {
    throw new CronError(error instanceof Error ? error.message : String(error));
  }
}

/** Go's strings.Fields: split on runs of Unicode white space. */
function goFields(text: string): string[] {
  return text.split(/\s+/u).filter((part) => part !== '');
}

/**
 * robfig/cron/v3 ParseStandard: the parser's error message for a schedule it refuses, else
 * undefined.
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  try {
    let spec = schedule;
    if (spec.length === 0) throw new CronError('empty spec string');
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const space = spec.indexOf(' ');
      const location = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
      const problem = timeZoneProblem(location);
      if (problem !== undefined) throw new CronError(`provided bad location ${location}: ${problem}`);
      spec = space < 0 ? '' : spec.slice(space).trim();
    }
    if (spec.startsWith('@')) {
      if (descriptors.has(spec)) return undefined;
      const every = '@every ';
      if (spec.startsWith(every)) {
        try {
          checkGoDuration(spec.slice(every.length));
        } catch (error) {
          throw new CronError(`failed to parse duration ${spec}: ${(error as Error).message}`);
        }
        return undefined;
      }
      throw new CronError(`unrecognized descriptor: ${spec}`);
    }
    const fields = goFields(spec);
    if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
    const bounds = [minutes, hours, daysOfMonth, months, daysOfWeek];
    fields.forEach((field, position) => checkField(field, bounds[position]!));
    return undefined;
  } catch (error) {
    if (error instanceof CronError) return error.message;
    throw error;
  }
}

/** Whether ICU knows the zone (canonical names and the tz database's links). */
function icuKnowsZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

let canonicalZones: ReadonlySet<string> | undefined;

function isCanonicalZone(name: string): boolean {
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  return canonicalZones.has(name);
}

/**
 * Go's time.LoadLocation over the tz database: undefined when the zone loads, else Go's error
 * ("unknown time zone <name>"). "" and "UTC" are UTC; "Local" is the host's zone.
 */
export function timeZoneProblem(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  if (isCanonicalZone(name)) return undefined;
  // Links (US/Eastern, Etc/GMT+5, EST5EDT): ICU resolves them; the zoneinfo file names are case-sensitive.
  const named = name.split('/').every((part) => /^[A-Z]/.test(part));
  return named && icuKnowsZone(name) ? undefined : `unknown time zone ${name}`;
}
