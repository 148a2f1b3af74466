// deploy/event-stream/format.ts: names, encode/decode round trip, and the validation readers rely on.
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../actors/index.ts';
import { checkBatch, decodeBatch, encodeBatch, eventStreamName, eventSubject, StreamBatchFormatError } from '../../../deploy/event-stream/index.ts';
import type { StreamBatch } from '../../../deploy/event-stream/index.ts';
import { parseDuration } from '../../../deploy/event-stream/publisher.ts';

function event(revision: number, name = `cm-${revision}`): ChangeEvent {
  return {
    type: 'ADDED', revision, key: { group: '', resource: 'configmaps', namespace: 'ns', name },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(revision) } },
  };
}

const encoder = new TextEncoder();

describe('event stream format', () => {
  it('names the stream and subject per cluster and group', () => {
    expect(eventStreamName('kstore', 'main')).toBe('KSTORE_EVENTS_kstore_main');
    expect(eventSubject('kstore', 'main')).toBe('kstore.events.kstore.main');
  });

  it('round-trips batches, progress marks and resets', () => {
    const batches: StreamBatch[] = [
      { from: 0, through: 3, events: [event(1), event(3, 'a'), event(3, 'b')] },
      { from: 3, through: 9, events: [] },
      { from: 9, through: 20, events: [], reset: true },
    ];
    for (const batch of batches) expect(decodeBatch(encodeBatch(batch))).toEqual(batch);
    expect(new TextDecoder().decode(encodeBatch(batches[1]!))).toBe('{"from":3,"through":9,"events":[]}');
  });

  it('writes the bytes of the JSON text, multi-byte characters and resets included', () => {
    const named = (revision: number, name: string): ChangeEvent => ({ ...event(revision, name), object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { text: 'grüße, 東京, 🚀' } } as ChangeEvent['object'] });
    const batches: StreamBatch[] = [
      { from: 0, through: 2, events: [named(1, 'é'), named(2, 'x')] },
      { from: 2, through: 3, events: [named(3, 'only')] },
      { from: 5, through: 8, events: [], reset: true },
    ];
    for (const batch of batches) {
      const text = `{"from":${batch.from},"through":${batch.through},"events":[${batch.events.map((change) => JSON.stringify(change)).join(',')}]${batch.reset === true ? ',"reset":true' : ''}}`;
      expect(Buffer.from(encodeBatch(batch)).equals(Buffer.from(encoder.encode(text)))).toBe(true);
      expect(decodeBatch(encodeBatch(batch))).toEqual(batch);
    }
  });

  it.each([
    ['not JSON', '{"from":'],
    ['not a JSON object', '[]'],
    ['"from"', '{"from":-1,"through":2,"events":[]}'],
    ['"through" 1 is before "from" 2', '{"from":2,"through":1,"events":[]}'],
    ['"events" is not an array', '{"from":0,"through":1}'],
    ['outside (2, 5]', JSON.stringify({ from: 2, through: 5, events: [event(2)] })],
    ['outside (0, 5]', JSON.stringify({ from: 0, through: 5, events: [event(6)] })],
    ['goes backwards', JSON.stringify({ from: 0, through: 5, events: [event(4), event(3)] })],
    ['a reset message carries no events', JSON.stringify({ from: 0, through: 5, events: [event(4)], reset: true })],
    ['events[0].type', JSON.stringify({ from: 0, through: 5, events: [{ ...event(4), type: 'BOOKMARK' }] })],
    ['events[0].key', JSON.stringify({ from: 0, through: 5, events: [{ ...event(4), key: { name: 'x' } }] })],
  ])('rejects %s with a clear error', (reason, text) => {
    expect(() => decodeBatch(encoder.encode(text))).toThrow(StreamBatchFormatError);
    expect(() => decodeBatch(encoder.encode(text))).toThrow(reason);
  });

  it('encodeBatch refuses to write an invalid batch', () => {
    expect(() => checkBatch({ from: 5, through: 4, events: [] })).toThrow(/before/);
    expect(() => encodeBatch({ from: 0, through: 1, events: [event(2)] })).toThrow(StreamBatchFormatError);
  });

  it('parses --events-max-age durations', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('300s')).toBe(300_000);
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('1500ms')).toBe(1_500);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(() => parseDuration('5 minutes')).toThrow(/not a duration/);
    expect(() => parseDuration('10ms')).toThrow(/at least 1s/);
  });
});
