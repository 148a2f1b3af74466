// Owns: the create/update behaviour of apps/v1 Deployments as kube-apiserver 1.33 has it: the
// v1 defaults (replicas, rolling-update strategy, history limit, progress deadline, and the pod
// template's spec defaulted as every pod template is), generation (1 on create, +1 on a spec
// change), status (reset on create, kept from the stored object on a write to the main
// resource; the status subresource replaces it — endpoints/subresource.ts), and the
// validation causes a user meets: selector rules and immutability, replica and second counts,
// rolling-update bounds, and the pod template's rules (strategy-workloads.ts podSpecCauses).
import type { JsonValue } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { defaultPodTemplateSpec, podSpecCauses } from './strategy-workloads.ts';
import { invalidValue, labelValueProblems, qualifiedNameProblems } from './validation.ts';
import { sameJson, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

export function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

export function isFields(value: JsonValue | undefined): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function unset(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === '';
}

const defaultMaxUnavailable = '25%';
const defaultMaxSurge = '25%';

/** SetDefaults_Deployment (apps/v1), with the pod template's spec defaulted as a pod template. */
export function defaultDeploymentSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['replicas'])) result['replicas'] = 1;
  const strategy: Fields = { ...fields(result['strategy']) };
  if (unset(strategy['type'])) strategy['type'] = 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const rollingUpdate: Fields = { ...fields(strategy['rollingUpdate']) };
    if (unset(rollingUpdate['maxUnavailable'])) rollingUpdate['maxUnavailable'] = defaultMaxUnavailable;
    if (unset(rollingUpdate['maxSurge'])) rollingUpdate['maxSurge'] = defaultMaxSurge;
    strategy['rollingUpdate'] = rollingUpdate;
  }
  result['strategy'] = strategy;
  if (unset(result['revisionHistoryLimit'])) result['revisionHistoryLimit'] = 10;
  if (unset(result['progressDeadlineSeconds'])) result['progressDeadlineSeconds'] = 600;
  const template: Fields = { ...fields(result['template']) };
  template['spec'] = defaultPodTemplateSpec(fields(template['spec']));
  result['template'] = template;
  return result;
}

export function nonNegative(field: string, value: JsonValue | undefined): StatusCause[] {
  return typeof value === 'number' && value < 0 ? [invalidValue(field, value, 'must be greater than or equal to 0')] : [];
}

export const percentPattern = /^[0-9]+%$/;
const percentMessage = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** An int-or-percent's value for the "both zero" and "over 100%" rules (a malformed percent counts as 0). */
export function intOrPercentValue(value: JsonValue | undefined): { readonly amount: number; readonly percent: boolean } {
  if (typeof value === 'number') return { amount: value, percent: false };
  if (typeof value === 'string' && percentPattern.test(value)) return { amount: Number.parseInt(value.slice(0, -1), 10), percent: true };
  return { amount: 0, percent: false };
}

export function intOrPercentCauses(field: string, value: JsonValue | undefined): StatusCause[] {
  if (typeof value === 'string') return percentPattern.test(value) ? [] : [invalidValue(field, value, percentMessage)];
  return nonNegative(field, value);
}

function strategyCauses(strategy: Fields): StatusCause[] {
  const type = strategy['type'];
  if (type === 'Recreate') {
    return isFields(strategy['rollingUpdate'])
      ? [{ reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'", field: 'spec.strategy.rollingUpdate' }]
      : [];
  }
  if (type !== 'RollingUpdate') {
    return [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(strategy)}: supported values: "Recreate", "RollingUpdate"`, field: 'spec.strategy' }];
  }
  if (!isFields(strategy['rollingUpdate'])) {
    return [{ reason: 'FieldValueRequired', message: 'Required value: this should be defaulted and never be nil', field: 'spec.strategy.rollingUpdate' }];
  }
  const rollingUpdate = strategy['rollingUpdate'];
  const at = 'spec.strategy.rollingUpdate';
  const causes = [
    ...intOrPercentCauses(`${at}.maxUnavailable`, rollingUpdate['maxUnavailable']),
    ...intOrPercentCauses(`${at}.maxSurge`, rollingUpdate['maxSurge']),
  ];
  const maxUnavailable = intOrPercentValue(rollingUpdate['maxUnavailable']);
  if (maxUnavailable.amount === 0 && intOrPercentValue(rollingUpdate['maxSurge']).amount === 0) {
    causes.push(invalidValue(`${at}.maxUnavailable`, rollingUpdate['maxUnavailable'] ?? 0, 'may not be 0 when `maxSurge` is 0'));
  }
  if (maxUnavailable.percent && maxUnavailable.amount > 100) {
    causes.push(invalidValue(`${at}.maxUnavailable`, rollingUpdate['maxUnavailable'] ?? '', 'must not be greater than 100%'));
  }
  return causes;
}

/** Whether a label selector (matchLabels and matchExpressions) selects these labels. */
export function selectorMatches(selector: Fields, labels: Readonly<Record<string, JsonValue>>): boolean {
  const matchLabels = fields(selector['matchLabels']);
  if (!Object.entries(matchLabels).every(([key, value]) => labels[key] === value)) return false;
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'].filter(isFields) : [];
  return expressions.every((expression) => {
    const key = String(expression['key'] ?? '');
    const values = Array.isArray(expression['values']) ? expression['values'] : [];
    const present = Object.hasOwn(labels, key);
    switch (expression['operator']) {
      case 'In': return present && values.includes(labels[key] ?? '');
      case 'NotIn': return !present || !values.includes(labels[key] ?? '');
      case 'Exists': return present;
      case 'DoesNotExist': return !present;
      default: return false;
    }
  });
}

export function selectorIsEmpty(selector: Fields): boolean {
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  return Object.keys(fields(selector['matchLabels'])).length + expressions.length === 0;
}

/**
 * The rules ValidatePodTemplateSpec puts on a template's labels (ValidateLabels at
 * `<path>.labels`, as kube reports them: not under metadata).
 */
export function templateLabelCauses(labels: Fields, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const problem of qualifiedNameProblems(key)) causes.push(invalidValue(`${path}.labels`, key, problem));
    for (const problem of labelValueProblems(typeof value === 'string' ? value : String(value))) causes.push(invalidValue(`${path}.labels`, value, problem));
  }
  return causes;
}

/**
 * The selector-versus-labels rule of the workload validations: an absent selector selects
 * nothing (metav1.LabelSelectorAsSelector(nil)), so no labels match it; an empty one selects
 * everything and is reported by the caller instead.
 */
export function selectorMismatch(selector: Fields | undefined, labels: Fields, path: string): StatusCause[] {
  if (selector !== undefined && (selectorIsEmpty(selector) || selectorMatches(selector, labels))) return [];
  return [invalidValue(`${path}.metadata.labels`, labels, '`selector` does not match template `labels`')];
}

/**
 * ValidatePodTemplateSpecForReplicaSet (Deployments, ReplicaSets) and the same rules kube
 * applies to DaemonSet and ReplicationController templates: labels the selector matches, the
 * template's labels and pod spec rules, restartPolicy Always, no activeDeadlineSeconds (the
 * message names `owner`). `path` is where the template is.
 */
export function controllerTemplateCauses(template: Fields, selector: Fields | undefined, owner: string, path = 'spec.template'): StatusCause[] {
  const labels = fields(fields(template['metadata'])['labels']);
  const causes = selectorMismatch(selector, labels, path);
  causes.push(...templateLabelCauses(labels, path));
  const spec = fields(template['spec']);
  causes.push(...podSpecCauses(spec, `${path}.spec`), ...restartPolicyCauses(spec, `${path}.spec`, owner));
  return causes;
}

/** A controller's pods always restart and never have an active deadline. */
export function restartPolicyCauses(spec: Fields, path: string, owner: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const restartPolicy = spec['restartPolicy'];
  if (typeof restartPolicy === 'string' && restartPolicy !== 'Always') {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(restartPolicy)}: supported values: "Always"`, field: `${path}.restartPolicy` });
  }
  if (spec['activeDeadlineSeconds'] !== undefined && spec['activeDeadlineSeconds'] !== null) {
    causes.push({ reason: 'FieldValueForbidden', message: `Forbidden: activeDeadlineSeconds in ${owner} is not Supported`, field: `${path}.activeDeadlineSeconds` });
  }
  return causes;
}

/** ValidateDeploymentSpec. */
export function deploymentSpecCauses(spec: Fields): StatusCause[] {
  const causes = nonNegative('spec.replicas', spec['replicas']);
  const selector = isFields(spec['selector']) ? spec['selector'] : undefined;
  if (selector === undefined) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  else if (selectorIsEmpty(selector)) causes.push(invalidValue('spec.selector', selector, 'empty selector is invalid for deployment'));
  causes.push(...controllerTemplateCauses(fields(spec['template']), selector, 'ReplicaSet'));
  causes.push(...strategyCauses(fields(spec['strategy'])));
  causes.push(...nonNegative('spec.minReadySeconds', spec['minReadySeconds']));
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec['revisionHistoryLimit']));
  const deadline = spec['progressDeadlineSeconds'];
  if (typeof deadline === 'number') {
    causes.push(...nonNegative('spec.progressDeadlineSeconds', deadline));
    const minReady = typeof spec['minReadySeconds'] === 'number' ? spec['minReadySeconds'] : 0;
    if (deadline <= minReady) causes.push(invalidValue('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return causes;
}

export const deploymentStrategy: Strategy = {
  // kube: PUT of an absent Deployment is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultDeploymentSpec(specOf(object));
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    const spec = defaultDeploymentSpec(specOf(object));
    object['spec'] = spec;
    const generation = old.metadata.generation ?? 1;
    object.metadata.generation = sameJson(spec, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
  },
  validate: (object) => deploymentSpecCauses(specOf(object)),
  validateUpdate(object, old) {
    const selector = specOf(object)['selector'];
    const oldSelector = specOf(old)['selector'];
    return sameJson(selector, oldSelector) ? [] : [invalidValue('spec.selector', selector ?? null, 'field is immutable')];
  },
};
