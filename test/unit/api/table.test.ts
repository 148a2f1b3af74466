// Table conversion (kubectl get) and Accept parsing.
import { describe, expect, it } from 'vitest';
import { findKind } from '../../../api/registry/kinds.ts';
import { humanDuration, parseAcceptHeader, parseIncludeObject, toTable, wantsTable } from '../../../api/table.ts';

const configmaps = findKind('', 'v1', 'configmaps');
if (configmaps === undefined) throw new Error('configmaps kind missing');

const nowMs = Date.parse('2025-01-01T12:00:00Z');
const configMap = {
  apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1', b: '2' },
  metadata: { name: 'demo', namespace: 't', resourceVersion: '7', uid: 'u1', creationTimestamp: '2025-01-01T11:00:00Z' },
};

describe('wantsTable', () => {
  it('accepts what kubectl get sends, v1 first', () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'))
      .toEqual({ version: 'v1', contentType: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  });

  it('honours v1beta1 and parameter order and spacing', () => {
    expect(wantsTable('application/json; g=meta.k8s.io; as=Table; v=v1beta1, application/json')?.version).toBe('v1beta1');
  });

  it('is undefined when plain JSON comes first or no Table is listed', () => {
    expect(wantsTable('application/json, application/json;as=Table;v=v1;g=meta.k8s.io')).toBeUndefined();
    expect(wantsTable('application/json')).toBeUndefined();
    expect(wantsTable(undefined)).toBeUndefined();
    expect(wantsTable('application/json;as=Table;v=v2;g=meta.k8s.io')).toBeUndefined();
  });

  it('orders by quality before position', () => {
    expect(wantsTable('application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io')?.version).toBe('v1');
    expect(parseAcceptHeader('a/b;q=0, c/d').map((range) => range.type)).toEqual(['c']);
  });
});

describe('toTable', () => {
  it('has Name, the kind columns and Age like kube printers (NAME DATA AGE)', () => {
    const table = toTable(configmaps, [configMap], { includeObject: 'Metadata', listMeta: { resourceVersion: '9' }, nowMs });
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.metadata).toEqual({ resourceVersion: '9' });
    expect(table.columnDefinitions.map((column) => [column.name, column.type, column.format])).toEqual([
      ['Name', 'string', 'name'], ['Data', 'integer', ''], ['Age', 'string', ''],
    ]);
    expect(table.rows[0]?.cells).toEqual(['demo', 2, '60m']);
  });

  it('embeds PartialObjectMetadata by default, the object with Object, nothing with None', () => {
    const metadata = toTable(configmaps, [configMap], { includeObject: 'Metadata', nowMs }).rows[0]?.object;
    expect(metadata).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: configMap.metadata });
    expect(toTable(configmaps, [configMap], { includeObject: 'Object', nowMs }).rows[0]?.object).toBe(configMap);
    expect(toTable(configmaps, [configMap], { includeObject: 'None', nowMs }).rows[0]).not.toHaveProperty('object');
    expect(toTable(configmaps, [configMap], { includeObject: 'Metadata', version: 'v1beta1', nowMs }).rows[0]?.object)
      .toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1' });
  });

  it('uses the object resourceVersion for a single get and copies list metadata for a list', () => {
    expect(toTable(configmaps, [configMap], { includeObject: 'None', nowMs }).metadata).toEqual({ resourceVersion: '7' });
    expect(toTable(configmaps, [], { includeObject: 'None', listMeta: { resourceVersion: '3', continue: 'abc', remainingItemCount: 4 }, nowMs }).metadata)
      .toEqual({ resourceVersion: '3', continue: 'abc', remainingItemCount: 4 });
  });

  it('shows <unknown> for an object without creationTimestamp', () => {
    expect(toTable(configmaps, [{ metadata: { name: 'x' } }], { includeObject: 'None', nowMs }).rows[0]?.cells).toEqual(['x', 0, '<unknown>']);
  });

  it('parses includeObject and rejects unknown values with 400', () => {
    expect(parseIncludeObject(undefined)).toBe('Metadata');
    expect(parseIncludeObject('Object')).toBe('Object');
    expect(() => parseIncludeObject('All')).toThrowError(/unrecognized includeObject value: "All"/);
  });
});

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  const second = 1000;
  const minute = 60 * second;
  const hour = 60 * minute;
  const day = 24 * hour;
  it.each([
    [-3 * second, '<invalid>'], [-1 * second, '0s'], [0, '0s'], [119 * second, '119s'], [2 * minute, '2m'],
    [3 * minute + 20 * second, '3m20s'], [15 * minute, '15m'], [179 * minute, '179m'], [3 * hour, '3h'],
    [5 * hour + 10 * minute, '5h10m'], [20 * hour, '20h'], [47 * hour, '47h'], [3 * day + 4 * hour, '3d4h'],
    [5 * day, '5d'], [10 * day, '10d'], [729 * day, '729d'], [2 * 365 * day + 30 * day, '2y30d'], [9 * 365 * day, '9y'],
  ])('%d ms → %s', (durationMs, expected) => {
    expect(humanDuration(durationMs)).toBe(expected);
  });
});
