// Owns: the create/update behaviour of the apps/v1 ReplicaSets, StatefulSets, DaemonSets and
// ControllerRevisions as kube-apiserver 1.33 has it: the v1 defaults (SetDefaults_ReplicaSet,
// SetDefaults_StatefulSet, SetDefaults_DaemonSet, with the pod template's spec defaulted as
// every pod template is), generation (1 on create, +1 on a spec change), status (reset on
// create, kept from the stored object on a write to the main resource; the status subresource
// replaces it — endpoints/subresource.ts), the DaemonSet's template generation (kept in the
// deprecated.daemonset.template.generation annotation, as kube's v1 conversion keeps it), the
// fields dropped while their feature gates are off, and the validation causes a user meets
// (pkg/apis/apps/validation): selectors, template labels and pod spec, replica and second
// counts, update strategies, StatefulSet's immutable spec fields and ControllerRevision's
// immutable data.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { controllerTemplateCauses, fields, intOrPercentCauses, intOrPercentValue, isFields, nonNegative, restartPolicyCauses, selectorIsEmpty, selectorMismatch, templateLabelCauses, unset } from './strategy-apps.ts';
import { defaultPodTemplateSpec } from './strategy-workloads.ts';
import { invalidValue, nameProblems } from './validation.ts';
import { sameJson, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

/** The template with its pod spec defaulted as every pod template's is. */
function defaultedTemplate(spec: Fields): Fields {
  const template: Fields = { ...fields(spec['template']) };
  template['spec'] = defaultPodTemplateSpec(fields(template['spec']));
  return template;
}

/**
 * apiequality.Semantic.DeepEqual over JSON: an empty list equals an absent one (Go's nil and
 * empty slices decode from `[]` and from nothing), and a null equals an absent field.
 */
export function semanticSame(left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  return sameJson(withoutEmpties(left), withoutEmpties(right));
}

function withoutEmpties(value: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((item) => withoutEmpties(item) ?? null);
  if (!isFields(value)) return value;
  const result: Fields = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null || (Array.isArray(item) && item.length === 0)) continue;
    result[key] = withoutEmpties(item) ?? null;
  }
  return result;
}

function keepStatus(object: KubeObject, old: KubeObject): void {
  if (old['status'] !== undefined) object['status'] = old['status'];
  else delete object['status'];
}

/** Generation 1 on create; +1 when the spec changed (kube's PrepareForUpdate for the workload kinds). */
function bumpOnSpecChange(object: KubeObject, old: KubeObject): void {
  const generation = old.metadata.generation ?? 1;
  object.metadata.generation = semanticSame(object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
}

function selectorOf(spec: Fields): Fields | undefined {
  return isFields(spec['selector']) ? spec['selector'] : undefined;
}

/** The required-and-not-empty selector rule; `kind` is the word kube's message uses. */
function requiredSelectorCauses(spec: Fields, kind: string): StatusCause[] {
  const selector = selectorOf(spec);
  if (selector === undefined) return [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }];
  return selectorIsEmpty(selector) ? [invalidValue('spec.selector', selector, `empty selector is invalid for ${kind}`)] : [];
}

function immutableSelector(object: KubeObject, old: KubeObject): StatusCause[] {
  const selector = specOf(object)['selector'];
  return sameJson(selector, specOf(old)['selector']) ? [] : [invalidValue('spec.selector', selector ?? null, 'field is immutable')];
}

// --- ReplicaSets ----------------------------------------------------------------------------

/** SetDefaults_ReplicaSet (replicas 1) with the template defaulted. */
export function defaultReplicaSetSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['replicas'])) result['replicas'] = 1;
  result['template'] = defaultedTemplate(result);
  return result;
}

/** ValidateReplicaSetSpec (kube's empty-selector message says "deployment" for ReplicaSets too). */
export function replicaSetSpecCauses(spec: Fields): StatusCause[] {
  return [
    ...nonNegative('spec.replicas', spec['replicas']),
    ...nonNegative('spec.minReadySeconds', spec['minReadySeconds']),
    ...requiredSelectorCauses(spec, 'deployment'),
    ...controllerTemplateCauses(fields(spec['template']), selectorOf(spec), 'ReplicaSet'),
  ];
}

export const replicaSetStrategy: Strategy = {
  // kube: PUT of an absent ReplicaSet is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultReplicaSetSpec(specOf(object));
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    object['spec'] = defaultReplicaSetSpec(specOf(object));
    bumpOnSpecChange(object, old);
  },
  validate: (object) => replicaSetSpecCauses(specOf(object)),
  validateUpdate: immutableSelector,
};

// --- StatefulSets ---------------------------------------------------------------------------

/**
 * SetDefaults_StatefulSet: podManagementPolicy OrderedReady; an unset update strategy becomes
 * RollingUpdate (with a rollingUpdate), and a rolling update's partition 0; the PVC retention
 * policy Retain/Retain (StatefulSetAutoDeletePVC is on); replicas 1; revisionHistoryLimit 10.
 */
export function defaultStatefulSetSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['podManagementPolicy'])) result['podManagementPolicy'] = 'OrderedReady';
  const strategy: Fields = { ...fields(result['updateStrategy']) };
  if (unset(strategy['type'])) {
    strategy['type'] = 'RollingUpdate';
    if (!isFields(strategy['rollingUpdate'])) strategy['rollingUpdate'] = {};
  }
  if (strategy['type'] === 'RollingUpdate' && isFields(strategy['rollingUpdate'])) {
    const rollingUpdate: Fields = { ...strategy['rollingUpdate'] };
    if (unset(rollingUpdate['partition'])) rollingUpdate['partition'] = 0;
    strategy['rollingUpdate'] = rollingUpdate;
  }
  result['updateStrategy'] = strategy;
  const retention: Fields = { ...fields(result['persistentVolumeClaimRetentionPolicy']) };
  if (unset(retention['whenDeleted'])) retention['whenDeleted'] = 'Retain';
  if (unset(retention['whenScaled'])) retention['whenScaled'] = 'Retain';
  result['persistentVolumeClaimRetentionPolicy'] = retention;
  if (unset(result['replicas'])) result['replicas'] = 1;
  if (unset(result['revisionHistoryLimit'])) result['revisionHistoryLimit'] = 10;
  result['template'] = defaultedTemplate(result);
  return result;
}

/** MaxUnavailableStatefulSet is off in 1.33: a new maxUnavailable is dropped unless the stored object has one. */
function dropMaxUnavailable(spec: Fields, old: Fields | undefined): void {
  const oldRolling = fields(fields(old?.['updateStrategy'])['rollingUpdate']);
  if (oldRolling['maxUnavailable'] !== undefined && oldRolling['maxUnavailable'] !== null) return;
  const strategy = fields(spec['updateStrategy']);
  if (!isFields(strategy['rollingUpdate'])) return;
  const rollingUpdate: Fields = { ...strategy['rollingUpdate'] };
  delete rollingUpdate['maxUnavailable'];
  spec['updateStrategy'] = { ...strategy, rollingUpdate };
}

function retentionCauses(spec: Fields): StatusCause[] {
  if (!isFields(spec['persistentVolumeClaimRetentionPolicy'])) return [];
  const policy = spec['persistentVolumeClaimRetentionPolicy'];
  return (['whenDeleted', 'whenScaled'] as const).flatMap((name) => {
    const value = policy[name] ?? '';
    return value === 'Retain' || value === 'Delete' ? []
      : [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: "Retain", "Delete"`, field: `spec.persistentVolumeClaimRetentionPolicy.${name}` }];
  });
}

function statefulSetStrategyCauses(spec: Fields): StatusCause[] {
  const strategy = fields(spec['updateStrategy']);
  const at = 'spec.updateStrategy';
  switch (strategy['type'] ?? '') {
    case '':
      return [{ reason: 'FieldValueRequired', message: 'Required value', field: at }];
    case 'OnDelete':
      return isFields(strategy['rollingUpdate']) ? [invalidValue(`${at}.rollingUpdate`, strategy['rollingUpdate'], "only allowed for updateStrategy 'RollingUpdate'")] : [];
    case 'RollingUpdate': {
      if (!isFields(strategy['rollingUpdate'])) return [];
      const rollingUpdate = strategy['rollingUpdate'];
      const causes = nonNegative(`${at}.rollingUpdate.partition`, rollingUpdate['partition']);
      const maxUnavailable = rollingUpdate['maxUnavailable'];
      if (maxUnavailable !== undefined && maxUnavailable !== null) {
        causes.push(...intOrPercentCauses(`${at}.rollingUpdate.maxUnavailable`, maxUnavailable));
        const value = intOrPercentValue(maxUnavailable);
        if (value.amount === 0) causes.push(invalidValue(`${at}.rollingUpdate.maxUnavailable`, maxUnavailable, 'cannot be 0'));
        if (value.percent && value.amount > 100) causes.push(invalidValue(`${at}.rollingUpdate.maxUnavailable`, maxUnavailable, 'must not be greater than 100%'));
      }
      return causes;
    }
    default:
      return [invalidValue(at, strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

/** ValidateStatefulSetSpec. */
export function statefulSetSpecCauses(spec: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = spec['podManagementPolicy'] ?? '';
  if (policy === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.podManagementPolicy' });
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') causes.push(invalidValue('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  causes.push(...statefulSetStrategyCauses(spec), ...retentionCauses(spec));
  causes.push(...nonNegative('spec.replicas', spec['replicas']), ...nonNegative('spec.minReadySeconds', spec['minReadySeconds']));
  if (isFields(spec['ordinals'])) causes.push(...nonNegative('spec.ordinals.start', spec['ordinals']['start']));
  // The governing service's name becomes the pods' subdomain, a DNS label.
  const serviceName = spec['serviceName'];
  if (typeof serviceName === 'string' && serviceName !== '') {
    for (const problem of nameProblems(serviceName, 'dns1123Label')) causes.push(invalidValue('spec.serviceName', serviceName, problem));
  }
  causes.push(...requiredSelectorCauses(spec, 'statefulset'));
  // ValidatePodTemplateSpecForStatefulSet: the selector and the template's labels; kube leaves
  // the template's pod spec unvalidated here.
  const template = fields(spec['template']);
  const labels = fields(fields(template['metadata'])['labels']);
  causes.push(...selectorMismatch(selectorOf(spec), labels, 'spec.template'), ...templateLabelCauses(labels, 'spec.template'));
  causes.push(...restartPolicyCauses(fields(template['spec']), 'spec.template.spec', 'StatefulSet'));
  return causes;
}

/** The spec fields a StatefulSet update may change. */
const statefulSetMutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

const statefulSetUpdateMessage = "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

function withoutMutable(spec: Fields): Fields {
  return Object.fromEntries(Object.entries(spec).filter(([key]) => !statefulSetMutable.includes(key)));
}

export const statefulSetStrategy: Strategy = {
  // kube: PUT of an absent StatefulSet is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    const spec = defaultStatefulSetSpec(specOf(object));
    dropMaxUnavailable(spec, undefined);
    object['spec'] = spec;
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    const spec = defaultStatefulSetSpec(specOf(object));
    dropMaxUnavailable(spec, specOf(old));
    object['spec'] = spec;
    bumpOnSpecChange(object, old);
  },
  validate: (object) => statefulSetSpecCauses(specOf(object)),
  validateUpdate(object, old) {
    return semanticSame(withoutMutable(specOf(object)), withoutMutable(specOf(old)))
      ? [] : [{ reason: 'FieldValueForbidden', message: statefulSetUpdateMessage, field: 'spec' }];
  },
};

// --- DaemonSets -----------------------------------------------------------------------------

/** SetDefaults_DaemonSet: a RollingUpdate strategy (maxUnavailable 1, maxSurge 0) and revisionHistoryLimit 10. */
export function defaultDaemonSetSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  const strategy: Fields = { ...fields(result['updateStrategy']) };
  if (unset(strategy['type'])) strategy['type'] = 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const rollingUpdate: Fields = { ...fields(strategy['rollingUpdate']) };
    if (unset(rollingUpdate['maxUnavailable'])) rollingUpdate['maxUnavailable'] = 1;
    if (unset(rollingUpdate['maxSurge'])) rollingUpdate['maxSurge'] = 0;
    strategy['rollingUpdate'] = rollingUpdate;
  }
  result['updateStrategy'] = strategy;
  if (unset(result['revisionHistoryLimit'])) result['revisionHistoryLimit'] = 10;
  result['template'] = defaultedTemplate(result);
  return result;
}

/** Where apps/v1 keeps a DaemonSet's template generation (the internal spec.templateGeneration). */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

function templateGenerationOf(object: KubeObject): number {
  const value = Number.parseInt(object.metadata.annotations?.[templateGenerationAnnotation] ?? '', 10);
  return Number.isFinite(value) ? value : 0;
}

function setTemplateGeneration(object: KubeObject, generation: number): void {
  object.metadata.annotations = { ...object.metadata.annotations, [templateGenerationAnnotation]: String(generation) };
}

function daemonSetUpdateStrategyCauses(spec: Fields): StatusCause[] {
  const strategy = fields(spec['updateStrategy']);
  const at = 'spec.updateStrategy';
  if (strategy['type'] === 'OnDelete') return [];
  if (strategy['type'] !== 'RollingUpdate') {
    return [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(strategy)}: supported values: "RollingUpdate", "OnDelete"`, field: at }];
  }
  if (!isFields(strategy['rollingUpdate'])) return [{ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.rollingUpdate` }];
  const rollingUpdate = strategy['rollingUpdate'];
  const causes: StatusCause[] = [];
  for (const name of ['maxUnavailable', 'maxSurge'] as const) causes.push(...intOrPercentCauses(`${at}.rollingUpdate.${name}`, rollingUpdate[name]));
  for (const name of ['maxUnavailable', 'maxSurge'] as const) {
    const value = intOrPercentValue(rollingUpdate[name]);
    if (value.percent && value.amount > 100) causes.push(invalidValue(`${at}.rollingUpdate.${name}`, rollingUpdate[name] ?? '', 'must not be greater than 100%'));
  }
  const hasUnavailable = intOrPercentValue(rollingUpdate['maxUnavailable']).amount !== 0;
  const hasSurge = intOrPercentValue(rollingUpdate['maxSurge']).amount !== 0;
  if (hasUnavailable && hasSurge) causes.push(invalidValue(`${at}.rollingUpdate.maxSurge`, rollingUpdate['maxSurge'] ?? 0, 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) causes.push({ reason: 'FieldValueRequired', message: 'Required value: cannot be 0 when maxSurge is 0', field: `${at}.rollingUpdate.maxUnavailable` });
  return causes;
}

/** ValidateDaemonSetSpec (an absent selector is not "required" here: it matches no labels). */
export function daemonSetSpecCauses(spec: Fields): StatusCause[] {
  const selector = selectorOf(spec);
  const template = fields(spec['template']);
  const labels = fields(fields(template['metadata'])['labels']);
  const causes = selectorMismatch(selector, labels, 'spec.template');
  if (selector !== undefined && selectorIsEmpty(selector)) causes.push(invalidValue('spec.selector', selector, 'empty selector is invalid for daemonset'));
  causes.push(...controllerTemplateCauses(template, {}, 'DaemonSet'));
  causes.push(...nonNegative('spec.minReadySeconds', spec['minReadySeconds']));
  causes.push(...daemonSetUpdateStrategyCauses(spec));
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec['revisionHistoryLimit']));
  return causes;
}

export const daemonSetStrategy: Strategy = {
  // kube: PUT of an absent DaemonSet is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultDaemonSetSpec(specOf(object));
    object['status'] = {};
    object.metadata.generation = 1;
    setTemplateGeneration(object, Math.max(templateGenerationOf(object), 1));
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    const spec = defaultDaemonSetSpec(specOf(object));
    object['spec'] = spec;
    const generation = old.metadata.generation ?? 1;
    // The template generation is the server's: the stored one, +1 when the template changed.
    const templateGeneration = templateGenerationOf(old);
    if (!semanticSame(spec['template'], specOf(old)['template'])) {
      setTemplateGeneration(object, templateGeneration + 1);
      object.metadata.generation = generation + 1;
      return;
    }
    setTemplateGeneration(object, templateGeneration);
    object.metadata.generation = semanticSame(spec, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
  },
  validate: (object) => daemonSetSpecCauses(specOf(object)),
  validateUpdate: immutableSelector,
};

// --- ControllerRevisions --------------------------------------------------------------------

export const controllerRevisionStrategy: Strategy = {
  // kube: PUT of an absent ControllerRevision is 404.
  allowCreateOnUpdate: false,
  validate(object) {
    const causes: StatusCause[] = [];
    if (object['data'] === undefined || object['data'] === null) causes.push({ reason: 'FieldValueRequired', message: 'Required value: data is mandatory', field: 'data' });
    causes.push(...nonNegative('revision', object['revision'] as JsonValue | undefined));
    return causes;
  },
  validateUpdate(object, old) {
    const data = object['data'] as JsonValue | undefined;
    return sameJson(data, old['data'] as JsonValue | undefined) ? [] : [invalidValue('data', data ?? null, 'field is immutable')];
  },
};
