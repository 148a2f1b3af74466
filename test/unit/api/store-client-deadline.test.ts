// Owns: the API tier's store call deadline (api/store-client.ts): a call with no outcome after
// storeRequestTimeoutMs becomes a 504 with Retry-After, calls that settle in time keep their own
// outcome, and backend failures map to API statuses.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Command, CommandResult } from '../../../actors/index.ts';
import { ApiError } from '../../../api/status.ts';
import { StoreClient, storeRequestTimeoutMs } from '../../../api/store-client.ts';
import type { StoreBackend } from '../../../api/store-client.ts';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => { resolve = onResolve; reject = onReject; });
  return { promise, resolve, reject };
}

/** A backend whose proposals and read points wait for the test to settle them. */
function controlledBackend(): { backend: StoreBackend; proposals: Deferred<CommandResult>[]; reads: Deferred<number>[] } {
  const proposals: Deferred<CommandResult>[] = [];
  const reads: Deferred<number>[] = [];
  const backend: StoreBackend = {
    propose: () => { const call = deferred<CommandResult>(); proposals.push(call); return call.promise; },
    readIndex: () => { const call = deferred<number>(); reads.push(call); return call.promise; },
    get: () => undefined,
    lifecycleOf: () => undefined,
    list: () => ({ items: [], revision: 0 }),
    subscribe: () => () => {},
    currentRevision: () => 0,
    ready: () => true,
  };
  return { backend, proposals, reads };
}

const noop: Command = { type: 'noop' };

async function statusOf(promise: Promise<unknown>): Promise<number | string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return error instanceof ApiError ? error.code : String(error);
  }
}

describe('StoreClient deadlines', () => {
  beforeEach(() => { vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }); });
  afterEach(() => { vi.useRealTimers(); });

  it('answers 504 once a call had no outcome for storeRequestTimeoutMs, and not before', async () => {
    const { backend } = controlledBackend();
    const client = new StoreClient(backend);
    let settled = false;
    const outcome = statusOf(client.propose(noop)).finally(() => { settled = true; });
    await vi.advanceTimersByTimeAsync(storeRequestTimeoutMs - 10);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(await outcome).toBe(504);
  });

  it('expires each waiting call at its own deadline while earlier ones settle', async () => {
    const { backend, proposals, reads } = controlledBackend();
    const client = new StoreClient(backend);
    const first = statusOf(client.propose(noop));
    await vi.advanceTimersByTimeAsync(10_000);
    const second = statusOf(client.readIndex());
    await vi.advanceTimersByTimeAsync(10_000);
    const third = statusOf(client.propose(noop));
    proposals[0]!.resolve({ type: 'noop', revision: 1 } as unknown as CommandResult);
    expect(await first).toBe('resolved');
    let secondDone = false;
    void second.then(() => { secondDone = true; });
    let thirdDone = false;
    void third.then(() => { thirdDone = true; });
    await vi.advanceTimersByTimeAsync(storeRequestTimeoutMs - 10_000 + 5); // past the second's deadline (10 s + 30 s) only
    expect(secondDone).toBe(true);
    expect(await second).toBe(504);
    expect(thirdDone).toBe(false);
    reads[0]!.resolve(7); // too late: the 504 stands
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await third).toBe(504);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer behind once every call settled', async () => {
    const { backend, proposals, reads } = controlledBackend();
    const client = new StoreClient(backend);
    const write = client.propose(noop);
    const read = client.readIndex();
    expect(vi.getTimerCount()).toBe(1);
    proposals[0]!.resolve({ type: 'noop', revision: 2 } as unknown as CommandResult);
    reads[0]!.resolve(2);
    await write;
    expect(await read).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('maps backend failures to API statuses', async () => {
    const { backend, proposals, reads } = controlledBackend();
    const client = new StoreClient(backend);
    const notLeader = statusOf(client.propose(noop));
    const other = client.readIndex().then(() => 'resolved', (error: unknown) => error);
    const failure = Object.assign(new Error('no leader'), { name: 'NotLeaderError' });
    proposals[0]!.reject(failure);
    const plain = new Error('something else');
    reads[0]!.reject(plain);
    expect(await notLeader).toBe(503);
    expect(await other).toBe(plain);
  });
});
