// Owns: a linearizability checker for a key-value register history (put, get, append), in the
// style of Porcupine: Wing & Gong's search with Lowe's memoization of (linearized set, state),
// made P-compositional by key (Horn & Kroening): each key is checked on its own, since
// operations on different keys commute. Pure; no clock.
//
// Pending operations (a call with no response) may or may not have taken effect. They get a
// return time of +infinity: the search may linearize them anywhere after their call, including
// after every completed operation, which is the same as "never took effect". A pending get
// accepts any value.
//
// The search is bounded: a key whose search exceeds `stepsPerKeyMax` is reported as 'unknown'
// rather than hanging the simulator. Must not interpret anything beyond the KV model.
import { assert } from '../../../raft/stdx/index.ts';

export type KvInput =
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'put'; readonly key: string; readonly value: string }
  | { readonly kind: 'append'; readonly key: string; readonly value: string };

export interface KvOperation {
  readonly id: number;
  readonly clientId: string;
  readonly input: KvInput;
  /** The value a completed get returned ('' for a missing key); undefined for writes and pending ops. */
  readonly output: string | undefined;
  /** Invocation time. Any totally ordered number (the simulator uses its event sequence). */
  readonly call: number;
  /** Response time, or undefined when the operation is pending (never answered). */
  readonly return: number | undefined;
}

export type LinearizabilityOutcome = 'linearizable' | 'not-linearizable' | 'unknown';

export interface KeyCheck {
  readonly key: string;
  readonly outcome: LinearizabilityOutcome;
  readonly operations: number;
  readonly steps: number;
  /** For 'not-linearizable': the ids of the longest prefix the search could linearize. */
  readonly longestPrefix: readonly number[];
}

export interface LinearizabilityResult {
  readonly outcome: LinearizabilityOutcome;
  readonly keys: readonly KeyCheck[];
}

export interface LinearizabilityLimits {
  /** Search steps per key before giving up with 'unknown'. */
  readonly stepsPerKeyMax: number;
}

/**
 * One million steps per key: a simulator history has at most a few hundred operations per key,
 * which memoization checks in well under 100k steps unless concurrency is extreme; past a million
 * (about a second) the answer would not come in time for a CI run, so it is reported 'unknown'.
 */
export const defaultLinearizabilityLimits: LinearizabilityLimits = { stepsPerKeyMax: 1_000_000 };

/** The register's value before any write. */
export const initialValue = '';

export function checkKvLinearizability(
  operations: readonly KvOperation[],
  limits: LinearizabilityLimits = defaultLinearizabilityLimits,
): LinearizabilityResult {
  assert(limits.stepsPerKeyMax > 0, 'stepsPerKeyMax must be positive');
  const byKey = new Map<string, KvOperation[]>();
  for (const operation of operations) {
    assertOperation(operation);
    const list = byKey.get(operation.input.key) ?? [];
    list.push(operation);
    byKey.set(operation.input.key, list);
  }
  const keys = [...byKey.keys()].sort().map((key) => checkKey(key, withoutUnobservedPending(byKey.get(key)!), limits.stepsPerKeyMax));
  return { outcome: combineOutcomes(keys.map((check) => check.outcome)), keys };
}

function assertOperation(operation: KvOperation): void {
  assert(Number.isFinite(operation.call), `operation ${operation.id} has no call time`);
  assert(operation.return === undefined || operation.return >= operation.call, `operation ${operation.id} returns before its call`);
  assert(operation.output === undefined || operation.input.kind === 'get', `operation ${operation.id}: only gets have output`);
}

/**
 * Drops pending operations that cannot matter, which keeps a history with many abandoned
 * operations from exploding the search (each pending write otherwise doubles the states):
 *  - a pending get has no effect and accepts any value;
 *  - a pending write whose value occurs in no completed get's output. If a linearization
 *    places it somewhere, every state from there to the next put contains its value (appends
 *    only extend), so no get lies in between; removing it leaves a valid linearization, and
 *    conversely it can always be linearized last. "Occurs" is a substring test: coincidences
 *    only keep an operation, never drop one wrongly.
 */
function withoutUnobservedPending(operations: readonly KvOperation[]): KvOperation[] {
  const outputs = operations.flatMap((operation) => (operation.output === undefined ? [] : [operation.output]));
  return operations.filter((operation) => {
    if (operation.return !== undefined) return true;
    const input = operation.input;
    if (input.kind === 'get') return false;
    return outputs.some((output) => output.includes(input.value));
  });
}

function combineOutcomes(outcomes: readonly LinearizabilityOutcome[]): LinearizabilityOutcome {
  if (outcomes.includes('not-linearizable')) return 'not-linearizable';
  if (outcomes.includes('unknown')) return 'unknown';
  return 'linearizable';
}

/** The sequential specification: returns the next state, or undefined if `operation` cannot
 *  happen in `state`. */
function stepModel(state: string, operation: KvOperation): string | undefined {
  const input = operation.input;
  switch (input.kind) {
    case 'get': return operation.output === undefined || operation.output === state ? state : undefined;
    case 'put': return input.value;
    case 'append': return state + input.value;
  }
}

/** A node of the doubly linked list of call and return events (Porcupine's entry list). */
interface EventNode {
  readonly operation: number;
  readonly isCall: boolean;
  /** For a call: its return node. */
  match: EventNode | undefined;
  prev: EventNode | undefined;
  next: EventNode | undefined;
}

function buildEventList(operations: readonly KvOperation[]): EventNode {
  const events: { time: number; isCall: boolean; operation: number }[] = [];
  operations.forEach((operation, position) => {
    events.push({ time: operation.call, isCall: true, operation: position });
    events.push({ time: operation.return ?? Number.POSITIVE_INFINITY, isCall: false, operation: position });
  });
  // At equal times calls sort first: touching operations count as concurrent (the lenient,
  // Porcupine choice); ties otherwise break by position so the order is deterministic.
  events.sort((left, right) => left.time - right.time || Number(right.isCall) - Number(left.isCall) || left.operation - right.operation);
  const head: EventNode = { operation: -1, isCall: false, match: undefined, prev: undefined, next: undefined };
  const calls = new Map<number, EventNode>();
  let tail = head;
  for (const event of events) {
    const node: EventNode = { operation: event.operation, isCall: event.isCall, match: undefined, prev: tail, next: undefined };
    tail.next = node;
    tail = node;
    if (event.isCall) calls.set(event.operation, node);
    else calls.get(event.operation)!.match = node;
  }
  return head;
}

/** Removes a call and its return from the list (the operation is linearized). */
function lift(call: EventNode): void {
  const ret = call.match!;
  call.prev!.next = call.next;
  if (call.next !== undefined) call.next.prev = call.prev;
  ret.prev!.next = ret.next;
  if (ret.next !== undefined) ret.next.prev = ret.prev;
}

/** Puts a lifted call and its return back, in reverse order of lift(). */
function unlift(call: EventNode): void {
  const ret = call.match!;
  ret.prev!.next = ret;
  if (ret.next !== undefined) ret.next.prev = ret;
  call.prev!.next = call;
  if (call.next !== undefined) call.next.prev = call;
}

class Bitset {
  readonly #words: Uint32Array;
  constructor(size: number) {
    this.#words = new Uint32Array(Math.ceil(size / 32) + 1);
  }
  set(bit: number): void {
    this.#words[bit >>> 5]! |= 1 << (bit & 31);
  }
  clear(bit: number): void {
    this.#words[bit >>> 5]! &= ~(1 << (bit & 31));
  }
  key(): string {
    return this.#words.join(',');
  }
}

interface Frame {
  readonly call: EventNode;
  readonly state: string;
}

function checkKey(key: string, operations: readonly KvOperation[], stepsMax: number): KeyCheck {
  const head = buildEventList(operations);
  const linearized = new Bitset(operations.length);
  const seen = new Set<string>();
  const stack: Frame[] = [];
  let longestPrefix: number[] = [];
  let state = initialValue;
  let entry = head.next;
  let steps = 0;
  const result = (outcome: LinearizabilityOutcome): KeyCheck => ({ key, outcome, operations: operations.length, steps, longestPrefix });
  while (head.next !== undefined) {
    steps += 1;
    if (steps > stepsMax) return result('unknown');
    assert(entry !== undefined, 'the search ran off the event list');
    if (entry.isCall) {
      const next = stepModel(state, operations[entry.operation]!);
      if (next !== undefined) {
        linearized.set(entry.operation);
        const memo = `${linearized.key()}|${next}`;
        if (!seen.has(memo)) {
          seen.add(memo);
          stack.push({ call: entry, state });
          if (stack.length > longestPrefix.length) longestPrefix = stack.map((frame) => operations[frame.call.operation]!.id);
          state = next;
          lift(entry);
          entry = head.next;
          continue;
        }
        linearized.clear(entry.operation);
      }
      entry = entry.next;
      continue;
    }
    // A return reached before its operation was linearized: undo the last choice.
    const frame = stack.pop();
    if (frame === undefined) return result('not-linearizable');
    state = frame.state;
    linearized.clear(frame.call.operation);
    unlift(frame.call);
    entry = frame.call.next;
  }
  return result('linearizable');
}
