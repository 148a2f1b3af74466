// Owns: the create/update behaviour of HorizontalPodAutoscalers as kube-apiserver 1.33 has it,
// for both served versions of the one stored object (autoscaling/v2 in storage; autoscaling/v1
// a converted view, hpa-conversion.ts). The defaults (v2: minReplicas 1, the 80% cpu metric,
// a given behavior's unset rules; v1: minReplicas 1), status reset on create and kept from the
// stored object on writes to the main resource (kube's HPA strategy sets no generation), and
// ValidateHorizontalPodAutoscaler over the v2 form: replica bounds (minReplicas at least 1,
// maxReplicas above 0 and not below minReplicas), the scale target reference, the metrics and
// the behavior's scaling rules.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { conditionsAnnotation, defaultV2Spec, hpaV1ToV2, metricStatusesAnnotation } from './hpa-conversion.ts';
import { invalidValue, requiredValue } from './validation.ts';
import { fields, isFields, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

function isSet(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null;
}

function unsupported(field: string, value: JsonValue, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** IsValidPathSegmentName. */
function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const problems: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) problems.push(`may not contain '${illegal}'`);
  return problems;
}

/** ValidateCrossVersionObjectReference. */
function referenceCauses(reference: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ['kind', 'name'] as const) {
    const value = reference[key];
    if (typeof value !== 'string' || value === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.${key}` });
    else for (const problem of pathSegmentProblems(value)) causes.push(invalidValue(`${at}.${key}`, value, problem));
  }
  return causes;
}

/** A quantity's sign: a number, or the leading sign and digits of its text. */
function positiveQuantity(value: JsonValue | undefined): boolean {
  if (typeof value === 'number') return value > 0;
  if (typeof value !== 'string') return false;
  const number = Number.parseFloat(value);
  return !value.trim().startsWith('-') && Number.isFinite(number) && number > 0;
}

const targetTypes = ['Utilization', 'Value', 'AverageValue'];

/** validateMetricTarget. */
function targetCauses(target: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = target['type'];
  if (typeof type !== 'string' || type === '') causes.push(requiredValue(`${at}.type`, 'must specify a metric target type'));
  if (typeof type !== 'string' || !targetTypes.includes(type)) causes.push(invalidValue(`${at}.type`, type ?? '', 'must be either Utilization, Value, or AverageValue'));
  for (const key of ['value', 'averageValue']) {
    if (isSet(target[key]) && !positiveQuantity(target[key])) causes.push(invalidValue(`${at}.${key}`, target[key], 'must be positive'));
  }
  const utilization = target['averageUtilization'];
  if (typeof utilization === 'number' && utilization < 1) causes.push(invalidValue(`${at}.averageUtilization`, utilization, 'must be greater than 0'));
  return causes;
}

/** The per-source rules: a resource's name and one of its targets, a metric's name, the target. */
function sourceCauses(key: string, source: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = fields(source['target']);
  if (key === 'resource' || key === 'containerResource') {
    if (typeof source['name'] !== 'string' || source['name'] === '') causes.push(requiredValue(`${at}.name`, 'must specify a resource name'));
    if (key === 'containerResource' && (typeof source['container'] !== 'string' || source['container'] === '')) causes.push(requiredValue(`${at}.container`, 'must specify a container'));
    if (!isSet(target['averageUtilization']) && !isSet(target['averageValue'])) {
      causes.push(requiredValue(`${at}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
    }
    if (isSet(target['averageUtilization']) && isSet(target['averageValue'])) {
      causes.push(forbidden(`${at}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
    }
  } else {
    const metric = fields(source['metric']);
    if (typeof metric['name'] !== 'string' || metric['name'] === '') causes.push(requiredValue(`${at}.metric.name`, 'must specify a metric name'));
    if (key === 'object') causes.push(...referenceCauses(fields(source['describedObject']), `${at}.describedObject`));
  }
  causes.push(...targetCauses(target, `${at}.target`));
  return causes;
}

const metricSourceTypes: Readonly<Record<string, string>> = {
  ContainerResource: 'containerResource', External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource',
};

/** validateMetricSpec. */
function metricCauses(metric: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = metric['type'];
  if (typeof type !== 'string' || type === '') causes.push(requiredValue(`${at}.type`, 'must specify a metric source type'));
  const expected = typeof type === 'string' ? metricSourceTypes[type] : undefined;
  if (expected === undefined) causes.push(unsupported(`${at}.type`, type ?? '', Object.keys(metricSourceTypes)));
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((key) => isFields(metric[key]));
  if (present[0] !== undefined) causes.push(...sourceCauses(present[0], fields(metric[present[0]]), `${at}.${present[0]}`));
  if (expected !== undefined && !present.includes(expected)) causes.push(requiredValue(`${at}.${expected}`, 'must populate information for the given metric source'));
  for (const extra of present.filter((key) => key !== expected)) {
    if (expected !== undefined || present.length > 1) causes.push(forbidden(`${at}.${extra}`, 'must populate the given metric source only'));
  }
  return causes;
}

const selectPolicies = ['Disabled', 'Max', 'Min'];
const policyTypes = ['Percent', 'Pods'];

/** validateScalingRules. */
function rulesCauses(rules: JsonValue | undefined, at: string): StatusCause[] {
  if (!isFields(rules)) return [];
  const causes: StatusCause[] = [];
  const window = rules['stabilizationWindowSeconds'];
  if (typeof window === 'number' && window < 0) causes.push(invalidValue(`${at}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > 3600) causes.push(invalidValue(`${at}.stabilizationWindowSeconds`, window, 'must be less than or equal to 3600'));
  const select = rules['selectPolicy'];
  if (isSet(select) && (typeof select !== 'string' || !selectPolicies.includes(select))) causes.push(unsupported(`${at}.selectPolicy`, select!, selectPolicies));
  const policies = Array.isArray(rules['policies']) ? rules['policies'] : [];
  if (policies.length === 0) causes.push(requiredValue(`${at}.policies`, 'must specify at least one Policy'));
  policies.forEach((entry, index) => {
    const policy = fields(entry);
    const path = `${at}.policies[${index}]`;
    const type = policy['type'];
    if (typeof type !== 'string' || !policyTypes.includes(type)) causes.push(unsupported(`${path}.type`, type ?? '', policyTypes));
    const value = typeof policy['value'] === 'number' ? policy['value'] : 0;
    if (value <= 0) causes.push(invalidValue(`${path}.value`, value, 'must be greater than zero'));
    const period = typeof policy['periodSeconds'] === 'number' ? policy['periodSeconds'] : 0;
    if (period <= 0) causes.push(invalidValue(`${path}.periodSeconds`, period, 'must be greater than zero'));
    if (period > 1800) causes.push(invalidValue(`${path}.periodSeconds`, period, 'must be less than or equal to 1800'));
  });
  return causes;
}

/** validateHorizontalPodAutoscalerSpec over the v2 form. */
function hpaSpecCauses(spec: Fields, minReplicasLowerBound: number): StatusCause[] {
  const causes: StatusCause[] = [];
  const min = spec['minReplicas'];
  const max = typeof spec['maxReplicas'] === 'number' ? spec['maxReplicas'] : 0;
  if (typeof min === 'number' && min < minReplicasLowerBound) causes.push(invalidValue('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) causes.push(invalidValue('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) causes.push(invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  causes.push(...referenceCauses(fields(spec['scaleTargetRef']), 'spec.scaleTargetRef'));
  const metrics = Array.isArray(spec['metrics']) ? spec['metrics'] : [];
  metrics.forEach((metric, index) => causes.push(...metricCauses(fields(metric), `spec.metrics[${index}]`)));
  const behavior = spec['behavior'];
  if (isFields(behavior)) causes.push(...rulesCauses(behavior['scaleUp'], 'spec.behavior.scaleUp'), ...rulesCauses(behavior['scaleDown'], 'spec.behavior.scaleDown'));
  return causes;
}

function keepStatus(object: KubeObject, old: KubeObject): void {
  if (old['status'] !== undefined) object['status'] = old['status'];
  else delete object['status'];
}

export const hpaV2Strategy: Strategy = {
  // kube: PUT of an absent HorizontalPodAutoscaler is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultV2Spec(specOf(object) as Record<string, unknown>) as Fields;
    object['status'] = { desiredReplicas: 0 };
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    object['spec'] = defaultV2Spec(specOf(object) as Record<string, unknown>) as Fields;
  },
  // HPAScaleToZero is off: minReplicas is at least 1 (no stored HPA can have 0).
  validate: (object) => hpaSpecCauses(specOf(object), 1),
};

/** The v2 spec a v1 object stands for. */
function storedSpec(object: KubeObject): Fields {
  return specOf(hpaV1ToV2(object));
}

/** The annotations that carry a v1 object's status (the status of the stored object on a write to the main resource). */
const statusAnnotations = [metricStatusesAnnotation, conditionsAnnotation];

export const hpaV1Strategy: Strategy = {
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    const spec: Fields = { ...specOf(object) };
    // autoscaling/v1 SetDefaults_HorizontalPodAutoscaler.
    if (!isSet(spec['minReplicas'])) spec['minReplicas'] = 1;
    object['spec'] = spec;
    object['status'] = { currentReplicas: 0, desiredReplicas: 0 };
    const annotations = { ...(object.metadata.annotations ?? {}) };
    for (const key of statusAnnotations) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete object.metadata.annotations;
    else object.metadata.annotations = annotations;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    const spec: Fields = { ...specOf(object) };
    if (!isSet(spec['minReplicas'])) spec['minReplicas'] = 1;
    object['spec'] = spec;
    // The status v1 cannot express is in annotations: those too come from the stored object.
    const annotations = { ...(object.metadata.annotations ?? {}) };
    const oldAnnotations = old.metadata.annotations ?? {};
    for (const key of statusAnnotations) {
      if (oldAnnotations[key] === undefined) delete annotations[key];
      else annotations[key] = oldAnnotations[key];
    }
    if (Object.keys(annotations).length === 0) delete object.metadata.annotations;
    else object.metadata.annotations = annotations;
  },
  validate: (object) => hpaSpecCauses(storedSpec(object), 1),
};
