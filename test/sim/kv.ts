// Owns: the simulated application: a key-value state machine applied from committed entries,
// with client sessions that make retried writes take effect at most once (Raft thesis §6.3:
// the state machine remembers each client's last sequence number and skips older or equal
// ones). Commands are JSON in the entry data; empty data is the leader's no-op. Pure.
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

  apply(index: number, data: Uint8Array): KvApplyOutcome {
    assert(index === this.#appliedIndex + 1, `KV applies ${index} after ${this.#appliedIndex}`);
    this.#appliedIndex = index;
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
}
