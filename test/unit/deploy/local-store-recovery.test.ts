// kstore server's store across an injected storage failure (EIO on fsync, after the bytes were
// written): the node fails and claims no role, reads go on from the applied state, writes are
// refused with NodeFailedError, and once the storage works again the store reopens its node from
// disk in process — replaying the entry whose fsync "failed" but whose bytes were on disk — and
// takes writes again. No acknowledged write is lost.
import { afterEach, describe, expect, it } from 'vitest';
import { openLocalStore } from '../../../deploy/local-store.ts';
import type { LocalStore } from '../../../deploy/local-store.ts';
import type { RaftStorage } from '../../../raft/storage/index.ts';
import { configMapKey, createNamespaceCommand, createRegisterCommand } from '../../fault/configmap-register.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';
import { waitFor } from '../../support/wait-for.ts';

const dirs: TempDir[] = [];
const stores: LocalStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) await dir.remove();
});

/** While `failing`, an append writes its bytes and then fails as a failed fsync would. */
function faultyStorage(fault: { failing: boolean; injected: number }): (storage: RaftStorage) => RaftStorage {
  return (storage) => ({
    get recovered() { return storage.recovered; },
    append: async (entries, hardState) => {
      await storage.append(entries, hardState);
      if (!fault.failing) return;
      fault.injected += 1;
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    },
    saveSnapshot: (snapshot, hardState) => storage.saveSnapshot(snapshot, hardState),
    close: () => storage.close(),
  });
}

describe('kstore server store after a storage failure', () => {
  it('serves reads, refuses writes, and recovers in process once the storage works again', async () => {
    const dir = await makeTempDir('kstore-local-store-');
    dirs.push(dir);
    const fault = { failing: false, injected: 0 };
    const store = await openLocalStore({ id: 'kstore-0', dataDir: dir.path, recoveryIntervalMs: 10, reserveBytes: 0, wrapStorage: faultyStorage(fault) });
    stores.push(store);
    await store.waitForLeader(5_000);
    expect((await store.backend.propose(createNamespaceCommand())).type).toBe('stored');
    for (const key of ['a', 'b', 'c']) expect((await store.backend.propose(createRegisterCommand(key))).type).toBe('stored');

    fault.failing = true;
    const failed = await store.backend.propose(createRegisterCommand('unknown-outcome')).catch((error: unknown) => error);
    expect((failed as Error).name).toBe('NodeFailedError');
    expect((failed as Error).message).toContain('EIO');
    expect(store.status()).toMatchObject({ role: 'failed', leaderId: undefined, failure: 'EIO: i/o error, fsync' });
    expect(store.backend.ready()).toBe(false);
    // Reads: the applied state is all that is committed.
    const applied = store.state.appliedIndex();
    expect(await store.backend.readIndex()).toBe(applied);
    for (const key of ['a', 'b', 'c']) expect(store.backend.get(configMapKey(key))).toBeDefined();
    await expect(store.backend.propose(createRegisterCommand('refused'))).rejects.toThrow(/EIO/);
    // Reopening while the storage still fails fails again (its first append), and is retried.
    await waitFor(() => fault.injected >= 2, { timeoutMs: 5_000, description: 'a reopen attempt while the storage still fails' });
    expect(store.status().role).toBe('failed');

    fault.failing = false;
    await waitFor(() => store.status().role === 'leader', { timeoutMs: 10_000, description: 'the store to recover in process' });
    expect(store.recoveries()).toBe(1);
    expect((await store.backend.propose(createRegisterCommand('after'))).type).toBe('stored');
    for (const key of ['a', 'b', 'c', 'after']) expect(store.backend.get(configMapKey(key)), key).toBeDefined();
    // The entry whose fsync failed had reached the file: the reopened log replays it (its client
    // was told the outcome is unknown); the refused one never reached the log.
    expect(store.backend.get(configMapKey('unknown-outcome'))).toBeDefined();
    expect(store.backend.get(configMapKey('refused'))).toBeUndefined();
  });
});
