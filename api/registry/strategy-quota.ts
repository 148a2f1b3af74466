// Owns: resource.Quantity as kube reads and writes it (parsing, comparison, the canonical form a
// stored quantity takes), the resource-name rules of quota and limit ranges, and the
// strategies of ResourceQuota and LimitRange (defaults, validation). Storage kinds reuse the
// quantity helpers (strategy-storage.ts).
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, isQualifiedName } from './validation.ts';
import { fields, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

export function isFields(value: JsonValue | undefined): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sortedJson(value: JsonValue | undefined): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (isFields(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${sortedJson(value[key])}`).join(',')}}`;
  return JSON.stringify(value ?? null);
}

/** Deep equality of two JSON values (key order ignored). */
export function sameJson(left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  return sortedJson(left) === sortedJson(right);
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

export function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail === '' ? 'Required value' : `Required value: ${detail}`, field };
}

export function notSupported(field: string, value: JsonValue, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

export function immutable(field: string, value: JsonValue | undefined, old: JsonValue | undefined): StatusCause[] {
  return sameJson(value, old) ? [] : [invalidValue(field, value ?? null, 'field is immutable')];
}

// ---- resource.Quantity ----

export const quantityPatternMessage = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** A parsed quantity: its value in nano units (kube keeps at most nano precision, rounding up) and how it was written. */
export interface Quantity {
  readonly nanos: bigint;
  readonly format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent';
}

const binarySuffixes: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const nanosPerUnit = 1_000_000_000n;

function ceilDivide(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator > 0n ? quotient + 1n : quotient;
}

/** resource.ParseQuantity: undefined when the text is not a quantity. A JSON number is read as its text. */
export function parseQuantity(value: JsonValue | undefined): Quantity | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = /^([+-]?)([0-9]*\.?[0-9]*)(.*)$/.exec(text);
  if (match === null) return undefined;
  const [, sign = '', number = '', suffix = ''] = match;
  if (!/[0-9]/.test(number)) return undefined;
  const [whole = '', fraction = ''] = number.split('.');
  let digits = BigInt(`${whole}${fraction}` || '0');
  let scale = -fraction.length;
  let format: Quantity['format'];
  let binaryShift = 0;
  if (Object.hasOwn(binarySuffixes, suffix)) {
    format = 'BinarySI';
    binaryShift = binarySuffixes[suffix]!;
  } else if (Object.hasOwn(decimalSuffixes, suffix)) {
    format = 'DecimalSI';
    scale += decimalSuffixes[suffix]!;
  } else {
    const exponent = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
    if (exponent === null) return undefined;
    format = 'DecimalExponent';
    scale += Number(exponent[1]);
  }
  digits <<= BigInt(binaryShift);
  const shift = scale + 9;
  const magnitude = shift >= 0 ? digits * 10n ** BigInt(shift) : ceilDivide(digits, 10n ** BigInt(-shift));
  return { nanos: sign === '-' ? -magnitude : magnitude, format };
}

const decimalSuffixOf: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const binarySuffixOf: Readonly<Record<number, string>> = { 0: '', 10: 'Ki', 20: 'Mi', 30: 'Gi', 40: 'Ti', 50: 'Pi', 60: 'Ei' };

/** Quantity.String(): the canonical form kube stores and prints ("1536Mi", "500m", "2k", "1e3"). */
export function formatQuantity(quantity: Quantity): string {
  const { nanos } = quantity;
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const magnitude = negative ? -nanos : nanos;
  const sign = negative ? '-' : '';
  const binary = quantity.format === 'BinarySI' && magnitude >= 1024n * nanosPerUnit && magnitude % nanosPerUnit === 0n;
  if (binary) {
    let mantissa = magnitude / nanosPerUnit;
    let exponent = 0;
    while (mantissa % 1024n === 0n && exponent < 60) {
      mantissa /= 1024n;
      exponent += 10;
    }
    return `${sign}${mantissa}${binarySuffixOf[exponent]}`;
  }
  let mantissa = magnitude;
  let exponent = -9;
  while (mantissa % 1000n === 0n && exponent < 18) {
    mantissa /= 1000n;
    exponent += 3;
  }
  const suffix = quantity.format === 'DecimalExponent' ? (exponent === 0 ? '' : `e${exponent}`) : decimalSuffixOf[exponent]!;
  return `${sign}${mantissa}${suffix}`;
}

/** A ResourceList with every parseable quantity in its canonical form (others left for validation to report). */
export function canonicalResourceList(value: JsonValue | undefined): JsonValue | undefined {
  if (!isFields(value)) return value;
  const result: Fields = {};
  for (const [name, raw] of Object.entries(value)) {
    const quantity = parseQuantity(raw);
    result[name] = quantity === undefined ? raw : formatQuantity(quantity);
  }
  return result;
}

/** Canonicalises the ResourceList at `key` of `holder`, if present. */
export function canonicaliseIn(holder: Fields, key: string): void {
  if (holder[key] !== undefined) holder[key] = canonicalResourceList(holder[key])!;
}

/** The quantity at a ResourceList entry, or a cause when it does not parse. */
export function quantityAt(field: string, value: JsonValue | undefined, causes: StatusCause[]): Quantity | undefined {
  const quantity = parseQuantity(value);
  if (quantity === undefined) causes.push(invalidValue(field, value ?? null, quantityPatternMessage));
  return quantity;
}

/** ValidateNonnegativeQuantity. */
export function nonNegativeQuantityCauses(field: string, quantity: Quantity): StatusCause[] {
  return quantity.nanos < 0n ? [invalidValue(field, formatQuantity(quantity), 'must be greater than or equal to 0')] : [];
}

/** ValidatePositiveQuantityValue. */
export function positiveQuantityCauses(field: string, quantity: Quantity): StatusCause[] {
  return quantity.nanos <= 0n ? [invalidValue(field, formatQuantity(quantity), 'must be greater than zero')] : [];
}

// ---- resource names ----

const integerResources = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);
const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims', 'storage',
  'requests.storage', 'services.nodeports', 'services.loadbalancers', 'configmaps',
]);
const standardQuotaResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers',
]);

function isHugePages(name: string): boolean {
  return name.startsWith('hugepages-') || name.startsWith('requests.hugepages-') || name.startsWith('limits.hugepages-');
}

/** A name with a domain outside kubernetes.io (an extended resource, e.g. example.com/gpu). */
function isExtendedResource(name: string): boolean {
  const unprefixed = name.startsWith('requests.') ? name.slice('requests.'.length) : name;
  if (!unprefixed.includes('/') || unprefixed.startsWith('kubernetes.io/') || unprefixed.includes('.kubernetes.io/')) return false;
  return isQualifiedName(unprefixed).length === 0;
}

/** helper.IsIntegerResourceName: resources whose quantities must be whole numbers. */
function isIntegerResource(name: string): boolean {
  return integerResources.has(name) || name.startsWith('count/') || isExtendedResource(name);
}

/** validateResourceName: a qualified name, and a standard resource when it has no domain. */
export function resourceNameCauses(field: string, name: string): StatusCause[] {
  const problems = isQualifiedName(name);
  if (problems.length > 0) return problems.map((problem) => invalidValue(field, name, problem));
  if (!name.includes('/') && !standardResources.has(name) && !isHugePages(name)) return [invalidValue(field, name, 'must be a standard resource type or fully qualified')];
  return [];
}

/** ValidateResourceQuotaResourceName. */
function quotaResourceNameCauses(field: string, name: string): StatusCause[] {
  const causes = resourceNameCauses(field, name);
  if (!name.includes('/') && !standardQuotaResources.has(name) && !isHugePages(name)) causes.push(invalidValue(field, name, 'must be a standard resource for quota'));
  return causes;
}

/** ValidateResourceQuantityValue: not negative, and whole for integer resources. */
function resourceQuantityCauses(field: string, name: string, quantity: Quantity): StatusCause[] {
  const causes = nonNegativeQuantityCauses(field, quantity);
  if (isIntegerResource(name) && quantity.nanos % nanosPerUnit !== 0n) causes.push(invalidValue(field, formatQuantity(quantity), 'must be an integer'));
  return causes;
}

function quotaListCauses(field: string, list: JsonValue | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [name, raw] of Object.entries(fields(list))) {
    const at = `${field}[${name}]`;
    causes.push(...quotaResourceNameCauses(at, name));
    const quantity = quantityAt(at, raw, causes);
    if (quantity !== undefined) causes.push(...resourceQuantityCauses(at, name, quantity));
  }
  return causes;
}

// ---- ResourceQuota ----

const quotaScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const scopeOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
/** Resources a scope can track (kube's scope-to-resource rules: the terminating and best-effort scopes cover pod resources only). */
const podObjectCountResources = new Set(['pods', 'count/pods']);
const podComputeResources = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory', 'ephemeral-storage', 'requests.ephemeral-storage', 'limits.ephemeral-storage']);

function scopeCoversResource(scope: string, resource: string): boolean {
  if (scope === 'BestEffort' || scope === 'NotBestEffort') return podObjectCountResources.has(resource);
  return podObjectCountResources.has(resource) || podComputeResources.has(resource) || isHugePages(resource);
}

/** validateResourceQuotaScopes and validateScopeSelector. */
function quotaScopeCauses(spec: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  const scopes = Array.isArray(spec['scopes']) ? spec['scopes'].map(String) : [];
  const hard = Object.keys(fields(spec['hard']));
  for (const scope of scopes) {
    if (!quotaScopes.includes(scope)) causes.push(invalidValue('spec.scopes', scopes, 'unsupported scope'));
    else if (scope !== 'PriorityClass' && scope !== 'CrossNamespacePodAffinity') {
      for (const resource of hard) {
        if (!scopeCoversResource(scope, resource)) causes.push(invalidValue('spec.hard', hard, 'unsupported scope applied to resource'));
      }
    }
  }
  const conflicting = (a: string, b: string): boolean => scopes.includes(a) && scopes.includes(b);
  if (conflicting('Terminating', 'NotTerminating') || conflicting('BestEffort', 'NotBestEffort')) causes.push(invalidValue('spec.scopes', scopes, 'conflicting scopes'));
  const selector = fields(spec['scopeSelector']);
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  expressions.forEach((raw, index) => {
    const expression = fields(raw);
    const at = `spec.scopeSelector.matchExpressions[${index}]`;
    const scopeName = String(expression['scopeName'] ?? '');
    if (!quotaScopes.includes(scopeName)) causes.push(invalidValue(`${at}.scopeName`, scopeName, 'unsupported scope'));
    const operator = String(expression['operator'] ?? '');
    if (!scopeOperators.includes(operator)) causes.push(invalidValue(`${at}.operator`, operator, 'not a valid selector operator'));
    const values = Array.isArray(expression['values']) ? expression['values'] : [];
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
      causes.push(invalidValue(at, expression, 'must be at least one value when `operator` is \'In\' or \'NotIn\' for scope selector'));
    }
    if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
      causes.push(invalidValue(at, expression, 'must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector'));
    }
  });
  return causes;
}

export function resourceQuotaCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const status = fields(object['status'] as JsonValue | undefined);
  return [
    ...quotaListCauses('spec.hard', spec['hard']),
    ...quotaScopeCauses(spec),
    ...quotaListCauses('status.hard', status['hard']),
    ...quotaListCauses('status.used', status['used']),
  ];
}

function canonicalQuota(object: KubeObject): void {
  const spec = { ...specOf(object) };
  canonicaliseIn(spec, 'hard');
  object['spec'] = spec;
  if (isFields(object['status'] as JsonValue | undefined)) {
    const status = { ...fields(object['status'] as JsonValue) };
    canonicaliseIn(status, 'hard');
    canonicaliseIn(status, 'used');
    object['status'] = status;
  }
}

export const resourceQuotaStrategy: Strategy = {
  // kube: PUT of an absent ResourceQuota is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['status'] = {};
    canonicalQuota(object);
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    canonicalQuota(object);
  },
  validate: resourceQuotaCauses,
  validateUpdate: (object, old) => immutable('spec.scopes', specOf(object)['scopes'], specOf(old)['scopes']),
};

// ---- LimitRange ----

const limitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];
const limitLists = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

/** SetDefaults_LimitRangeItem: a Container item's default limit falls back to max, its default request to the default limit, then to min. */
function defaultLimitItem(item: Fields): Fields {
  for (const list of limitLists) canonicaliseIn(item, list);
  if (item['type'] !== 'Container') return item;
  const defaults: Fields = { ...fields(item['default']) };
  const requests: Fields = { ...fields(item['defaultRequest']) };
  for (const [name, value] of Object.entries(fields(item['max']))) if (!Object.hasOwn(defaults, name)) defaults[name] = value;
  for (const [name, value] of Object.entries(defaults)) if (!Object.hasOwn(requests, name)) requests[name] = value;
  for (const [name, value] of Object.entries(fields(item['min']))) if (!Object.hasOwn(requests, name)) requests[name] = value;
  const result: Fields = { ...item };
  if (Object.keys(defaults).length > 0) result['default'] = defaults;
  if (Object.keys(requests).length > 0) result['defaultRequest'] = requests;
  return result;
}

function defaultLimitRange(object: KubeObject): void {
  const spec = { ...specOf(object) };
  if (Array.isArray(spec['limits'])) spec['limits'] = spec['limits'].map((item) => defaultLimitItem({ ...fields(item) }));
  object['spec'] = spec;
}

/** validateLimitRangeTypeName. */
function limitTypeCauses(field: string, type: string): StatusCause[] {
  const problems = isQualifiedName(type);
  if (problems.length > 0) return problems.map((problem) => invalidValue(field, type, problem));
  return !type.includes('/') && !limitTypes.includes(type) ? [invalidValue(field, type, 'must be a standard limit type or fully qualified')] : [];
}

/** validateLimitRangeResourceName: pods and containers take container resources only. */
function limitResourceCauses(type: string, field: string, name: string): StatusCause[] {
  const causes = resourceNameCauses(field, name);
  if (type !== 'Pod' && type !== 'Container') return causes;
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !name.startsWith('hugepages-')) causes.push(invalidValue(field, name, 'must be a standard resource for containers'));
  } else if (!name.startsWith('kubernetes.io/') && !isExtendedResource(name)) {
    causes.push(invalidValue(field, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

function overcommitAllowed(name: string): boolean {
  return (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name === 'storage' || name.startsWith('kubernetes.io/')) && !name.startsWith('hugepages-');
}

/** The ratio max/min as Go's %f prints it (6 decimals). */
function ratioText(max: Quantity, min: Quantity): string {
  return min.nanos === 0n ? '+Inf' : (Number(max.nanos) / Number(min.nanos)).toFixed(6);
}

function limitItemCauses(item: Fields, at: string, seen: Set<string>): StatusCause[] {
  const type = String(item['type'] ?? '');
  const causes = limitTypeCauses(`${at}.type`, type);
  if (seen.has(type)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(type)}`, field: `${at}.type` });
  seen.add(type);
  const parsed: Record<(typeof limitLists)[number], Map<string, Quantity>> = { max: new Map(), min: new Map(), default: new Map(), defaultRequest: new Map(), maxLimitRequestRatio: new Map() };
  const keys = new Set<string>();
  for (const list of limitLists) {
    if (list === 'maxLimitRequestRatio' && type === 'Pod') continue;
    for (const [name, raw] of Object.entries(fields(item[list]))) {
      const field = `${at}.${list}[${name}]`;
      causes.push(...limitResourceCauses(type, field, name));
      const quantity = quantityAt(field, raw, causes);
      keys.add(name);
      if (quantity !== undefined) parsed[list].set(name, quantity);
    }
  }
  if (type === 'Pod') {
    if (Object.keys(fields(item['default'])).length > 0) causes.push(forbidden(`${at}.default`, "may not be specified when `type` is 'Pod'"));
    if (Object.keys(fields(item['defaultRequest'])).length > 0) causes.push(forbidden(`${at}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
  }
  if (type === 'PersistentVolumeClaim' && !Object.hasOwn(fields(item['min']), 'storage') && !Object.hasOwn(fields(item['max']), 'storage')) {
    causes.push(required(`${at}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  const text = formatQuantity;
  for (const name of keys) {
    const min = parsed.min.get(name);
    const max = parsed.max.get(name);
    const limit = parsed.default.get(name);
    const request = parsed.defaultRequest.get(name);
    const ratio = parsed.maxLimitRequestRatio.get(name);
    if (min && max && min.nanos > max.nanos) causes.push(invalidValue(`${at}.min[${name}]`, text(min), `min value ${text(min)} is greater than max value ${text(max)}`));
    if (request && min && min.nanos > request.nanos) causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `min value ${text(min)} is greater than default request value ${text(request)}`));
    if (request && max && request.nanos > max.nanos) causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `default request value ${text(request)} is greater than max value ${text(max)}`));
    if (request && limit && request.nanos > limit.nanos) causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `default request value ${text(request)} is greater than default limit value ${text(limit)}`));
    if (limit && min && min.nanos > limit.nanos) causes.push(invalidValue(`${at}.default[${name}]`, text(min), `min value ${text(min)} is greater than default value ${text(limit)}`));
    if (limit && max && limit.nanos > max.nanos) causes.push(invalidValue(`${at}.default[${name}]`, text(max), `default value ${text(limit)} is greater than max value ${text(max)}`));
    if (ratio && ratio.nanos < nanosPerUnit) causes.push(invalidValue(`${at}.maxLimitRequestRatio[${name}]`, text(ratio), `ratio ${text(ratio)} is less than 1`));
    if (ratio && min && max && min.nanos > 0n && ratio.nanos * min.nanos > max.nanos * nanosPerUnit) {
      causes.push(invalidValue(`${at}.maxLimitRequestRatio[${name}]`, text(ratio), `ratio ${text(ratio)} is greater than max/min = ${ratioText(max, min)}`));
    }
    if (!overcommitAllowed(name) && limit && request && limit.nanos !== request.nanos) {
      causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `default value ${text(limit)} must equal to defaultRequest value ${text(request)} in ${name}`));
    }
  }
  return causes;
}

export function limitRangeCauses(object: KubeObject): StatusCause[] {
  const limits = specOf(object)['limits'];
  const seen = new Set<string>();
  return (Array.isArray(limits) ? limits : []).flatMap((item, index) => limitItemCauses(fields(item), `spec.limits[${index}]`, seen));
}

export const limitRangeStrategy: Strategy = {
  // kube: PUT of an absent LimitRange is 404.
  allowCreateOnUpdate: false,
  prepareForCreate: defaultLimitRange,
  prepareForUpdate: (object) => defaultLimitRange(object),
  validate: limitRangeCauses,
};
