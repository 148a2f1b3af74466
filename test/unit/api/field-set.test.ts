// Field sets (api/fieldmanager/field-set.ts, typed.ts) and managed-fields bookkeeping
// (managed-fields.ts) as pure functions: fieldsV1 round trips, associative lists by their
// map keys, set lists, atomic lists, the stripped metadata paths and reset fields, Update and
// Apply ownership, conflicts, capping.
import { describe, expect, it } from 'vitest';
import type { JsonValue, KubeObject } from '../../../actors/index.ts';
import { FieldSet, FieldSetError, pathString } from '../../../api/fieldmanager/field-set.ts';
import { compare, configurationProblems, merge, toFieldSet, zeroObject } from '../../../api/fieldmanager/typed.ts';
import {
  applyConfiguration, decodeManagedFields, fieldManagerProblems, managerFromUserAgent, updateManagedFields,
} from '../../../api/fieldmanager/managed-fields.ts';
import type { WriteIdentity } from '../../../api/fieldmanager/managed-fields.ts';
import { ApiError } from '../../../api/status.ts';
import { findKind } from '../../../api/registry/kinds.ts';

const configMaps = findKind('', 'v1', 'configmaps')!;
const pods = findKind('', 'v1', 'pods')!;
const cmScope = { schema: configMaps.schema, hasStatus: false };
const podScope = { schema: pods.schema, hasStatus: true };

function identity(manager: string, time = '2026-01-01T00:00:00Z', subresource = ''): WriteIdentity {
  return { manager, apiVersion: 'v1', subresource, time };
}

function configMap(data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 't', ...extra }, data };
}

function entries(object: KubeObject): Record<string, unknown>[] {
  return (object.metadata.managedFields ?? []) as Record<string, unknown>[];
}

describe('FieldSet', () => {
  it('round-trips fieldsV1 with members that are also prefixes', () => {
    const fields = {
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    };
    const set = FieldSet.fromFieldsV1(fields);
    expect(set.toFieldsV1()).toEqual(fields);
    expect(JSON.stringify(set.toFieldsV1())).toBe(JSON.stringify(fields));
    expect(set.has(['f:data'])).toBe(true);
    expect(set.has(['f:metadata'])).toBe(false);
    expect(set.has(['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'])).toBe(true);
    expect(set.size()).toBe(8);
  });

  it('orders fields before keys, values and indexes as structured-merge-diff', () => {
    const set = FieldSet.of(['i:1'], ['v:"x"'], ['k:{"a":1}'], ['f:z'], ['f:a']);
    expect(Object.keys(set.toFieldsV1())).toEqual(['f:a', 'f:z', 'k:{"a":1}', 'v:"x"', 'i:1']);
  });

  it('union, difference and intersection are exact on paths', () => {
    const a = FieldSet.of(['f:data', 'f:a'], ['f:data', 'f:b'], ['f:data']);
    const b = FieldSet.of(['f:data', 'f:b'], ['f:data', 'f:c']);
    expect(a.union(b).toFieldsV1()).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {}, 'f:c': {} } });
    expect(a.difference(b).toFieldsV1()).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
    expect(a.intersection(b).toFieldsV1()).toEqual({ 'f:data': { 'f:b': {} } });
    expect(a.difference(a).empty()).toBe(true);
    expect(a.withoutSubtree(['f:data']).empty()).toBe(true);
  });

  it('rejects malformed fieldsV1', () => {
    expect(() => FieldSet.fromFieldsV1({ 'x:y': {} })).toThrow(FieldSetError);
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow(FieldSetError);
    expect(() => FieldSet.fromFieldsV1({ 'k:{bad': {} })).toThrow(FieldSetError);
  });

  it('prints paths as structured-merge-diff', () => {
    expect(pathString(['f:spec', 'f:replicas'])).toBe('.spec.replicas');
    expect(pathString(['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'])).toBe('.spec.containers[name="c"].image');
    expect(pathString(['f:spec', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'])).toBe('.spec.ports[containerPort=80,protocol="TCP"]');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"x"'])).toBe('.metadata.finalizers[="x"]');
  });
});

describe('typed field sets', () => {
  it('an applied configuration owns leaves, map keys and list items, not declared structs', () => {
    const config = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' }, finalizers: ['a/b'] },
      spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], args: ['x', 'y'] }] },
    } as JsonValue;
    expect(toFieldSet(config, pods.schema).toFieldsV1()).toEqual({
      'f:apiVersion': {}, 'f:kind': {},
      'f:metadata': { 'f:finalizers': { 'v:"a/b"': {} }, 'f:labels': { 'f:app': {} }, 'f:name': {} },
      'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:args': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } } },
    });
  });

  it('compare marks new maps and items as added, changed leaves as modified', () => {
    const before = { data: { a: '1', b: '2' } } as JsonValue;
    const after = { data: { a: '9', c: '3' }, metadata: { labels: { x: 'y' } } } as JsonValue;
    const result = compare(before, after, configMaps.schema);
    expect(result.modified.toFieldsV1()).toEqual({ 'f:data': { 'f:a': {} } });
    expect(result.added.toFieldsV1()).toEqual({ 'f:data': { 'f:c': {} }, 'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:x': {} } } });
    expect(result.removed.toFieldsV1()).toEqual({ 'f:data': { 'f:b': {} } });
  });

  it('refuses undeclared fields and duplicate list keys in a configuration, as the typed converter', () => {
    const config = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { any: 'key' } },
      spec: { containers: [{ name: 'c', bogus: 1 }, { name: 'c' }], nodeName: 'n' }, extra: true,
    } as JsonValue;
    expect(configurationProblems(config, pods.schema)).toEqual([
      '.spec.containers[name="c"].bogus: field not declared in schema',
      '.spec.containers: duplicate entries for key [name="c"]',
      '.extra: field not declared in schema',
    ]);
    expect(configurationProblems({ spec: { containers: [{ image: 'x' }] } } as JsonValue, pods.schema)).toEqual([
      '.spec.containers: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
    ]);
  });

  it('merges associative lists by key and keeps live items', () => {
    const live = { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '2' }] } } as JsonValue;
    const config = { spec: { containers: [{ name: 'b', image: '3' }, { name: 'c', image: '4' }] } } as JsonValue;
    expect(merge(live, config, pods.schema)).toEqual({ spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '3' }, { name: 'c', image: '4' }] } });
  });

  it('a pod create owns spec fields without "." on spec or containers (the zero object has them)', () => {
    const zero = zeroObject(pods.schema, 'v1', 'Pod') as unknown as KubeObject;
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { run: 'p' } }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending' } };
    updateManagedFields(zero, pod, identity('kubectl-run'), podScope);
    expect(entries(pod)).toEqual([{
      manager: 'kubectl-run', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:run': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    }]);
  });
});

describe('managedFields on Update', () => {
  it('strips metadata paths, moves changed fields between managers and drops empty entries', () => {
    const zero = { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } as KubeObject;
    const created = configMap({ a: '1', b: '2' }, { uid: 'u', resourceVersion: '5', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' });
    updateManagedFields(zero, created, identity('one'), cmScope);
    expect(entries(created)[0]!['fieldsV1']).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } });

    const second = structuredClone(created);
    second['data'] = { a: '1', b: '3' };
    updateManagedFields(created, second, identity('two', '2026-01-01T00:01:00Z'), cmScope);
    expect(entries(second).map((entry) => [entry['manager'], entry['fieldsV1']])).toEqual([
      ['one', { 'f:data': { '.': {}, 'f:a': {} } }],
      ['two', { 'f:data': { 'f:b': {} } }],
    ]);

    const third = structuredClone(second);
    third['data'] = { b: '4' };
    updateManagedFields(second, third, identity('two', '2026-01-01T00:02:00Z'), cmScope);
    expect(entries(third).map((entry) => [entry['manager'], entry['fieldsV1'], entry['time']])).toEqual([
      ['one', { 'f:data': {} }, '2026-01-01T00:00:00Z'],
      ['two', { 'f:data': { 'f:b': {} } }, '2026-01-01T00:02:00Z'],
    ]);
  });

  it('keeps the time when nothing changed, resets with [{}] and keeps the live entries for []', () => {
    const live = configMap({ a: '1' });
    updateManagedFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, live, identity('one'), cmScope);
    const same = structuredClone(live);
    updateManagedFields(live, same, identity('one', '2026-02-02T00:00:00Z'), cmScope);
    expect(same.metadata.managedFields).toEqual(live.metadata.managedFields);

    const reset = structuredClone(live);
    reset.metadata.managedFields = [{}];
    updateManagedFields(live, reset, identity('two'), cmScope);
    expect(reset.metadata.managedFields).toBeUndefined();

    const resetAndChange = structuredClone(live);
    resetAndChange.metadata.managedFields = [{}];
    resetAndChange['data'] = { a: '1', b: '2' };
    updateManagedFields(live, resetAndChange, identity('two'), cmScope);
    expect(entries(resetAndChange).map((entry) => [entry['manager'], entry['fieldsV1']])).toEqual([['two', { 'f:data': { 'f:b': {} } }]]);

    const emptyList = structuredClone(live);
    emptyList.metadata.managedFields = [];
    updateManagedFields(live, emptyList, identity('two'), cmScope);
    expect(emptyList.metadata.managedFields).toEqual(live.metadata.managedFields);
  });

  it('keeps valid client-sent entries and ignores invalid ones', () => {
    const live = configMap({ a: '1' });
    updateManagedFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, live, identity('one'), cmScope);
    const given = structuredClone(live);
    given.metadata.managedFields = [{ manager: 'other', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    updateManagedFields(live, given, identity('one'), cmScope);
    expect(entries(given).map((entry) => entry['manager'])).toEqual(['other']);
    const invalid = structuredClone(live);
    invalid.metadata.managedFields = [{ manager: 'other', operation: 'Nope', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }];
    updateManagedFields(live, invalid, identity('one'), cmScope);
    expect(invalid.metadata.managedFields).toEqual(live.metadata.managedFields);
    expect(() => decodeManagedFields([{ operation: 'Update', apiVersion: 'v1' }])).toThrow('missing fieldsType in managed fields entry 0');
  });

  it('a main-resource write does not own status; a status write owns only status', () => {
    const zero = zeroObject(pods.schema, 'v1', 'Pod') as unknown as KubeObject;
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    updateManagedFields(zero, pod, identity('creator'), podScope);
    const withStatus = structuredClone(pod);
    withStatus['status'] = { phase: 'Running' };
    updateManagedFields(pod, withStatus, identity('kubelet', '2026-01-01T00:00:00Z', 'status'), podScope);
    expect(entries(withStatus).map((entry) => [entry['manager'], entry['subresource'], entry['fieldsV1']])).toEqual([
      ['creator', undefined, { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
      ['kubelet', 'status', { 'f:status': { '.': {}, 'f:phase': {} } }],
    ]);
  });

  it('caps Update entries at 10, merging the oldest into ancient-changes', () => {
    let live = configMap({});
    for (let i = 0; i < 12; i++) {
      const next = structuredClone(live);
      next['data'] = { ...(next['data'] as Record<string, string>), [`k${i}`]: 'v' };
      updateManagedFields(live, next, identity(`m${i}`, `2026-01-01T00:00:${String(10 + i)}Z`), cmScope);
      live = next;
    }
    const managers = entries(live).map((entry) => entry['manager']);
    expect(managers).toHaveLength(10);
    // The bucket takes the time of the newest update merged into it (m2's), so it sorts first.
    expect(managers.slice(0, 2)).toEqual(['ancient-changes', 'm3']);
    const ancient = entries(live).find((entry) => entry['manager'] === 'ancient-changes')!;
    expect(ancient['fieldsV1']).toEqual({ 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
  });
});

describe('server-side apply', () => {
  const zero = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });

  it('owns the configuration, detects conflicts, forces and prunes', () => {
    const first = applyConfiguration(zero(), configMap({ a: '1', b: '2' }), identity('alice'), cmScope, false).object;
    expect(entries(first)).toEqual([{
      manager: 'alice', operation: 'Apply', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } },
    }]);
    // Same value: shared ownership, no conflict.
    const shared = applyConfiguration(first, configMap({ a: '1' }), identity('bob'), cmScope, false).object;
    expect(entries(shared).map((entry) => entry['manager'])).toEqual(['alice', 'bob']);
    // A different value: conflict.
    let error: unknown;
    try {
      applyConfiguration(shared, configMap({ b: 'x' }), identity('bob'), cmScope, false);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toMatchObject({
      code: 409, reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "alice": .data.b',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.b' }] },
    });
    const forced = applyConfiguration(shared, configMap({ b: 'x' }), identity('bob'), cmScope, true).object;
    expect(forced['data']).toEqual({ a: '1', b: 'x' });
    expect(entries(forced).map((entry) => [entry['manager'], entry['fieldsV1']])).toEqual([
      ['alice', { 'f:data': { 'f:a': {} } }],
      ['bob', { 'f:data': { 'f:b': {} } }],
    ]);
    // alice drops a (bob no longer owns it either) → removed; bob's b stays.
    const pruned = applyConfiguration(forced, configMap({ c: '3' }), identity('alice'), cmScope, false).object;
    expect(pruned['data']).toEqual({ b: 'x', c: '3' });
  });

  it('keeps fields another manager still owns when the applier drops them', () => {
    const first = applyConfiguration(zero(), configMap({ a: '1', b: '2' }), identity('alice'), cmScope, false).object;
    const both = applyConfiguration(first, configMap({ a: '1' }), identity('bob'), cmScope, false).object;
    const dropped = applyConfiguration(both, configMap({ b: '2' }), identity('alice'), cmScope, false).object;
    expect(dropped['data']).toEqual({ a: '1', b: '2' });
  });

  it('reports conflicts with updaters by apiVersion and several conflicts grouped by manager', () => {
    const live = configMap({ a: '1', b: '2' });
    updateManagedFields(zero(), live, identity('kubectl-create'), cmScope);
    try {
      applyConfiguration(live, configMap({ a: 'x', b: 'y' }), identity('alice'), cmScope, false);
      expect.unreachable();
    } catch (error) {
      expect((error as ApiError).status.message).toBe('Apply failed with 2 conflicts: conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b');
    }
  });
});

describe('fieldManager', () => {
  it('is the User-Agent prefix by default and must be short and printable', () => {
    expect(managerFromUserAgent('kubectl-client-side-apply/v1.31.0 (linux/amd64) kubernetes/abc')).toBe('kubectl-client-side-apply');
    expect(managerFromUserAgent(undefined)).toBe('');
    expect(fieldManagerProblems('ok')).toEqual([]);
    expect(fieldManagerProblems('x'.repeat(129))[0]!.message).toBe('Too long: may not be more than 128 bytes');
    expect(fieldManagerProblems('a\u0007')[0]!.message).toContain('invalid character U+0007 (at position 1)');
  });
});
