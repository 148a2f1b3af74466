// Owns: a fixed corpus of field-manager runs over every served kind — a create (an Update from
// the kind's zero object, with and without managedFields in the body), an Update by a second
// manager, a status write, server-side applies (conflicting, forced, creating) — and one
// digest per kind of everything they produce (managedFields, merged objects, conflict
// messages). managed-fields-golden.test.ts compares the digests with the ones recorded in
// fixtures/managed-fields-digests.json, so a change of the field manager's code that changes
// any output for any kind is caught. Run this module directly to print the digests:
// `node --import tsx test/unit/api/managed-fields-corpus.ts > test/unit/api/fixtures/managed-fields-digests.json`
// (only when an output is meant to change, e.g. a kind's schema changed).
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../actors/index.ts';
import { applyConfiguration } from '../../../api/fieldmanager/managed-fields.ts';
import type { WriteIdentity } from '../../../api/fieldmanager/managed-fields.ts';
import { ownershipScope, trackUpdate } from '../../../api/fieldmanager/request.ts';
import { apiVersionOf, servedKinds } from '../../../api/registry/kinds.ts';
import type { ResourceKind } from '../../../api/registry/kinds.ts';
import * as fixtures from './protobuf-kinds-fixtures.ts';

type Loose = Record<string, unknown> & { metadata: Record<string, unknown> };

const identityA = { manager: 'alpha', subresource: '', time: '2026-11-28T18:00:00Z' };
const identityB = { manager: 'beta', subresource: '', time: '2026-11-28T18:00:05Z' };
const identityStatus = { manager: 'gamma', subresource: 'status', time: '2026-11-28T18:00:09Z' };

// By export name: a module namespace's own order differs between loaders.
const richObjects = Object.entries(fixtures).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value as unknown).filter((value): value is Loose => (
  value !== null && typeof value === 'object' && typeof (value as Loose)['kind'] === 'string' && typeof (value as Loose)['apiVersion'] === 'string'
));

/** Bodies of every shape the field manager treats apart: lists of each relation, empty and null values, requested managedFields. */
function variant(kind: ResourceKind, number: number): Loose {
  const object: Loose = {
    apiVersion: apiVersionOf(kind), kind: kind.kind,
    metadata: {
      name: `o${number}`, namespace: 'n', labels: { a: 'b', c: '' }, annotations: { x: 'y' }, finalizers: ['f/1', 'f/2'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u1' }, { apiVersion: 'v1', kind: 'Y', name: 'y' }], uid: 'uu', creationTimestamp: 't',
    },
  };
  switch (number) {
    case 0:
      object['spec'] = { a: 1, b: [1, 2, 2], c: {}, d: null, e: { f: [{ name: 'q', v: 1 }, { name: 'q', v: 2 }] } };
      object['data'] = { k: 'v', l: '' };
      object['status'] = { phase: 'X', conditions: [{ type: 'A', status: 'True' }] };
      break;
    case 1:
      object['spec'] = {};
      object['data'] = {};
      object.metadata['labels'] = {};
      break;
    case 2:
      object['spec'] = {
        containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }], env: [{ name: 'E', value: '1' }] }],
        volumes: [{ name: 'v', emptyDir: {} }], tolerations: [{ key: 'k' }],
      };
      object.metadata['managedFields'] = [{}];
      break;
    case 3:
      object.metadata['managedFields'] = [{ manager: 'old', operation: 'Update', apiVersion: 'v1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } }];
      object['spec'] = { replicas: 3, template: { spec: { containers: [{ name: 'a', image: 'b' }] } } };
      break;
    case 4:
      object.metadata['managedFields'] = [{ bogus: 1 }];
      object['rules'] = [{ apiGroups: [''], verbs: ['get'] }];
      object['subjects'] = [{ kind: 'User', name: 'u' }];
      break;
    default:
      object.metadata['managedFields'] = [];
      object['spec'] = { ports: [{ port: 80, protocol: 'TCP' }, { port: 81 }], selector: { app: 'x' }, clusterIP: '1.2.3.4' };
  }
  return object;
}

function changed(object: Loose, number: number): Loose {
  const copy = structuredClone(object);
  copy.metadata['labels'] = { ...(copy.metadata['labels'] as Record<string, string> | undefined ?? {}), added: String(number) };
  const annotations = copy.metadata['annotations'] as Record<string, string> | undefined;
  if (annotations) delete annotations[Object.keys(annotations)[0] ?? 'none'];
  const spec = copy['spec'];
  if (spec !== null && typeof spec === 'object' && !Array.isArray(spec)) {
    const fields = spec as Record<string, unknown>;
    const keys = Object.keys(fields);
    if (keys.length > 1) delete fields[keys[0]!];
    fields['zz'] = { n: number };
  }
  if (copy['data'] !== undefined) copy['data'] = { k: 'changed' };
  if (copy['status'] !== undefined) copy['status'] = { ...(copy['status'] as Record<string, unknown>), observed: number };
  return copy;
}

function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run() ?? null);
  } catch (error) {
    const status = (error as { status?: { message?: string } }).status;
    return `error: ${status?.message ?? String(error)}`;
  }
}

/** Every output of the corpus for one kind, one line each. */
export function kindOutputs(kind: ResourceKind): string[] {
  const apiVersion = apiVersionOf(kind);
  const target = { kind, namespace: kind.namespaced ? 'n' : '', name: undefined, subresource: undefined };
  const scope = ownershipScope(target);
  const as = (identity: Omit<WriteIdentity, 'apiVersion'>): WriteIdentity => ({ ...identity, apiVersion });
  const bodies = [
    ...richObjects.filter((object) => object['kind'] === kind.kind).map((object): Loose => ({ ...structuredClone(object), apiVersion })),
    ...[0, 1, 2, 3, 4, 5].map((number) => variant(kind, number)),
  ];
  const lines: string[] = [];
  bodies.forEach((body, number) => {
    const created = structuredClone(body) as unknown as KubeObject;
    lines.push(outcome(() => {
      trackUpdate(undefined, created, target, as(identityA), structuredClone(body) as unknown as KubeObject);
      return created.metadata.managedFields;
    }));
    const updated = changed(created as unknown as Loose, number) as unknown as KubeObject;
    lines.push(outcome(() => {
      trackUpdate(created, updated, target, as(identityB));
      return updated.metadata.managedFields;
    }));
    const status = changed(updated as unknown as Loose, number + 100) as unknown as KubeObject;
    lines.push(outcome(() => {
      trackUpdate(updated, status, target, as(identityStatus));
      return status.metadata.managedFields;
    }));
    const config = { apiVersion, kind: kind.kind, metadata: { name: body.metadata['name'], labels: { applied: 'yes', a: 'z' } }, spec: body['spec'] ?? { a: 2 } } as unknown as KubeObject;
    for (const force of [false, true]) {
      lines.push(outcome(() => applyConfiguration(status, config, as({ ...identityA, manager: 'kubectl' }), scope, force).object));
    }
    const zero = { apiVersion, kind: kind.kind, metadata: {} } as unknown as KubeObject;
    lines.push(outcome(() => applyConfiguration(zero, config, as({ ...identityA, manager: 'm' }), scope, false).object));
  });
  return lines;
}

/** sha256 of each served kind's outputs, keyed `group/version/resource`. */
export function corpusDigests(): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const kind of servedKinds) {
    digests[`${kind.group}/${kind.version}/${kind.resource}`] = createHash('sha256').update(kindOutputs(kind).join('\n')).digest('hex');
  }
  return digests;
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${JSON.stringify(corpusDigests(), null, 1)}\n`);
