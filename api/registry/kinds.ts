// Owns: the resource registry's data: every served kind as one entry (group, version,
// resource, kind, scope, short names, verbs, name rules, table columns, JSON schema).
// Adding a kind is one entry here plus its schema in schemas.ts; handlers are generic.
import { kindSchemas } from './schemas.ts';
import type { JsonSchema } from './schemas.ts';

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
}

export function apiVersionOf(kind: Pick<ResourceKind, 'group' | 'version'>): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

function dataCount(object: Record<string, unknown>): number {
  const data = object['data'];
  const binary = object['binaryData'];
  const count = (value: unknown): number =>
    value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
  return count(data) + count(binary);
}

function nested(object: Record<string, unknown>, ...path: string[]): unknown {
  let current: unknown = object;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function stringCell(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

export const servedKinds: readonly ResourceKind[] = [
  {
    group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace',
    namespaced: false, shortNames: ['ns'], categories: [],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'finalize', verbs: ['update'] }, { name: 'status', verbs: ['get', 'update'] }],
    fieldSelectors: { 'status.phase': (o) => stringCell(nested(o, 'status', 'phase')) },
    nameRule: 'dns1123Label',
    columns: [{ name: 'Status', type: 'string', description: 'The phase of the namespace', priority: 0,
      cell: (o) => stringCell(nested(o, 'status', 'phase')) }],
    schema: kindSchemas.Namespace,
  },
  {
    group: '', version: 'v1', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap',
    namespaced: true, shortNames: ['cm'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Data', type: 'integer', description: 'Number of entries in data and binaryData', priority: 0,
      cell: (o) => dataCount(o) }],
    schema: kindSchemas.ConfigMap,
  },
  {
    group: '', version: 'v1', resource: 'secrets', singular: 'secret', kind: 'Secret',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [
      { name: 'Type', type: 'string', description: 'The type of the secret', priority: 0,
        cell: (o) => stringCell(o['type'] ?? 'Opaque') },
      { name: 'Data', type: 'integer', description: 'Number of entries in data', priority: 0,
        cell: (o) => dataCount(o) },
    ],
    fieldSelectors: { type: (o) => stringCell(o['type']) },
    schema: kindSchemas.Secret,
  },
  {
    group: '', version: 'v1', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount',
    namespaced: true, shortNames: ['sa'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Secrets', type: 'integer', description: 'Number of secrets', priority: 0,
      cell: (o) => (Array.isArray(o['secrets']) ? o['secrets'].length : 0) }],
    schema: kindSchemas.ServiceAccount,
  },
  {
    group: '', version: 'v1', resource: 'events', singular: 'event', kind: 'Event',
    namespaced: true, shortNames: ['ev'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0,
        cell: (o, since) => since(o['lastTimestamp'] ?? o['eventTime'] ?? nested(o, 'metadata', 'creationTimestamp')) },
      { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future', priority: 0, cell: (o) => stringCell(o['type']) },
      { name: 'Reason', type: 'string', description: 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.', priority: 0, cell: (o) => stringCell(o['reason']) },
      { name: 'Object', type: 'string', description: 'The object that this event is about.', priority: 0,
        cell: (o) => `${stringCell(nested(o, 'involvedObject', 'kind')).toLowerCase()}/${stringCell(nested(o, 'involvedObject', 'name'))}` },
      { name: 'Subobject', type: 'string', description: 'The field of the involved object this event is about.', priority: 1, cell: (o) => stringCell(nested(o, 'involvedObject', 'fieldPath')) },
      { name: 'Source', type: 'string', description: 'The component reporting this event.', priority: 1,
        cell: (o) => [stringCell(nested(o, 'source', 'component')), stringCell(nested(o, 'source', 'host'))].filter((part) => part).join(', ') },
      { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', priority: 0, cell: (o) => stringCell(o['message']) },
      { name: 'First Seen', type: 'string', description: 'The time at which the event was first recorded.', priority: 1, cell: (o, since) => since(o['firstTimestamp'] ?? o['eventTime']) },
      { name: 'Count', type: 'string', description: 'The number of times this event has occurred.', priority: 1, cell: (o) => stringCell(o['count'] ?? 1) },
      { name: 'Name', type: 'string', format: 'name', description: 'Name of the event.', priority: 1, cell: (o) => stringCell(nested(o, 'metadata', 'name')) },
    ],
    fieldSelectors: {
      'involvedObject.kind': (o) => stringCell(nested(o, 'involvedObject', 'kind')),
      'involvedObject.namespace': (o) => stringCell(nested(o, 'involvedObject', 'namespace')),
      'involvedObject.name': (o) => stringCell(nested(o, 'involvedObject', 'name')),
      'involvedObject.uid': (o) => stringCell(nested(o, 'involvedObject', 'uid')),
      'involvedObject.apiVersion': (o) => stringCell(nested(o, 'involvedObject', 'apiVersion')),
      'involvedObject.resourceVersion': (o) => stringCell(nested(o, 'involvedObject', 'resourceVersion')),
      'involvedObject.fieldPath': (o) => stringCell(nested(o, 'involvedObject', 'fieldPath')),
      reason: (o) => stringCell(o['reason']),
      reportingComponent: (o) => stringCell(o['reportingComponent']),
      source: (o) => stringCell(nested(o, 'source', 'component')),
      type: (o) => stringCell(o['type']),
    },
    schema: kindSchemas.Event,
  },
  {
    group: 'coordination.k8s.io', version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease',
    namespaced: true, shortNames: [], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    columns: [{ name: 'Holder', type: 'string', description: 'The holder of the lease', priority: 0,
      cell: (o) => stringCell(nested(o, 'spec', 'holderIdentity')) }],
    schema: kindSchemas.Lease,
  },
];

/** Group versions served, in discovery order (core first). */
export function servedGroups(): { group: string; versions: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const kind of servedKinds) {
    const versions = groups.get(kind.group) ?? [];
    if (!versions.includes(kind.version)) versions.push(kind.version);
    groups.set(kind.group, versions);
  }
  return [...groups].map(([group, versions]) => ({ group, versions }));
}

export function findKind(group: string, version: string, resource: string): ResourceKind | undefined {
  return servedKinds.find((k) => k.group === group && k.version === version && k.resource === resource);
}
