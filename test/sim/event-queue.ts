// Owns: the simulator's agenda: a binary min-heap of events ordered by virtual time, ties broken
// by insertion order so the order never depends on heap layout. Pure; knows nothing of events.
import { assert } from '../../raft/stdx/index.ts';

interface Slot<Event> {
  readonly time: number;
  readonly order: number;
  readonly event: Event;
}

export class EventQueue<Event> {
  readonly #heap: Slot<Event>[] = [];
  #order = 0;

  get size(): number {
    return this.#heap.length;
  }

  push(time: number, event: Event): void {
    assert(Number.isSafeInteger(time) && time >= 0, `event time ${time} must be a non-negative integer`);
    this.#heap.push({ time, order: this.#order, event });
    this.#order += 1;
    this.#siftUp(this.#heap.length - 1);
  }

  pop(): { readonly time: number; readonly event: Event } | undefined {
    const heap = this.#heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.#siftDown(0);
    }
    return { time: top.time, event: top.event };
  }

  #before(left: Slot<Event>, right: Slot<Event>): boolean {
    return left.time < right.time || (left.time === right.time && left.order < right.order);
  }

  #siftUp(position: number): void {
    const heap = this.#heap;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (!this.#before(heap[position]!, heap[parent]!)) return;
      [heap[position], heap[parent]] = [heap[parent]!, heap[position]!];
      position = parent;
    }
  }

  #siftDown(position: number): void {
    const heap = this.#heap;
    for (;;) {
      const left = 2 * position + 1;
      const right = left + 1;
      let smallest = position;
      if (left < heap.length && this.#before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && this.#before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === position) return;
      [heap[position], heap[smallest]] = [heap[smallest]!, heap[position]!];
      position = smallest;
    }
  }
}
