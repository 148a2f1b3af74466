// Owns: the JSON schemas (ajv, draft-07 subset also used for OpenAPI) of every served kind.
// Type-level structure only ("is data a map of strings"); semantic rules such as required
// fields and name formats live in the kind's strategy, so a wrong type is a decode error (400)
// and a missing field a validation error (422), as in kube-apiserver.

export interface JsonSchema {
  /** A list is nullable (`['string', 'null']`) or int-or-string (`['integer', 'string']`). */
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | ('string' | 'null')[] | ('integer' | 'string')[];
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
}

const str: JsonSchema = { type: 'string' };
const nullableTime: JsonSchema = { type: ['string', 'null'], format: 'date-time-or-empty' };
const int: JsonSchema = { type: 'integer' };
const bool: JsonSchema = { type: 'boolean' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: str };
const stringList: JsonSchema = { type: 'array', items: str };

export function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return { type: 'object', properties, additionalProperties: false, ...(description ? { description } : {}) };
}

const ownerReference = object({
  apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool,
});

const managedFieldsEntry = object({
  manager: str, operation: str, apiVersion: str, time: nullableTime, fieldsType: str,
  fieldsV1: { type: 'object' }, subresource: str,
});

export const objectMetaSchema: JsonSchema = object({
  name: str, generateName: str, namespace: str, selfLink: str, uid: str, resourceVersion: str,
  generation: int, creationTimestamp: nullableTime, deletionTimestamp: nullableTime,
  deletionGracePeriodSeconds: int, labels: stringMap, annotations: stringMap,
  ownerReferences: { type: 'array', items: ownerReference }, finalizers: stringList,
  managedFields: { type: 'array', items: managedFieldsEntry },
}, 'Standard object metadata.');

export function kindSchema(properties: Record<string, JsonSchema>, description: string): JsonSchema {
  return object({ apiVersion: str, kind: str, metadata: objectMetaSchema, ...properties }, description);
}

export const objectReference = object({
  apiVersion: str, kind: str, name: str, namespace: str, uid: str, resourceVersion: str, fieldPath: str,
});

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
    source: object({ component: str, host: str }),
    firstTimestamp: nullableTime, lastTimestamp: nullableTime, count: int, type: str,
    eventTime: nullableTime,
    series: object({ count: int, lastObservedTime: nullableTime }),
    action: str, related: objectReference, reportingComponent: str, reportingInstance: str,
  }, 'Event is a report of an event somewhere in the cluster.'),
  Lease: kindSchema({
    spec: object({
      holderIdentity: str, leaseDurationSeconds: int, acquireTime: nullableTime, renewTime: nullableTime,
      leaseTransitions: int, strategy: str, preferredHolder: str,
    }),
  }, 'Lease defines a lease concept.'),
} as const satisfies Record<string, JsonSchema>;
