// Owns: the create/update behaviour of the core/v1 controller kinds, ReplicationControllers and
// PodTemplates, as kube-apiserver 1.33 has it: SetDefaults_ReplicationController (replicas 1;
// the selector and the object's labels taken from the template's labels when unset), the pod
// template defaults, generation and status for ReplicationControllers (1 and reset on create,
// +1 on a spec change and kept on a write to the main resource), and the validation causes of
// ValidateReplicationController and ValidatePodTemplate. A ReplicationController's selector is
// a plain label map and may change.
import type { JsonValue } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { fields, isFields, nonNegative, restartPolicyCauses, templateLabelCauses, unset } from './strategy-apps.ts';
import { semanticSame } from './strategy-apps-sets.ts';
import { defaultPodTemplateSpec, podSpecCauses } from './strategy-workloads.ts';
import { invalidValue } from './validation.ts';
import { specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

function defaultedTemplate(template: Fields): Fields {
  return { ...template, spec: defaultPodTemplateSpec(fields(template['spec'])) };
}

function nonEmptyMap(value: JsonValue | undefined): value is Fields {
  return isFields(value) && Object.keys(value).length > 0;
}

/** SetDefaults_ReplicationController over the whole object (it fills metadata.labels too). */
function defaultReplicationController(object: { metadata: { labels?: Record<string, string> }; [key: string]: unknown }): void {
  const spec: Fields = { ...fields(object['spec'] as JsonValue | undefined) };
  if (isFields(spec['template'])) {
    const template = defaultedTemplate(spec['template']);
    spec['template'] = template;
    const labels = fields(template['metadata'])['labels'];
    if (isFields(labels)) {
      if (!nonEmptyMap(spec['selector'])) spec['selector'] = { ...labels };
      if (Object.keys(object.metadata.labels ?? {}).length === 0) object.metadata.labels = { ...labels } as Record<string, string>;
    }
  }
  if (unset(spec['replicas'])) spec['replicas'] = 1;
  object['spec'] = spec;
}

/** Whether a label map selector (every key equal) selects these labels. */
function mapSelects(selector: Fields, labels: Fields): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** ValidatePodTemplateSpec at `path`: the template's labels and its pod spec. */
function podTemplateSpecCauses(template: Fields, path: string): StatusCause[] {
  const labels = fields(fields(template['metadata'])['labels']);
  return [...templateLabelCauses(labels, path), ...podSpecCauses(fields(template['spec']), `${path}.spec`)];
}

/** ValidateReplicationControllerSpec. */
export function replicationControllerSpecCauses(spec: Fields): StatusCause[] {
  const causes = nonNegative('spec.minReadySeconds', spec['minReadySeconds']);
  const selector = fields(spec['selector']);
  const emptySelector = Object.keys(selector).length === 0;
  if (emptySelector) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  causes.push(...nonNegative('spec.replicas', spec['replicas']));
  if (!isFields(spec['template'])) {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template' });
    return causes;
  }
  const template = spec['template'];
  const labels = fields(fields(template['metadata'])['labels']);
  if (!emptySelector && !mapSelects(selector, labels)) causes.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  causes.push(...podTemplateSpecCauses(template, 'spec.template'));
  causes.push(...restartPolicyCauses(fields(template['spec']), 'spec.template.spec', 'ReplicationController'));
  return causes;
}

export const replicationControllerStrategy: Strategy = {
  // kube: PUT of an absent ReplicationController is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    defaultReplicationController(object);
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    defaultReplicationController(object);
    const generation = old.metadata.generation ?? 1;
    object.metadata.generation = semanticSame(object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
  },
  validate: (object) => replicationControllerSpecCauses(specOf(object)),
};

/** The template of a PodTemplate with its pod spec defaulted. */
function defaultPodTemplate(object: { [key: string]: unknown }): void {
  object['template'] = defaultedTemplate(fields(object['template'] as JsonValue | undefined));
}

export const podTemplateStrategy: Strategy = {
  // kube: PUT of an absent PodTemplate is 404.
  allowCreateOnUpdate: false,
  prepareForCreate: defaultPodTemplate,
  prepareForUpdate: defaultPodTemplate,
  validate: (object) => podTemplateSpecCauses(fields(object['template'] as JsonValue | undefined), 'template'),
};
