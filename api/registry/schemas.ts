// Owns: the JSON schemas (ajv, draft-07 subset also used for OpenAPI) of every served kind, and
// the shared API types the kinds' schemas are built from (Quantity, IntOrString, Time and
// MicroTime, LabelSelector, ObjectReference, LocalObjectReference, metav1.Condition, list and map
// helpers carrying kube's x-kubernetes-* list extensions).
// Type-level structure only ("is data a map of strings"); semantic rules such as required
// fields and name formats live in the kind's strategy, so a wrong type is a decode error (400)
// and a missing field a validation error (422), as in kube-apiserver.

type ScalarType = 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';

export interface JsonSchema {
  /**
   * A list is nullable (`['string', 'null']`), int-or-string (`['integer', 'string']`, intstr.IntOrString)
   * or a quantity (`['number', 'string']`, resource.Quantity: `cpu: 0.5` and `cpu: 500m` both decode).
   */
  type?: ScalarType | ('string' | 'null')[] | ('integer' | 'string')[] | ('number' | 'string')[];
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
  /**
   * The fields kube's OpenAPI marks required (no omitempty, or +required): published as the
   * OpenAPI `required` (kubectl explain's "-required-"), not enforced by ajv: a missing field
   * is the strategy's 422, as in kube-apiserver.
   */
  requiredFields?: readonly string[];
  /**
   * The kube OpenAPI definition this node is (e.g. `io.k8s.api.core.v1.Probe`): the OpenAPI
   * documents publish it once under that name and refer to it; ajv ignores it.
   */
  definition?: string | undefined;
  /**
   * The values of a string enum (a Go string type marked +enum): published as the OpenAPI `enum`
   * (kubectl explain lists them), not enforced by ajv: kube checks them in validation (422), and
   * a value newer than this server is not a decode error.
   */
  enumValues?: readonly string[];
  /** kube's list and map extensions, published as they are in OpenAPI v2 and v3. */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** Strategic merge patch metadata (kubectl apply builds its patches from these). */
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
}

/** The extensions toOpenApiSchema copies into the OpenAPI documents. */
export const schemaExtensions = [
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy',
] as const satisfies readonly (keyof JsonSchema)[];

const str: JsonSchema = { type: 'string' };
const metaV1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** metav1.Time (RFC 3339, seconds); null and "" decode as the zero time. */
const nullableTime: JsonSchema = { type: ['string', 'null'], format: 'date-time-or-empty', definition: `${metaV1}.Time` };
const int: JsonSchema = { type: 'integer' };
const bool: JsonSchema = { type: 'boolean' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: str };
const stringList: JsonSchema = { type: 'array', items: str };

export function object(properties: Record<string, JsonSchema>, description?: string, requiredFields?: readonly string[]): JsonSchema {
  return {
    type: 'object', properties, additionalProperties: false,
    ...(description ? { description } : {}), ...(requiredFields ? { requiredFields } : {}),
  };
}

// --- shared API types (the names are kube's Go/OpenAPI types) ---

export const string: JsonSchema = str;
export const boolean: JsonSchema = bool;
export const int32: JsonSchema = { type: 'integer', format: 'int32' };
export const int64: JsonSchema = { type: 'integer', format: 'int64' };
export const double: JsonSchema = { type: 'number', format: 'double' };
export const time: JsonSchema = nullableTime;
/** metav1.MicroTime (RFC 3339 with microseconds). */
export const microTime: JsonSchema = { type: ['string', 'null'], format: 'date-time-or-empty', definition: `${metaV1}.MicroTime` };
/** intstr.IntOrString (targetPort, probe ports, …). */
export const intOrString: JsonSchema = { type: ['integer', 'string'], definition: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString' };
/** resource.Quantity: a string (`500m`, `1Gi`) or a number (`2`, `0.5`). */
export const quantity: JsonSchema = { type: ['number', 'string'], definition: 'io.k8s.apimachinery.pkg.api.resource.Quantity' };

/**
 * Names schema nodes as kube's OpenAPI definitions `<prefix>.<Name>` (JsonSchema.definition).
 * The nodes are shared objects, so every use of one is named at once.
 */
export function nameDefinitions(prefix: string, types: Record<string, JsonSchema | undefined>): void {
  for (const [name, schema] of Object.entries(types)) {
    if (schema === undefined) throw new Error(`no schema to name ${prefix}.${name}`);
    schema.definition = `${prefix}.${name}`;
  }
}

/** The node under `path` (property names; a list is stepped through to its items). */
export function at(schema: JsonSchema | undefined, ...path: string[]): JsonSchema | undefined {
  let node = schema;
  for (const name of path) {
    if (node?.type === 'array') node = node.items;
    node = node?.properties?.[name];
  }
  return node?.type === 'array' ? node.items : node;
}

/** A map with string keys (`map[string]V`); granular unless atomic is asked. */
export function mapOf(values: JsonSchema, mapType?: 'atomic'): JsonSchema {
  return { type: 'object', additionalProperties: values, ...(mapType ? { 'x-kubernetes-map-type': mapType } : {}) };
}

/** A list without list-type markers (kube's default: atomic, unmarked). */
export function listOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

/** +listType=atomic: replaced as a whole. */
export function atomicList(items: JsonSchema): JsonSchema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'atomic' };
}

/** +listType=set: a list of distinct scalars. */
export function setList(items: JsonSchema): JsonSchema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'set' };
}

/** Strategic merge patch metadata of a list (patchMergeKey, patchStrategy). */
export interface PatchMeta {
  readonly mergeKey?: string;
  readonly strategy: 'merge' | 'merge,retainKeys';
}

/** +listType=map with its +listMapKey fields, and optionally the strategic merge patch metadata. */
export function mapList(items: JsonSchema, keys: readonly string[], patch?: PatchMeta): JsonSchema {
  return {
    type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys,
    ...(patch?.mergeKey ? { 'x-kubernetes-patch-merge-key': patch.mergeKey } : {}),
    ...(patch ? { 'x-kubernetes-patch-strategy': patch.strategy } : {}),
  };
}

/** With the strategic merge patch metadata only (a list kube marks with patchStrategy but no listType=map). */
export function withPatch(list: JsonSchema, patch: PatchMeta): JsonSchema {
  return {
    ...list, ...(patch.mergeKey ? { 'x-kubernetes-patch-merge-key': patch.mergeKey } : {}),
    'x-kubernetes-patch-strategy': patch.strategy,
  };
}

export const quantityMap: JsonSchema = mapOf(quantity);

/** core/v1 LocalObjectReference (also inlined into the key selectors and env sources). */
export const localObjectReferenceFields = { name: str } as const satisfies Record<string, JsonSchema>;
export const localObjectReference = object(localObjectReferenceFields,
  'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.');
localObjectReference['x-kubernetes-map-type'] = 'atomic';

/** meta/v1 LabelSelector. */
export const labelSelector: JsonSchema = {
  ...object({
    matchLabels: stringMap,
    matchExpressions: atomicList(object({ key: str, operator: str, values: atomicList(str) },
      'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
      ['key', 'operator'])),
  }, 'A label selector is a label query over a set of resources. The result of matchLabels and matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no objects.'),
  'x-kubernetes-map-type': 'atomic',
};

/** meta/v1 Condition (Service status conditions). */
export const condition: JsonSchema = object({
  type: str, status: str, observedGeneration: int64, lastTransitionTime: time, reason: str, message: str,
}, 'Condition contains details for one aspect of the current state of this API Resource.',
['type', 'status', 'lastTransitionTime', 'reason', 'message']);

const ownerReference: JsonSchema = {
  ...object({
    apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool,
  }, 'OwnerReference contains enough information to let you identify an owning object.', ['apiVersion', 'kind', 'name', 'uid']),
  'x-kubernetes-map-type': 'atomic',
};

const managedFieldsEntry = object({
  manager: str, operation: str, apiVersion: str, time: nullableTime, fieldsType: str,
  fieldsV1: { type: 'object', definition: `${metaV1}.FieldsV1` }, subresource: str,
}, 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.');

export const objectMetaSchema: JsonSchema = object({
  name: str, generateName: str, namespace: str, selfLink: str, uid: str, resourceVersion: str,
  generation: int, creationTimestamp: nullableTime, deletionTimestamp: nullableTime,
  deletionGracePeriodSeconds: int, labels: stringMap, annotations: stringMap,
  // kube's list extensions: kubectl apply then deletes a dropped finalizer or owner reference
  // with $deleteFromPrimitiveList / $patch: delete, which api/patch/merge-patch.ts honours.
  ownerReferences: {
    type: 'array', items: ownerReference, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'],
    'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge',
  },
  finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
  managedFields: { type: 'array', items: managedFieldsEntry, 'x-kubernetes-list-type': 'atomic' },
}, 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.');

export function kindSchema(properties: Record<string, JsonSchema>, description: string, requiredFields?: readonly string[]): JsonSchema {
  return object({ apiVersion: str, kind: str, metadata: objectMetaSchema, ...properties }, description, requiredFields);
}

/** core/v1 ObjectReference. */
export const objectReference: JsonSchema = {
  ...object({
    kind: str, namespace: str, name: str, uid: str, apiVersion: str, resourceVersion: str, fieldPath: str,
  }, 'ObjectReference contains enough information to let you inspect or modify the referred object.'),
  'x-kubernetes-map-type': 'atomic',
};

/** core/v1 EventSource (core Event source, events.k8s.io deprecatedSource). */
export const eventSource: JsonSchema = object({ component: str, host: str }, 'EventSource contains information for an event.');

nameDefinitions(metaV1, {
  ObjectMeta: objectMetaSchema, OwnerReference: ownerReference, ManagedFieldsEntry: managedFieldsEntry,
  LabelSelector: labelSelector, LabelSelectorRequirement: at(labelSelector, 'matchExpressions'), Condition: condition,
});
export const coreV1 = 'io.k8s.api.core.v1';
nameDefinitions(coreV1, { ObjectReference: objectReference, LocalObjectReference: localObjectReference, EventSource: eventSource });

export const kindSchemas = {
  Namespace: kindSchema({
    spec: object({ finalizers: stringList }),
    status: object({
      phase: str,
      conditions: { type: 'array', items: object({ type: str, status: str, lastTransitionTime: nullableTime, reason: str, message: str }) },
    }),
  }, 'Namespace provides a scope for Names.'),
  ConfigMap: kindSchema({
    data: stringMap, binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, immutable: bool,
  }, 'ConfigMap holds configuration data for pods to consume.'),
  Secret: kindSchema({
    data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
    stringData: stringMap, type: str, immutable: bool,
  }, 'Secret holds secret data of a certain type.'),
  ServiceAccount: kindSchema({
    secrets: { type: 'array', items: objectReference },
    imagePullSecrets: { type: 'array', items: object({ name: str }) },
    automountServiceAccountToken: bool,
  }, 'ServiceAccount binds together a name, a principal and a set of secrets.'),
  Event: kindSchema({
    involvedObject: objectReference, reason: str, message: str,
    source: eventSource,
    firstTimestamp: time, lastTimestamp: time, count: int32, type: str,
    eventTime: microTime,
    series: object({ count: int32, lastObservedTime: microTime }, 'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.'),
    action: str, related: objectReference, reportingComponent: str, reportingInstance: str,
  }, 'Event is a report of an event somewhere in the cluster.', ['metadata', 'involvedObject']),
  Lease: kindSchema({
    spec: object({
      holderIdentity: str, leaseDurationSeconds: int, acquireTime: nullableTime, renewTime: nullableTime,
      leaseTransitions: int, strategy: str, preferredHolder: str,
    }),
  }, 'Lease defines a lease concept.'),
} as const satisfies Record<string, JsonSchema>;

nameDefinitions(coreV1, { EventSeries: at(kindSchemas.Event, 'series') });
