import { describe, expect, it } from 'vitest';
import { duplicateFields } from '../../../api/duplicate-fields.ts';

describe('duplicateFields', () => {
  it('finds duplicate keys at any depth, with their paths, once each', () => {
    const text = '{"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2","x":"3"}},"data":{"k":"v"},"data":{}}';
    expect(duplicateFields(text)).toEqual(['metadata.name', 'metadata.labels.x', 'data']);
  });

  it('does not confuse keys in sibling objects, arrays or string values', () => {
    const text = '{"items":[{"a":1},{"a":2}],"s":"\\"a\\":1,\\"a\\":2","o":{"a":1},"p":{"a":1}}';
    expect(duplicateFields(text)).toEqual([]);
  });

  it('handles escapes inside keys', () => {
    expect(duplicateFields('{"a\\"b":1,"a\\"b":2}')).toEqual(['a"b']);
  });
});
