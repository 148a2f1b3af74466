// Table layouts per kind: the standard Name … Age layout, and the events printer's own
// (Last Seen first, Name only with -o wide), as kubectl get shows them from kube-apiserver.
import { describe, expect, it } from 'vitest';
import { findKind } from '../../../api/registry/kinds.ts';
import { toTable } from '../../../api/table.ts';

const nowMs = Date.parse('2026-11-22T12:10:00Z');

describe('table layouts', () => {
  it('events lead with Last Seen and show kind/name of the involved object', () => {
    const kind = findKind('', 'v1', 'events')!;
    const table = toTable(kind, [{
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 't', creationTimestamp: '2026-11-22T12:00:00Z' },
      involvedObject: { kind: 'Pod', name: 'web-0' }, reason: 'Started', message: 'Started container', type: 'Normal',
      lastTimestamp: '2026-11-22T12:05:00Z', count: 3,
    }], { includeObject: 'None', nowMs });
    const shown = table.columnDefinitions.filter((column) => column.priority === 0).map((column) => column.name);
    expect(shown).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    const row = table.rows[0]!.cells;
    expect(row[0]).toBe('5m');
    expect(row[3]).toBe('pod/web-0');
    expect(row[table.columnDefinitions.findIndex((column) => column.name === 'Name')]).toBe('e1');
  });

  it('configmaps are Name, Data, Age', () => {
    const kind = findKind('', 'v1', 'configmaps')!;
    const table = toTable(kind, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: '2026-11-22T12:09:30Z' }, data: { a: 'b', c: 'd' } }], { includeObject: 'Metadata', nowMs });
    expect(table.columnDefinitions.map((column) => column.name)).toEqual(['Name', 'Data', 'Age']);
    expect(table.rows[0]!.cells).toEqual(['c', 2, '30s']);
  });
});
