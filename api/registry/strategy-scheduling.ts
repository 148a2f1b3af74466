// Owns: the create/update strategies of the kinds that steer where and how pods run:
// scheduling.k8s.io/v1 PriorityClasses (the value range, the reserved system- prefix and the
// two system classes kube-apiserver creates at start) and node.k8s.io/v1 RuntimeClasses.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, isQualifiedName, labelValueProblems, nameProblems } from './validation.ts';
import { forbidden, immutable, isFields, nonNegativeQuantityCauses, notSupported, quantityAt, required } from './strategy-quota.ts';
import { fields } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

/** scheduling.HighestUserDefinablePriority: user classes may not go above it. */
export const highestUserDefinablePriority = 1_000_000_000;
/** scheduling.SystemCriticalPriority. */
export const systemCriticalPriority = 2 * highestUserDefinablePriority;
export const systemPriorityClassPrefix = 'system-';

export interface SystemPriorityClass {
  readonly name: string;
  readonly value: number;
  readonly description: string;
}

/** The classes kube-apiserver's scheduling/bootstrap-system-priority-classes hook creates; both are not the global default. */
export const systemPriorityClasses: readonly SystemPriorityClass[] = [
  { name: 'system-node-critical', value: systemCriticalPriority + 1000, description: 'For system pods that must stay on the node they run on.' },
  { name: 'system-cluster-critical', value: systemCriticalPriority, description: 'For system pods the cluster needs, which may be moved to another node.' },
];

const preemptionPolicies = ['PreemptLowerPriority', 'Never'];

/** scheduling.IsKnownSystemPriorityClass: the problem, or undefined when the class is one of the system classes as defined. */
function systemClassProblem(name: string, value: JsonValue | undefined, globalDefault: boolean): string | undefined {
  const known = systemPriorityClasses.find((candidate) => candidate.name === name);
  if (known === undefined) return `${name} is not a known system priority class`;
  if (value !== known.value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

function priorityClassCauses(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = object.metadata.name ?? '';
  const value = (object['value'] ?? 0) as JsonValue;
  if (name.startsWith(systemPriorityClassPrefix)) {
    const problem = systemClassProblem(name, value, object['globalDefault'] === true);
    if (problem !== undefined) causes.push(forbidden('metadata.name', `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${problem}`));
  } else if (typeof value === 'number' && value > highestUserDefinablePriority) {
    causes.push(forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  const policy = object['preemptionPolicy'];
  if (policy === '') causes.push(required('preemptionPolicy'));
  else if (policy !== undefined && !preemptionPolicies.includes(String(policy))) causes.push(notSupported('preemptionPolicy', policy as JsonValue, preemptionPolicies));
  return causes;
}

export const priorityClassStrategy: Strategy = {
  // kube: PUT of an absent PriorityClass is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    if (object['preemptionPolicy'] === undefined) object['preemptionPolicy'] = 'PreemptLowerPriority';
    object.metadata.generation = 1;
  },
  prepareForUpdate(object) {
    if (object['preemptionPolicy'] === undefined) object['preemptionPolicy'] = 'PreemptLowerPriority';
  },
  validate: priorityClassCauses,
  validateUpdate(object, old) {
    const causes = (object['value'] ?? 0) === (old['value'] ?? 0) ? [] : [forbidden('value', 'may not be changed in an update.')];
    return [...causes, ...immutable('preemptionPolicy', object['preemptionPolicy'] as JsonValue | undefined, old['preemptionPolicy'] as JsonValue | undefined)];
  },
};

// ---- RuntimeClass ----

const tolerationOperators = ['Equal', 'Exists'];
const tolerationEffects = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];

function schedulingCauses(scheduling: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  // ValidateLabels over the node selector.
  for (const [key, value] of Object.entries(fields(scheduling['nodeSelector']))) {
    for (const problem of isQualifiedName(key)) causes.push(invalidValue('scheduling.nodeSelector', key, problem));
    for (const problem of labelValueProblems(String(value))) causes.push(invalidValue('scheduling.nodeSelector', value, problem));
  }
  const tolerations = Array.isArray(scheduling['tolerations']) ? scheduling['tolerations'] : [];
  tolerations.forEach((raw, index) => {
    const toleration = fields(raw);
    const at = `scheduling.tolerations[${index}]`;
    const operator = toleration['operator'];
    if (operator !== undefined && operator !== '' && !tolerationOperators.includes(String(operator))) causes.push(notSupported(`${at}.operator`, operator, tolerationOperators));
    if (operator === 'Exists' && String(toleration['value'] ?? '') !== '') causes.push(invalidValue(`${at}.operator`, toleration, 'value must be empty when `operator` is \'Exists\''));
    if (String(toleration['key'] ?? '') === '' && operator !== 'Exists') causes.push(invalidValue(`${at}.operator`, operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    const effect = toleration['effect'];
    if (effect !== undefined && effect !== '' && !tolerationEffects.includes(String(effect))) causes.push(notSupported(`${at}.effect`, effect, tolerationEffects));
  });
  return causes;
}

function runtimeClassCauses(object: KubeObject): StatusCause[] {
  const handler = String(object['handler'] ?? '');
  const causes = nameProblems(handler, 'dns1123Label').map((problem) => invalidValue('handler', handler, problem));
  const overhead = fields(object['overhead'] as JsonValue | undefined);
  for (const [name, raw] of Object.entries(fields(overhead['podFixed']))) {
    const quantity = quantityAt(`overhead.podFixed[${name}]`, raw, causes);
    if (quantity !== undefined) causes.push(...nonNegativeQuantityCauses(`overhead.podFixed[${name}]`, quantity));
  }
  if (isFields(object['scheduling'] as JsonValue | undefined)) causes.push(...schedulingCauses(fields(object['scheduling'] as JsonValue)));
  return causes;
}

export const runtimeClassStrategy: Strategy = {
  // kube: PUT of an absent RuntimeClass is 404.
  allowCreateOnUpdate: false,
  validate: runtimeClassCauses,
  validateUpdate: (object, old) => immutable('handler', object['handler'] as JsonValue | undefined, old['handler'] as JsonValue | undefined),
};
