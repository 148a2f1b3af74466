// Owns: the simulated application: a key-value state machine applied from committed entries,
// with client sessions that make retried writes take effect at most once (Raft thesis §6.3:
// the state machine remembers each client's last sequence number and skips older or equal
// ones). Commands are JSON in the entry data; empty data is the leader's no-op, and configuration
// entries reach it as no-ops too (membership is Raft's business, as in raft/node). Also owns the
// snapshot format: values and the session table, keys sorted, so two members at the same index
// produce byte-identical snapshots (the safety checker compares them). Pure.
import type { EntryType } from '../../raft/core/index.ts';
import { assert } from '../../raft/stdx/index.ts';

export interface KvWrite {
  readonly clientId: string;
  /** Per-client sequence number, increasing; a retry reuses it. */
  readonly sequence: number;
  readonly kind: 'put' | 'append';
  readonly key: string;
  readonly value: string;
}

/** applied: took effect now; duplicate: this sequence already took effect; stale: an older one. */
export type KvApplyOutcome = 'noop' | 'applied' | 'duplicate' | 'stale';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeWrite(write: KvWrite): Uint8Array {
  return encoder.encode(JSON.stringify([write.clientId, write.sequence, write.kind, write.key, write.value]));
}

export function decodeWrite(data: Uint8Array): KvWrite | undefined {
  if (data.byteLength === 0) return undefined;
  const decoded: unknown = JSON.parse(decoder.decode(data));
  assert(Array.isArray(decoded) && decoded.length === 5, 'a KV command is a 5-tuple');
  const [clientId, sequence, kind, key, value] = decoded as unknown[];
  assert(typeof clientId === 'string' && typeof key === 'string' && typeof value === 'string', 'KV command strings');
  assert(typeof sequence === 'number' && (kind === 'put' || kind === 'append'), 'KV command sequence and kind');
  return { clientId, sequence, kind, key, value };
}

export class KvStateMachine {
  readonly #values = new Map<string, string>();
  readonly #lastSequence = new Map<string, number>();
  #appliedIndex = 0;

  get appliedIndex(): number {
    return this.#appliedIndex;
  }

  apply(index: number, data: Uint8Array, type: EntryType = 'normal'): KvApplyOutcome {
    assert(index === this.#appliedIndex + 1, `KV applies ${index} after ${this.#appliedIndex}`);
    this.#appliedIndex = index;
    if (type === 'configuration') return 'noop';
    const write = decodeWrite(data);
    if (write === undefined) return 'noop';
    const last = this.#lastSequence.get(write.clientId) ?? 0;
    if (write.sequence === last) return 'duplicate';
    if (write.sequence < last) return 'stale';
    this.#lastSequence.set(write.clientId, write.sequence);
    const previous = this.#values.get(write.key) ?? '';
    this.#values.set(write.key, write.kind === 'put' ? write.value : previous + write.value);
    return 'applied';
  }

  get(key: string): string {
    return this.#values.get(key) ?? '';
  }

  /** The state after applying through appliedIndex, canonical (sorted keys): the snapshot bytes. */
  snapshot(): Uint8Array {
    const sorted = (map: ReadonlyMap<string, string | number>): [string, string | number][] =>
      [...map.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return encoder.encode(JSON.stringify({ index: this.#appliedIndex, values: sorted(this.#values), sessions: sorted(this.#lastSequence) }));
  }

  /** Replaces the whole state by a snapshot taken at `index` (by snapshot() on any member). */
  restore(data: Uint8Array, index: number): void {
    const decoded = JSON.parse(decoder.decode(data)) as { index?: unknown; values?: unknown; sessions?: unknown };
    assert(decoded.index === index, `KV snapshot of ${String(decoded.index)} restored as ${index}`);
    assert(Array.isArray(decoded.values) && Array.isArray(decoded.sessions), 'KV snapshot holds values and sessions');
    this.#values.clear();
    this.#lastSequence.clear();
    for (const pair of decoded.values as unknown[]) {
      assert(Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string', 'KV snapshot value pair');
      this.#values.set(pair[0], pair[1]);
    }
    for (const pair of decoded.sessions as unknown[]) {
      assert(Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'number', 'KV snapshot session pair');
      this.#lastSequence.set(pair[0], pair[1]);
    }
    this.#appliedIndex = index;
  }
}
