// Owns: the in-process store backend of `kstore server`: one Raft member (raft/) applying
// commands to the replicated state machine (actors/), exposed to the API tier through the
// StoreBackend interface, with its data dir's space alarm (storage-quota.ts) and its recovery
// from a storage failure. Commands are encoded here; the API tier never sees Raft.
//
// A storage failure (ENOSPC, EIO, a failed fsync) is recovered in process: the failed RaftNode
// claims no role and is never written through again (its file descriptors are closed, not
// retried). While it is down, reads are served from the state machine: with one member and its
// node stopped nothing new can commit, so the applied state is the committed state and a
// ReadIndex is the applied index. Writes are refused (NodeFailedError, a 503 with Retry-After).
// Every recoveryIntervalMs (doubling to recoveryIntervalMsMax) a probe file is written and
// fsynced in the data dir; once that succeeds, a new RaftNode is opened from disk under the same
// state machine: it replays what the log holds past the applied index (entries persisted but not
// yet applied when the disk failed), wins its one-member election and takes writes again. The
// state machine, its watchers and everything holding this store keep working across it.
import { mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ClusterState, encodeCommand, commandVersion } from '../actors/index.ts';
import { CompressedSnapshots } from './compressed-snapshots.ts';
import { snapshotPrefetchFor } from './snapshot-prefetch.ts';
import type { SnapshotPrefetch } from './snapshot-prefetch.ts';
import { walPrefetchFor } from './wal-prefetch.ts';
import type { WalPrefetch } from './wal-prefetch.ts';
import type { ChangeEvent, CollectionKey, Command, CommandResult, KubeObject, ObjectKey } from '../actors/index.ts';
import type { StoreBackend } from '../api/index.ts';
import { RaftNode, snapshotAtStopThreshold } from '../raft/index.ts';
import type { RaftNodeOptions, RaftStatus } from '../raft/index.ts';
import { StorageQuota } from './storage-quota.ts';
import type { StorageUsage } from './storage-quota.ts';

/** First wait before probing a failed data dir again; doubles up to recoveryIntervalMsMax. */
export const recoveryIntervalMsDefault = 250;
export const recoveryIntervalMsMax = 5_000;
/** Bytes the probe writes and fsyncs: enough to span a page, small enough to fit a nearly full disk's blocks. */
const probeBytes = 64 * 1024;

export interface LocalStore {
  readonly backend: StoreBackend;
  readonly state: ClusterState;
  /** The member's Raft status; role 'failed' (with the reason) while its storage is down. */
  status(): RaftStatus;
  /** The data dir's usage and space alarm. */
  storage(): StorageUsage;
  /** Storage failures recovered from since start (for /metrics). */
  recoveries(): number;
  waitForLeader(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface LocalStoreOptions {
  readonly id: string;
  readonly dataDir: string;
  readonly quotaBytes?: number;
  readonly reserveBytes?: number;
  readonly storageCheckIntervalMs?: number;
  readonly recoveryIntervalMs?: number;
  /** Fault injection for tests (RaftNodeOptions.wrapStorage); applied to every node opened. */
  readonly wrapStorage?: RaftNodeOptions<CommandResult>['wrapStorage'];
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** Writes and fsyncs a probe file on a new descriptor, then removes it: can the data dir take writes again? */
async function dataDirWritable(dataDir: string): Promise<void> {
  const probe = path.join(dataDir, '.write-probe');
  try {
    const handle = await open(probe, 'w');
    try {
      await handle.writeFile(Buffer.alloc(probeBytes));
      await handle.sync();
    } finally {
      await handle.close();
    }
  } finally {
    await unlink(probe).catch(() => undefined);
  }
}

class RecoveringLocalStore implements LocalStore {
  readonly state = new ClusterState();
  /** What Raft drives: the state, with its snapshots gzip-compressed (reads uncompressed ones too). */
  readonly #stateMachine: CompressedSnapshots<CommandResult>;
  /** The process's read-ahead of this data dir's newest snapshot, until the first open used it. */
  #prefetch: SnapshotPrefetch | undefined;
  /** The process's read-ahead of this data dir's WAL segments, until the first open used it. */
  #walPrefetch: WalPrefetch | undefined;
  readonly backend: StoreBackend;
  readonly #options: LocalStoreOptions;
  readonly #quota: StorageQuota;
  readonly #log: (message: string, fields?: Record<string, unknown>) => void;
  #node: RaftNode<CommandResult> | undefined;
  #recovering: Promise<void> | undefined;
  #recoveries = 0;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(options: LocalStoreOptions, quota: StorageQuota) {
    this.#options = options;
    this.#quota = quota;
    this.#log = options.log ?? (() => {});
    this.#prefetch = snapshotPrefetchFor(options.dataDir);
    this.#walPrefetch = walPrefetchFor(options.dataDir);
    this.#stateMachine = new CompressedSnapshots(this.state, this.#prefetch);
    this.backend = this.#backend();
  }

  async open(): Promise<void> {
    // The read-ahead's inflated snapshot is taken by the (synchronous) restore only once it is there.
    await this.#prefetch?.settled();
    try {
      this.#watch(await this.#openNode());
    } finally {
      this.#prefetch?.release();
      this.#prefetch = undefined;
      this.#walPrefetch?.release();
      this.#walPrefetch = undefined;
    }
  }

  #openNode(): Promise<RaftNode<CommandResult>> {
    return RaftNode.open<CommandResult>({
      id: this.#options.id, peers: [this.#options.id], dataDir: this.#options.dataDir, stateMachine: this.#stateMachine, log: this.#log,
      ...(this.#options.wrapStorage === undefined ? {} : { wrapStorage: this.#options.wrapStorage }),
      ...(this.#walPrefetch === undefined ? {} : { walSegmentSource: this.#walPrefetch.segment }),
    });
  }

  #current(): RaftNode<CommandResult> {
    if (this.#node === undefined) throw new Error('local store is not open');
    return this.#node;
  }

  #watch(node: RaftNode<CommandResult>): void {
    this.#node = node;
    void node.failed().then((error) => {
      if (this.#closed || this.#node !== node) return;
      this.#log('raft storage failed; serving reads, refusing writes until the data dir can be written again', { error: error.reason });
      this.#recovering = this.#recover(node);
    });
  }

  async #recover(failed: RaftNode<CommandResult>): Promise<void> {
    await failed.close().catch((error: unknown) => this.#log('closing the failed raft node', { error: String(error) }));
    let waitMs = this.#options.recoveryIntervalMs ?? recoveryIntervalMsDefault;
    for (let attempt = 1; !this.#closed; attempt++) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.#wake = () => { clearTimeout(timer); resolve(); };
      });
      this.#wake = undefined;
      if (this.#closed) return;
      try {
        await dataDirWritable(this.#options.dataDir);
        const node = await this.#openNode();
        if (this.#closed) {
          await node.close();
          return;
        }
        this.#recoveries += 1;
        this.#log('raft storage recovered: reopened from disk', { attempt, appliedIndex: this.state.appliedIndex() });
        this.#watch(node);
        return;
      } catch (error) {
        if (attempt === 1 || attempt % 20 === 0) this.#log('raft storage still failing', { attempt, error: error instanceof Error ? error.message : String(error) });
        waitMs = Math.min(waitMs * 2, recoveryIntervalMsMax);
      }
    }
  }

  status(): RaftStatus {
    return this.#current().status();
  }

  storage(): StorageUsage {
    return this.#quota.usage();
  }

  recoveries(): number {
    return this.#recoveries;
  }

  waitForLeader(timeoutMs: number): Promise<void> {
    return this.#current().waitForLeader(timeoutMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#quota.stop();
    this.#wake?.();
    await this.#recovering;
    // A clean stop: when the log's tail is long for the state, the next start restores a
    // snapshot taken now instead of replaying it.
    await this.#node?.close({ snapshotIfBehind: snapshotAtStopThreshold(this.state.objectCount()) });
  }

  #backend(): StoreBackend {
    const state = this.state;
    return {
      propose: async (command: Command): Promise<CommandResult> => {
        const refusal = this.#quota.refusal(command);
        if (refusal !== undefined) throw refusal;
        const { result } = await this.#current().propose(encodeCommand({ version: commandVersion, command }));
        return result;
      },
      readIndex: () => {
        const node = this.#current();
        // One member whose node is down commits nothing: what it applied is all that is committed.
        if (node.status().role === 'failed') return Promise.resolve(state.appliedIndex());
        return node.readIndex();
      },
      get: (key: ObjectKey): KubeObject | undefined => state.get(key),
      lifecycleOf: (key: ObjectKey) => state.lifecycleOf(key),
      list: (collection: CollectionKey) => state.list(collection),
      subscribe: (listener: (events: readonly ChangeEvent[]) => void) => state.subscribe(listener),
      currentRevision: () => state.appliedIndex(),
      ready: () => this.#current().status().role === 'leader',
    };
  }
}

export async function openLocalStore(options: LocalStoreOptions): Promise<LocalStore> {
  await mkdir(options.dataDir, { recursive: true });
  const quota = await StorageQuota.start({
    dataDir: options.dataDir, member: options.id,
    ...(options.quotaBytes === undefined ? {} : { quotaBytes: options.quotaBytes }),
    ...(options.reserveBytes === undefined ? {} : { reserveBytes: options.reserveBytes }),
    ...(options.storageCheckIntervalMs === undefined ? {} : { intervalMs: options.storageCheckIntervalMs }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const store = new RecoveringLocalStore(options, quota);
  try {
    await store.open();
  } catch (error) {
    quota.stop();
    throw error;
  }
  return store;
}
