// Owns: the registry's use of resource.Quantity (reading a ResourceList's quantities, writing
// them in their canonical form, the quantity validations ValidateNonnegativeQuantity and
// ValidatePositiveQuantityValue; api/quantity.ts owns the type itself), the resource-name rules
// of quota and limit ranges, and the strategies of ResourceQuota and LimitRange (defaults,
// validation). Storage and scheduling kinds reuse the quantity helpers (strategy-storage.ts).
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, isQualifiedName } from './validation.ts';
import { fields, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';
import { QuantityError, formatQuantity, quantityErrorMessages, quantityFromJson } from '../quantity.ts';
import type { Quantity } from '../quantity.ts';

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

// ---- resource.Quantity (api/quantity.ts owns parsing and the canonical form) ----

export const quantityPatternMessage = quantityErrorMessages.formatWrong;
export { formatQuantity };
export type { Quantity };

/** The quantity a decoded JSON value holds (Quantity.UnmarshalJSON), or its QuantityError. */
function readQuantity(value: JsonValue | undefined): Quantity | QuantityError {
  try {
    return quantityFromJson(value);
  } catch (error) {
    if (error instanceof QuantityError) return error;
    throw error;
  }
}

/** The quantity a stored JSON value holds, or undefined when it is not one. */
export function parseQuantity(value: JsonValue | undefined): Quantity | undefined {
  const quantity = readQuantity(value);
  return quantity instanceof QuantityError ? undefined : quantity;
}

/** The quantity at a ResourceList entry, or a cause with apimachinery's parse error when it does not parse. */
export function quantityAt(field: string, value: JsonValue | undefined, causes: StatusCause[]): Quantity | undefined {
  const quantity = readQuantity(value);
  if (quantity instanceof QuantityError) {
    causes.push(invalidValue(field, value ?? null, quantity.message));
    return undefined;
  }
  return quantity;
}

/** ValidateNonnegativeQuantity. */
export function nonNegativeQuantityCauses(field: string, quantity: Quantity): StatusCause[] {
  return quantity.sign() < 0 ? [invalidValue(field, formatQuantity(quantity), 'must be greater than or equal to 0')] : [];
}

/** ValidatePositiveQuantityValue. */
export function positiveQuantityCauses(field: string, quantity: Quantity): StatusCause[] {
  return quantity.sign() <= 0 ? [invalidValue(field, formatQuantity(quantity), 'must be greater than zero')] : [];
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

/** ValidateResourceQuantityValue: not negative, and whole for integer resources (kube asks MilliValue()%1000, so 0.9999 passes). */
function resourceQuantityCauses(field: string, name: string, quantity: Quantity): StatusCause[] {
  const causes = nonNegativeQuantityCauses(field, quantity);
  if (isIntegerResource(name) && quantity.milliValue() % 1000n !== 0n) causes.push(invalidValue(field, formatQuantity(quantity), 'must be an integer'));
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

/** ResourceQuotaSpec is a struct: Go writes it as {} when the body had none. (Its quantities are canonical since the decode.) */
function withSpec(object: KubeObject): void {
  object['spec'] = { ...specOf(object) };
}

export const resourceQuotaStrategy: Strategy = {
  // kube: PUT of an absent ResourceQuota is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['status'] = {};
    withSpec(object);
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    withSpec(object);
  },
  validate: resourceQuotaCauses,
  validateUpdate: (object, old) => immutable('spec.scopes', specOf(object)['scopes'], specOf(old)['scopes']),
};

// ---- LimitRange ----

const limitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];
const limitLists = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

/** SetDefaults_LimitRangeItem: a Container item's default limit falls back to max, its default request to the default limit, then to min. */
function defaultLimitItem(item: Fields): Fields {
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

/** Go's %f of a float64: six decimals, rounded half to even on the double's exact value. */
function goFixedSix(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const negative = view.getUint32(0) >>> 31 === 1;
  const biased = (view.getUint32(0) >>> 20) & 0x7ff;
  const fraction = (BigInt(view.getUint32(0) & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  // |value| = significand × 2^power exactly.
  const significand = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075;
  let numerator = significand * 1_000_000n;
  let denominator = 1n;
  if (power >= 0) numerator <<= BigInt(power);
  else denominator <<= BigInt(-power);
  let millionths = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  if (twiceRemainder > denominator || (twiceRemainder === denominator && millionths % 2n === 1n)) millionths += 1n;
  const digits = millionths.toString().padStart(7, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

const maxMilliValue = ((1n << 63n) - 1n) / 1000n;
const one = quantityFromJson('1');

/**
 * ValidateLimitRange's ratio check: the ratio against max/min as float64s of Value(), or of
 * MilliValue() when all three are below MaxMilliValue; the limit as %f prints it, or undefined
 * when the ratio does not exceed it.
 */
function ratioLimitExceeded(ratio: Quantity, min: Quantity, max: Quantity): string | undefined {
  let ratioValue = Number(ratio.value());
  let minValue = min.value();
  let maxValue = max.value();
  if (ratio.value() < maxMilliValue && minValue < maxMilliValue && maxValue < maxMilliValue) {
    ratioValue = Number(ratio.milliValue()) / 1000;
    minValue = min.milliValue();
    maxValue = max.milliValue();
  }
  const limit = Number(maxValue) / Number(minValue);
  return ratioValue > limit ? goFixedSix(limit) : undefined;
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
    if (min && max && min.compare(max) > 0) causes.push(invalidValue(`${at}.min[${name}]`, text(min), `min value ${text(min)} is greater than max value ${text(max)}`));
    if (request && min && min.compare(request) > 0) causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `min value ${text(min)} is greater than default request value ${text(request)}`));
    if (request && max && request.compare(max) > 0) causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `default request value ${text(request)} is greater than max value ${text(max)}`));
    if (request && limit && request.compare(limit) > 0) causes.push(invalidValue(`${at}.defaultRequest[${name}]`, text(request), `default request value ${text(request)} is greater than default limit value ${text(limit)}`));
    if (limit && min && min.compare(limit) > 0) causes.push(invalidValue(`${at}.default[${name}]`, text(min), `min value ${text(min)} is greater than default value ${text(limit)}`));
    if (limit && max && limit.compare(max) > 0) causes.push(invalidValue(`${at}.default[${name}]`, text(max), `default value ${text(limit)} is greater than max value ${text(max)}`));
    if (ratio && ratio.compare(one) < 0) causes.push(invalidValue(`${at}.maxLimitRequestRatio[${name}]`, text(ratio), `ratio ${text(ratio)} is less than 1`));
    const exceededLimit = ratio && min && max ? ratioLimitExceeded(ratio, min, max) : undefined;
    if (ratio && exceededLimit !== undefined) {
      causes.push(invalidValue(`${at}.maxLimitRequestRatio[${name}]`, text(ratio), `ratio ${text(ratio)} is greater than max/min = ${exceededLimit}`));
    }
    if (!overcommitAllowed(name) && limit && request && limit.compare(request) !== 0) {
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
