// Owns: what a served kind is: the ResourceKind description (names, scope, verbs, subresources,
// table columns, field selectors, schema, storage and its strategy hooks) and the small helpers
// every kind file shares. One kind is one ResourceKind value in api/registry/kinds/<group>.ts;
// nothing else in the API tier keeps a per-kind table.
import type { KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { UserInfo } from '../auth/authn.ts';
import type { JsonSchema } from './schemas.ts';
import type { FieldChecks } from './validation.ts';
import { SchemaBuilder, schemaOfKind } from './schema-from-description.ts';
import type { MessageName } from './kind-description.ts';

/** One builder for every served kind, so the kinds share their definitions (one per name in OpenAPI). */
const schemaBuilder = new SchemaBuilder();

/** A kind's schema, built from its generated description (api/registry/generated). */
export function schemaOf(message: MessageName): JsonSchema {
  return schemaOfKind(message, schemaBuilder);
}

/**
 * A kind's create and update hooks (kube-apiserver's RESTCreateStrategy / RESTUpdateStrategy):
 * normalising the object (prepareFor*), and the kind's own validation rules as 422 causes. The
 * generic pipeline in endpoints/ calls these; a kind with no rules of its own has only
 * allowCreateOnUpdate.
 */
export interface Strategy {
  /**
   * kube's AllowCreateOnUpdate: whether a PUT of an absent object creates it (else 404
   * NotFound).
   */
  readonly allowCreateOnUpdate: boolean;
  /** Normalises a new object in place (after server metadata is set); `request.user` is who creates it. */
  prepareForCreate?(object: KubeObject, request: { readonly user: UserInfo }): void;
  /** Normalises an update in place, given the stored object. */
  prepareForUpdate?(object: KubeObject, old: KubeObject): void;
  validate?(object: KubeObject): StatusCause[];
  /** Rules for a new object only (kube's ValidateEventCreate for events.k8s.io/v1), after validate. */
  validateCreate?(object: KubeObject): StatusCause[];
  /**
   * Normalises a write to a subresource that replaces part of the object (status, approval), after
   * endpoints/subresource.ts took everything else from `old` (kube's per-subresource strategies).
   */
  prepareForSubresourceUpdate?(subresource: string, object: KubeObject, old: KubeObject): void;
  /** `subresource` is undefined for the main resource. */
  validateUpdate?(object: KubeObject, old: KubeObject, subresource?: string): StatusCause[];
}

/** A kind without rules of its own: no create on PUT. */
export const genericStrategy: Strategy = { allowCreateOnUpdate: false };

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export const standardVerbs: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** How a kind's object names are validated (k8s apimachinery validation). */
export type NameRule = 'dns1123Label' | 'dns1123Subdomain' | 'pathSegment';

export interface TableColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  readonly format?: string;
  readonly description: string;
  /** 0 = shown by default; >0 only with -o wide. */
  readonly priority: number;
  /** Computes the cell from the object; `since` renders a timestamp as an age ("5m"). */
  readonly cell: (object: Record<string, unknown>, since: (timestamp: unknown) => string) => string | number | boolean | null;
}

/**
 * How a kind's Table rows are laid out: 'standard' is Name, the kind's columns, Age (most
 * built-in printers); 'columnsOnly' is the kind's columns alone (the events printer, which
 * leads with Last Seen and shows Name only with -o wide).
 */
export type TableLayout = 'standard' | 'columnsOnly';

export interface Subresource {
  readonly name: string;
  readonly verbs: readonly Verb[];
  /** The kind the subresource takes and answers when not the resource's own (pods/eviction: policy/v1 Eviction). */
  readonly responseKind?: { readonly group: string; readonly version: string; readonly kind: string };
}

/**
 * The storage a kind is served over when it is not its own: kube-apiserver stores one resource
 * `events` (as core/v1 Event) and serves it under core/v1 and events.k8s.io/v1. Both kinds name
 * the same objects (the stored resource's keys, so the same resourceVersions and one watch
 * stream); endpoints/served-view.ts converts every object read, proposed and watched.
 */
export interface StoredAs {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  /** The served form → the stored form. Returns a new object. */
  toStored(object: KubeObject): KubeObject;
  /**
   * The stored form → the served form. Returns a new object; never throws, except for a
   * conversion that needs I/O (below) of an object that was not prepared (a 500).
   */
  fromStored(object: KubeObject): KubeObject;
  /**
   * Set when converting needs I/O (a CRD's conversion webhook): converts these stored objects
   * ahead, so that fromStored answers them at once. The served view calls it before a request's
   * reads, on every watch event and on every write's result.
   */
  prepare?(objects: readonly KubeObject[]): Promise<void>;
  /** The served form → the stored form when that needs I/O; used instead of toStored when set. */
  toStoredAsync?(object: KubeObject): Promise<KubeObject>;
}

/**
 * How a kind is seen as an autoscaling/v1 Scale (its `scale` subresource): where the desired and
 * current replica counts live, and the label selector string of its pods (kube's
 * scale.status.selector).
 */
export interface ScaleDescription {
  readonly specReplicasPath: readonly string[];
  readonly statusReplicasPath: readonly string[];
  /** The pods' label selector as a string ("" when there is none). */
  selector(object: Record<string, unknown>): string;
}

export interface ResourceKind {
  readonly group: string;
  readonly version: string;
  /** Plural lowercase name used in URLs. */
  readonly resource: string;
  readonly singular: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly Verb[];
  /** Subresources served under the item path (e.g. namespaces/finalize). */
  readonly subresources?: readonly Subresource[];
  readonly nameRule: NameRule;
  /** Columns after Name (and before Age) in the standard layout; all columns otherwise. */
  readonly columns: readonly TableColumn[];
  readonly tableLayout?: TableLayout;
  /** Field selectors the kind supports beyond metadata.name and metadata.namespace (kube's per-kind field label conversion). */
  readonly fieldSelectors?: Readonly<Record<string, (object: Record<string, unknown>) => string>>;
  /** JSON schema (ajv) of the whole object. */
  readonly schema: JsonSchema;
  /** Set when the kind is a served view of another kind's storage (see StoredAs). */
  readonly storage?: StoredAs;
  /** Set when the kind has a `scale` subresource. */
  readonly scale?: ScaleDescription;
  /** Create and update hooks (defaults, validation, generation, status resets, create on PUT). */
  readonly strategy: Strategy;
  /**
   * How a request's object is decoded when the kind has no Go type behind it (a custom resource):
   * unknown fields are pruned and reported per the fieldValidation level (Strict throws, Warn
   * returns the warnings), and types are left to validation (422), as kube decodes unstructured
   * objects. Absent: the JSON schema decode of registry/validation.ts.
   */
  readonly decode?: (object: KubeObject, checks: FieldChecks) => string[];
  /** False for a kind without patch strategies (a custom resource): strategic merge patch is 415. */
  readonly strategicMerge?: boolean;
  /** Sent as a Warning on every request to the kind (a deprecated version of a custom resource). */
  readonly deprecationWarning?: string;
  /** Set for a kind a CustomResourceDefinition describes: which one (its name and uid). */
  readonly definedBy?: { readonly name: string; readonly uid: string };
}

/** The group and resource whose keys hold a kind's objects. */
export function storedResourceOf(kind: ResourceKind): { readonly group: string; readonly resource: string } {
  return kind.storage ?? kind;
}

export function apiVersionOf(kind: Pick<ResourceKind, 'group' | 'version'>): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

/** Cells shared by kind files. */
export function nestedValue(object: Record<string, unknown>, ...path: string[]): unknown {
  let current: unknown = object;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function stringCell(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

export const nameColumn: TableColumn = {
  name: 'Name', type: 'string', format: 'name', priority: 0,
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (o) => stringCell(nestedValue(o, 'metadata', 'name')),
};

export const ageColumn: TableColumn = {
  name: 'Age', type: 'string', priority: 0,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  cell: (o, since) => since(nestedValue(o, 'metadata', 'creationTimestamp')),
};

