// Tests the parts table of snapshot format 4 (actors/snapshot-parts.ts): units written with their
// shared sub-parts as references and read back to equal values (same key order, same JSON text)
// that share exactly what the written ones shared; stored objects that hold the reference key
// themselves, an own "__proto__", undefined members and depths beyond the marker limit survive;
// malformed references are refused.
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../actors/json.ts';
import { SnapshotPartsReader, SnapshotPartsWriter } from '../../../actors/snapshot-parts.ts';

/** Writes `units` as a snapshot would (scan all, write all, then the parts), parses the text and reads it back. */
function roundTrip(units: readonly object[]): { read: object[]; parts: unknown[]; texts: string[]; partCount: number } {
  const writer = new SnapshotPartsWriter();
  for (const unit of units) writer.scan(unit);
  const texts = units.map((unit) => writer.write(unit));
  const partTexts: string[] = [];
  for (const part of writer.partsToWrite()) partTexts.push(writer.write(part));
  const parsed = JSON.parse(`{"objects":[${texts.join(',')}],"parts":[${partTexts.join(',')}]}`) as { objects: unknown[]; parts: unknown[] };
  const reader = new SnapshotPartsReader(parsed.parts);
  return { read: parsed.objects.map((object) => reader.read(object)), parts: parsed.parts, texts, partCount: partTexts.length };
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = { [`l${level}`]: value };
  return value;
}

describe('snapshot parts (format 4)', () => {
  it('writes a sub-part shared by several objects once and reads it back as one frozen object', () => {
    const managed = deepFreeze({ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } });
    const labels = deepFreeze({ app: 'web', tier: 'front' });
    const units = Array.from({ length: 20 }, (_, at) => deepFreeze({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: `cm-${at}`, labels, managedFields: [managed] },
      data: { a: `${at}`, b: 'x'.repeat(100) },
    }));
    const { read, texts, partCount } = roundTrip(units);
    expect(partCount).toBe(2);
    expect(texts[1]).toContain('"labels":{"$":');
    expect(texts.join('').length).toBeLessThan(units.map((unit) => JSON.stringify(unit)).join('').length * 0.75);
    for (const [at, unit] of units.entries()) expect(JSON.stringify(read[at])).toBe(JSON.stringify(unit));
    const first = read[0] as (typeof units)[number];
    const last = read[19] as (typeof units)[number];
    expect(last.metadata.labels).toBe(first.metadata.labels);
    expect(last.metadata.managedFields[0]).toBe(first.metadata.managedFields[0]);
    expect(last.metadata.managedFields).not.toBe(first.metadata.managedFields); // was not shared
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.metadata.managedFields[0]?.fieldsV1)).toBe(true);
  });

  it('resolves parts inside parts, in whatever order they were numbered', () => {
    const inner = deepFreeze({ deep: ['x', 'y'] });
    const outer = deepFreeze({ inner, more: 1 });
    const units = [deepFreeze({ a: inner }), deepFreeze({ b: outer }), deepFreeze({ c: outer, d: inner })];
    const { read, partCount } = roundTrip(units);
    expect(partCount).toBe(2);
    expect(read.map((unit) => JSON.stringify(unit))).toEqual(units.map((unit) => JSON.stringify(unit)));
    const [a, b, c] = read as [{ a: object }, { b: { inner: object } }, { c: object; d: object }];
    expect(b.b.inner).toBe(a.a);
    expect(c.c).toBe(b.b);
    expect(c.d).toBe(a.a);
  });

  it('keeps stored objects that hold the reference key themselves, at the root and below, in or out of parts', () => {
    const shared = deepFreeze({ $: 3, other: true });
    const units = [
      deepFreeze({ $: -1, v: { $: 0 } }),
      deepFreeze({ list: [{ $: 'x' }, { $: -1 }, { $: 0 }], shared }),
      deepFreeze({ shared, $: { $: { $: 2 } } }),
      deepFreeze([{ $: 1 }]),
    ];
    const { read, partCount } = roundTrip(units);
    expect(partCount).toBe(1);
    expect(read.map((unit) => JSON.stringify(unit))).toEqual(units.map((unit) => JSON.stringify(unit)));
    expect((read[2] as { shared: object }).shared).toBe((read[1] as { shared: object }).shared);
  });

  it('keeps an own "__proto__" member, undefined members (left out, null in arrays) and key order', () => {
    const withProto = JSON.parse('{"z":1,"__proto__":{"polluted":"yes"},"a":"short"}') as object;
    const units = [
      deepFreeze(withProto),
      deepFreeze({ b: 1, gone: undefined, a: [1, undefined, 'x'] }),
    ];
    const { read } = roundTrip(units);
    expect(JSON.stringify(read[0])).toBe('{"z":1,"__proto__":{"polluted":"yes"},"a":"short"}');
    expect(Object.getPrototypeOf(read[0])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(read[1])).toBe('{"b":1,"a":[1,null,"x"]}');
  });

  it('writes and reads plain JSON below the marker depth, whatever it holds', () => {
    const deepShared = deepFreeze({ k: 'v' });
    const units = [
      deepFreeze(nested(70, { $: 0, s: deepShared })) as object,
      deepFreeze(nested(70, { $: -1, v: { s: deepShared } })) as object,
      deepFreeze({ top: deepShared }),
    ];
    const { read } = roundTrip(units);
    expect(read.map((unit) => JSON.stringify(unit))).toEqual(units.map((unit) => JSON.stringify(unit)));
  });

  it('shares empty objects and arrays on reading without making them parts', () => {
    const units = [deepFreeze({ a: {}, b: [] }), deepFreeze({ a: {}, b: [] })];
    const { read, partCount, texts } = roundTrip(units);
    expect(partCount).toBe(0);
    expect(texts[0]).toBe('{"a":{},"b":[]}');
    expect((read[0] as { a: object }).a).toBe((read[1] as { a: object }).a);
    expect(Object.isFrozen((read[0] as { b: unknown[] }).b)).toBe(true);
  });

  it('writes the same text again from what it read (a second snapshot of a restored state)', () => {
    const common = deepFreeze({ x: [1, 2, 3] });
    const units = [deepFreeze({ p: common, q: { r: common } }), deepFreeze({ p: common })];
    const first = roundTrip(units);
    const second = roundTrip(first.read);
    expect(second.texts).toEqual(first.texts);
    expect(second.parts).toEqual(first.parts);
  });

  it('refuses a reference to a part the table does not have, one that contains itself, and a unit that is a reference', () => {
    expect(() => new SnapshotPartsReader([]).read({ a: { $: 0 } })).toThrow(/part 0 is in the table/);
    expect(() => new SnapshotPartsReader([{ a: 1 }]).read({ a: { $: 1.5 } })).toThrow(/is in the table/);
    expect(() => new SnapshotPartsReader([{ a: 1 }]).read({ a: { $: 'x' } })).toThrow(/is in the table/);
    expect(() => new SnapshotPartsReader([{ self: { $: 0 } }]).read({ a: { $: 0 } })).toThrow(/does not contain itself/);
    expect(() => new SnapshotPartsReader([{ a: 1 }]).read({ $: 0 })).toThrow(/not a reference/);
    expect(() => new SnapshotPartsReader([]).read({ $: -1, v: 'text' })).toThrow(/holds an object/);
  });
  it('streams: each chunk carries the parts its units are the first to refer to, and reads alone', () => {
    const inner = deepFreeze({ deep: ['x', 'y'] });
    const labels = deepFreeze({ app: 'web', inner });
    const units = Array.from({ length: 9 }, (_, at) => deepFreeze({ n: at, labels, ...(at % 3 === 2 ? { again: inner } : {}) }));
    const writer = new SnapshotPartsWriter();
    for (const unit of units) writer.scan(unit);
    // Chunks of three units, each parsed apart as a message would be.
    const chunks: string[] = [];
    for (let from = 0; from < units.length; from += 3) {
      const texts = units.slice(from, from + 3).map((unit) => writer.write(unit));
      chunks.push(`{"parts":[${writer.newPartTexts().join(',')}],"objects":[${texts.join(',')}]}`);
    }
    const parsed = chunks.map((chunk) => JSON.parse(chunk) as { parts: unknown[]; objects: unknown[] });
    expect(parsed.map((chunk) => chunk.parts.length)).toEqual([2, 0, 0]); // labels and inner, both in the first chunk
    const reader = new SnapshotPartsReader();
    const read: object[] = [];
    for (const chunk of parsed) {
      reader.addParts(chunk.parts);
      for (const object of chunk.objects) read.push(reader.read(object));
    }
    expect(read.map((unit) => JSON.stringify(unit))).toEqual(units.map((unit) => JSON.stringify(unit)));
    const [first, , third, , , , , , last] = read as { labels: { inner: object }; again?: object }[];
    expect(last!.labels).toBe(first!.labels);
    expect(third!.again).toBe(first!.labels.inner);
    // A unit read before its chunk's parts are added refers to a part the table does not have yet.
    const early = new SnapshotPartsReader();
    expect(() => early.read(JSON.parse(chunks[0]!).objects[0])).toThrow(/is in the table/);
  });
});
