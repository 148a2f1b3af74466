// Owns: the CustomResourceDefinitions the definition-*.test.ts suites start from (a valid
// one-version Widget CRD), and running a create or an update through the strategy's defaults,
// prepare steps and validation as kube-apiserver's CRD registry does.
import type { JsonValue, KubeObject } from '../../../actors/index.ts';
import {
  customResourceDefinitionCauses, defaultCustomResourceDefinition, prepareCustomResourceDefinitionForCreate, prepareCustomResourceDefinitionForUpdate,
} from '../../../api/crd/definition.ts';
import type { SchemaCauses } from '../../../api/crd/definition.ts';
import type { StatusCause } from '../../../api/status.ts';

export type Fields = Record<string, JsonValue>;

export function widgetSchema(): Fields {
  return {
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { name: { type: 'string' } } },
      spec: {
        type: 'object',
        properties: {
          color: { type: 'string', enum: ['red', 'blue'] },
          size: { type: 'integer' },
          ready: { type: 'boolean' },
          ratio: { type: 'number' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          items: { type: 'array', items: { type: 'string' } },
          nested: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' }, e: { type: 'string' } } },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  };
}

export function widgetVersion(name: string, extra: Fields = {}): Fields {
  return { name, served: true, storage: true, schema: { openAPIV3Schema: widgetSchema() }, ...extra };
}

/** A valid Widget CRD (widgets.example.com, one version v1); `spec` entries replace the defaults'. */
export function widgetCrd(spec: Fields = {}, metadata: Fields = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', ...metadata } as KubeObject['metadata'],
    spec: {
      group: 'example.com', scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [widgetVersion('v1')],
      ...spec,
    },
  };
}

export function specOf(crd: KubeObject): Fields {
  return crd['spec'] as Fields;
}

/** Defaults, PrepareForCreate and Validate, as a create does; the causes. */
export function createCauses(crd: KubeObject, schemaCauses?: SchemaCauses): StatusCause[] {
  defaultCustomResourceDefinition(crd);
  prepareCustomResourceDefinitionForCreate(crd);
  return customResourceDefinitionCauses(crd, undefined, schemaCauses);
}

/** A stored CRD: created, with the status the controllers give it (names accepted, Established when asked). */
export function storedCrd(crd: KubeObject, established = true): KubeObject {
  defaultCustomResourceDefinition(crd);
  prepareCustomResourceDefinitionForCreate(crd);
  const spec = specOf(crd);
  crd['status'] = {
    ...(crd['status'] as Fields),
    acceptedNames: structuredClone(spec['names']!),
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'NoConflicts', message: 'no conflicts found' },
      established
        ? { type: 'Established', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
        : { type: 'Established', status: 'False', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'Installing', message: 'the initial names have been accepted' },
    ],
  };
  crd.metadata.generation = 1;
  return crd;
}

/** Defaults, PrepareForUpdate and ValidateUpdate of `crd` replacing `old`; the causes. */
export function updateCauses(crd: KubeObject, old: KubeObject, schemaCauses?: SchemaCauses): StatusCause[] {
  defaultCustomResourceDefinition(crd);
  prepareCustomResourceDefinitionForUpdate(crd, old);
  return customResourceDefinitionCauses(crd, old, schemaCauses);
}

export const dns1035Message = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

export function invalid(field: string, message: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message };
}

export function requiredCause(field: string, message = 'Required value'): StatusCause {
  return { reason: 'FieldValueRequired', field, message };
}
