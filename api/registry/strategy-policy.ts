// Owns: the create/update behaviour of policy/v1 PodDisruptionBudgets as kube-apiserver 1.33
// has it (pkg/registry/policy/poddisruptionbudget/strategy.go): no v1 defaults; status reset
// on create (its counters are plain int32 fields, so a new budget shows them as 0), kept from
// the stored object on writes to the main resource; generation 1 on create and +1 on a spec
// change; and ValidatePodDisruptionBudget: minAvailable xor maxUnavailable, each a
// non-negative integer or a percent no greater than 100%, the label selector's operators, the
// unhealthyPodEvictionPolicy values, and non-negative status counters.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, requiredValue } from './validation.ts';
import { fields, isFields, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';
import { sameJson } from './json-fields.ts';

function isSet(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null;
}

const percentPattern = /^[0-9]+%$/;
const percentMessage = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function intOrPercentCauses(field: string, value: JsonValue | undefined): StatusCause[] {
  if (!isSet(value)) return [];
  if (typeof value === 'string') {
    if (!percentPattern.test(value)) return [invalidValue(field, value, percentMessage)];
    return Number.parseInt(value.slice(0, -1), 10) > 100 ? [invalidValue(field, value, 'must not be greater than 100%')] : [];
  }
  if (typeof value === 'number') return value < 0 ? [invalidValue(field, value, 'must be greater than or equal to 0')] : [];
  return [invalidValue(field, value!, "must be an integer or percentage (e.g '5%')")];
}

/** ValidateLabelSelector's requirement rules. */
export function labelSelectorCauses(selector: JsonValue | undefined, at: string): StatusCause[] {
  if (!isFields(selector)) return [];
  const causes: StatusCause[] = [];
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  expressions.forEach((entry, index) => {
    const expression = fields(entry);
    const path = `${at}.matchExpressions[${index}]`;
    const operator = expression['operator'];
    const values = Array.isArray(expression['values']) ? expression['values'] : [];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) causes.push(requiredValue(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) causes.push({ reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'", field: `${path}.values` });
    } else {
      causes.push(invalidValue(`${path}.operator`, operator ?? '', 'not a valid selector operator'));
    }
    if (typeof expression['key'] !== 'string' || expression['key'] === '') causes.push(invalidValue(`${path}.key`, expression['key'] ?? '', 'name part must be non-empty'));
  });
  return causes;
}

const evictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];
const statusCounters = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'];

/** ValidatePodDisruptionBudgetSpec and the status counters (ValidatePodDisruptionBudgetStatusUpdate). */
function pdbCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes: StatusCause[] = [];
  if (isSet(spec['minAvailable']) && isSet(spec['maxUnavailable'])) causes.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  causes.push(...intOrPercentCauses('spec.minAvailable', spec['minAvailable']));
  causes.push(...intOrPercentCauses('spec.maxUnavailable', spec['maxUnavailable']));
  causes.push(...labelSelectorCauses(spec['selector'], 'spec.selector'));
  const policy = spec['unhealthyPodEvictionPolicy'];
  if (isSet(policy) && (typeof policy !== 'string' || !evictionPolicies.includes(policy))) {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${evictionPolicies.map((value) => JSON.stringify(value)).join(', ')}`, field: 'spec.unhealthyPodEvictionPolicy' });
  }
  const status = fields(object['status'] as JsonValue | undefined);
  for (const counter of statusCounters) {
    const value = status[counter];
    if (typeof value === 'number' && value < 0) causes.push(invalidValue(`status.${counter}`, value, 'must be greater than or equal to 0'));
  }
  return causes;
}

/** A new budget's status: the counters are not omitempty in policy/v1. */
export function emptyPdbStatus(): Fields {
  return { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
}

export const pdbStrategy: Strategy = {
  // kube: PUT of an absent PodDisruptionBudget is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['status'] = emptyPdbStatus();
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    const generation = old.metadata.generation ?? 1;
    object.metadata.generation = sameJson(object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
  },
  validate: (object) => pdbCauses(object),
};
