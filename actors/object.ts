// Owns: the plain TypeScript shape of a stored Kubernetes object and of its storage key.
// Pure data types; the wire form (JSON) is the same shape.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: JsonValue[];
  managedFields?: JsonValue[];
  [field: string]: JsonValue | undefined;
}

/** A Kubernetes object as stored: apiVersion, kind, metadata and the kind's own fields. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: JsonValue | ObjectMeta | undefined;
}

/**
 * Identifies one object in the store. `group` is "" for the core group; `namespace` is ""
 * for cluster-scoped objects. `resource` is the plural resource name (e.g. "configmaps").
 */
export interface ObjectKey {
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** Identifies a collection: every object of a resource, optionally within one namespace. */
export interface CollectionKey {
  readonly group: string;
  readonly resource: string;
  /** "" means all namespaces (or a cluster-scoped resource). */
  readonly namespace: string;
}

/** The canonical string form of a key, ordered so a collection is one contiguous range. */
export function keyString(key: ObjectKey): string {
  return `${key.group}/${key.resource}/${key.namespace}/${key.name}`;
}

export function collectionPrefix(collection: CollectionKey): string {
  return collection.namespace === ''
    ? `${collection.group}/${collection.resource}/`
    : `${collection.group}/${collection.resource}/${collection.namespace}/`;
}
