// Owns: the checks of api/crd/structural's decoding and defaulting against kube 1.33:
// apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go (what is pruned, the unknown
// field paths and their sorted order), defaulting/prunenulls.go (non-nullable nulls without a
// default dropped), defaulting/algorithm.go (Default), and schema/objectmeta/coerce.go
// (embedded resources' metadata decoded as ObjectMeta).
import { describe, expect, it } from 'vitest';
import { applyDefaults, decodeCustomResource, listTypeAt, mapTypeAt, pruneUnknownFields } from '../../../api/crd/structural/index.ts';
import type { JsonSchemaProps } from '../../../api/crd/structural/index.ts';

const schema: JsonSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } } },
      },
    },
  },
};

describe('pruning (schema/pruning)', () => {
  it('drops unknown fields and returns their paths sorted, keeping the root\'s apiVersion, kind and metadata', () => {
    const object = {
      apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a' },
      spec: { zeta: 1, replicas: 2, items: [{ name: 'x', extra: true }, { other: 1 }], alpha: { deep: 1 } },
      status: { phase: 'x' },
    };
    expect(pruneUnknownFields(schema, object, { isResourceRoot: true })).toEqual(['spec.alpha', 'spec.items[0].extra', 'spec.items[1].other', 'spec.zeta', 'status']);
    expect(object).toEqual({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a' }, spec: { replicas: 2, items: [{ name: 'x' }, {}] } });
  });

  it('map values are pruned against additionalProperties (paths with dots)', () => {
    const object = { spec: { labels: { a: 'x' } } };
    expect(pruneUnknownFields(schema, object, { isResourceRoot: true })).toEqual([]);
    const nested = { spec: { labels: { a: { b: 1 } } } };
    expect(pruneUnknownFields({ type: 'object', properties: { spec: { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'object', properties: { c: { type: 'string' } } } } } } } }, nested, { isResourceRoot: true })).toEqual(['spec.labels.a.b']);
  });

  it('x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes inside known ones', () => {
    const object = { spec: { free: { anything: { goes: 1 }, known: { a: 'x', b: 'y' } } } };
    expect(pruneUnknownFields(schema, object, { isResourceRoot: true })).toEqual(['spec.free.known.b']);
    expect(object.spec.free).toEqual({ anything: { goes: 1 }, known: { a: 'x' } });
  });

  it('embedded resources keep apiVersion, kind and metadata; unknown metadata fields are dropped after the pruned ones', () => {
    const object = { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1, labels: {} }, spec: { image: 'x', junk: 1 }, other: 2 } } };
    expect(pruneUnknownFields(schema, object, { isResourceRoot: true })).toEqual(['spec.template.other', 'spec.template.spec.junk', 'spec.template.metadata.bogus']);
    expect(object.spec.template).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'x' } });
  });

  it('an embedded apiVersion that is not a string fails the decode', () => {
    const result = decodeCustomResource(schema, { spec: { template: { apiVersion: 1, kind: 'Pod' } } }, { isResourceRoot: true });
    expect(result.decodeError).toEqual({ reason: 'FieldValueInvalid', message: 'Invalid value: 1: must be a string', field: 'spec.template.apiVersion' });
  });

  it('embedded metadata is re-encoded as Go writes an ObjectMeta (times in UTC)', () => {
    const object = { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: null, deletionTimestamp: '2024-01-02T03:04:05+02:00', generation: 0 } } } };
    pruneUnknownFields(schema, object, { isResourceRoot: true });
    expect(object.spec.template.metadata).toEqual({ name: 'p', deletionTimestamp: '2024-01-02T01:04:05Z' });
  });

  it('an embedded metadata time Go refuses fails the decode with time.Parse\'s message', () => {
    const outOfRange = decodeCustomResource(schema, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', deletionTimestamp: '2024-13-02T03:04:05Z' } } } }, { isResourceRoot: true });
    expect(outOfRange.decodeError?.message).toContain('parsing time "2024-13-02T03:04:05Z": month out of range');
    const lowercase = decodeCustomResource(schema, { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', deletionTimestamp: '2024-01-02t03:04:05Z' } } } }, { isResourceRoot: true });
    expect(lowercase.decodeError?.message).toContain('parsing time "2024-01-02t03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse "t03:04:05Z" as "T"');
  });

  it('a value that is not the whole resource prunes its apiVersion, kind and metadata silently', () => {
    const object = { kind: 'x', replicas: 1 };
    expect(pruneUnknownFields({ type: 'object', properties: { replicas: { type: 'integer' } } }, object, { isResourceRoot: false })).toEqual([]);
    expect(object).toEqual({ replicas: 1 });
  });
});

describe('nulls (PruneNonNullableNullsWithoutDefaults)', () => {
  const nullSchema: JsonSchemaProps = {
    type: 'object',
    properties: {
      plain: { type: 'string' },
      nullable: { type: 'string', nullable: true },
      defaulted: { type: 'string', default: 'd' },
      list: { type: 'array', items: { type: 'string' } },
      map: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };

  it('drops a null of a non-nullable field without a default; keeps nullable and defaulted ones; keeps list items', () => {
    const object = { plain: null, nullable: null, defaulted: null, list: [null], map: { a: null } };
    pruneUnknownFields(nullSchema, object, { isResourceRoot: true });
    expect(object).toEqual({ nullable: null, defaulted: null, list: [null], map: {} });
    applyDefaults(nullSchema, object);
    expect(object).toEqual({ nullable: null, defaulted: 'd', list: [null], map: {} });
  });
});

describe('defaulting (schema/defaulting Default)', () => {
  const defaults: JsonSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          replicas: { type: 'integer', default: 1 },
          mode: { type: 'string', nullable: true, default: 'auto' },
          ports: { type: 'array', items: { type: 'object', default: { port: 80 }, properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } },
          env: { type: 'object', additionalProperties: { type: 'object', default: { value: '' }, properties: { value: { type: 'string' }, from: { type: 'string', default: 'literal' } } } },
          shared: { type: 'object', default: { list: [1] }, properties: { list: { type: 'array', items: { type: 'integer' } } } },
        },
      },
    },
  };

  it('fills absent fields, then descends (an absent object is defaulted, then its fields)', () => {
    const object: Record<string, unknown> = {};
    applyDefaults(defaults, object);
    expect(object).toEqual({ spec: { replicas: 1, mode: 'auto', shared: { list: [1] } } });
  });

  it('a null is replaced unless the field is nullable', () => {
    const object = { spec: { replicas: null, mode: null } };
    applyDefaults(defaults, object);
    expect(object.spec).toEqual({ replicas: 1, mode: null, shared: { list: [1] } });
  });

  it('defaults inside list items and additionalProperties, null items and values take the items\' default', () => {
    const object = { spec: { ports: [{ port: 443 }, null], env: { A: { value: 'x' }, B: null } } };
    applyDefaults(defaults, object);
    expect(object.spec.ports).toEqual([{ port: 443, protocol: 'TCP' }, { port: 80, protocol: 'TCP' }]);
    expect(object.spec.env).toEqual({ A: { value: 'x', from: 'literal' }, B: { value: '', from: 'literal' } });
  });

  it('each default is a deep copy', () => {
    const first: { spec?: { shared?: { list: number[] } } } = {};
    const second: { spec?: { shared?: { list: number[] } } } = {};
    applyDefaults(defaults, first);
    applyDefaults(defaults, second);
    first.spec!.shared!.list.push(2);
    expect(second.spec!.shared!.list).toEqual([1]);
    expect(defaults.properties!['spec']!.properties!['shared']!.default).toEqual({ list: [1] });
  });
});

describe('server-side apply helpers', () => {
  const listSchema: JsonSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'], items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } } },
          args: { type: 'array', items: { type: 'string' } },
          selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        },
      },
    },
  };

  it('reads list and map types at a path', () => {
    expect(listTypeAt(listSchema, ['spec', 'ports'])).toEqual({ listType: 'map', keys: ['port', 'protocol'] });
    expect(listTypeAt(listSchema, ['spec', 'args'])).toEqual({ listType: 'atomic', keys: [] });
    expect(listTypeAt(listSchema, ['spec', 'missing'])).toBeUndefined();
    expect(mapTypeAt(listSchema, ['spec', 'selector'])).toBe('atomic');
    expect(mapTypeAt(listSchema, ['spec'])).toBe('granular');
  });
});
