// Owns: RaftNode, the driver (imperative shell) around the pure core: it feeds ticks, messages,
// proposals and reads into the RawNode and executes each Ready in the documented order:
//   drain inputs → ready → persist (await fsync) → send → apply committed → settle promises →
//   advance; as leader, its appends are sent before the persist instead (Ready step 2).
// Snapshots: about every snapshotEveryEntries applied entries (at a per-member phase, so the
// members of a group do not all snapshot at the same index) the driver takes a state machine
// snapshot, persists it (DiskStorage: snapshot file, WAL marker, release of old segments) and
// compacts the core's log. Every member also forgets applied entries it will not send after
// every iteration (RawNode.compactApplied: the retained tail, and as leader what its peers still
// need), so the log's offset may pass the newest snapshot; a leader that must then send a peer a
// snapshot asks for one (RawNode.snapshotWanted) and the driver takes it at once, off schedule.
// A state machine with snapshotView() is serialised off the loop: the loop captures the view
// (cheap) and goes on; when the bytes are ready the loop persists them and compacts (a snapshot
// installed from the leader meanwhile makes them obsolete). A snapshot received from the leader
// arrives in a Ready and is persisted before anything else in it, then restored into the state
// machine before applying.
// Membership (changeMembership) and leadership transfer (transferLeadership) are queued like
// proposals and handed to the core by the loop; their promises settle on apply (membership)
// or when this member sees the new leader (transfer).
// Group commit: inputs that arrive while an iteration awaits its fsync (or within one event-loop
// turn) are taken together by the next iteration: one append, one fsync. The loop is the only
// caller of the core, the state machine and the storage, so none of them sees concurrency.
// Must not know what entries mean (actors/ does), and must not keep timers besides clock.ts.
import { entryDataBytesMax, RawNode } from '../core/index.ts';
import { decodeConfiguration, isLeaderReplication } from '../core/index.ts';
import type { Configuration, Entry, Message, MembershipChange, Ready, HardState, Snapshot } from '../core/index.ts';
import { createRng } from '../stdx/index.ts';
import { DiskStorage } from '../storage/index.ts';
import type { RaftStorage } from '../storage/index.ts';
import { nullTransport } from '../transport/index.ts';
import type { Transport } from '../transport/index.ts';
import { startTicker } from './clock.ts';
import type { Ticker } from './clock.ts';
import { DropReasons, MembershipChangeRefusedError, NodeFailedError, NotLeaderError, ProposalDroppedError, TransferFailedError } from './errors.ts';
import { defaultElectionTicks, defaultHeartbeatTicks, defaultSnapshotEveryEntries, defaultTickIntervalMs, validateOptions } from './options.ts';
import type { RaftNodeOptions, RaftStatus } from './options.ts';
import { ProposalTracker } from './proposals.ts';
import type { ProposalOutcome } from './proposals.ts';
import { ReadTracker } from './reads.ts';
import { MembershipTracker } from './membership.ts';
import type { StateMachine } from './state-machine.ts';
import { snapshotDue, snapshotPhase, writeSliced } from './snapshot-schedule.ts';
import { assert } from '../stdx/index.ts';

/**
 * Ticks replayed per iteration. If the event loop stalled, the missed time is not replayed in
 * full: a paused member should not wake up and immediately start an election (etcd similarly
 * drops ticks when its tick channel is full).
 */
export const ticksPendingMax = 5;
/** Received messages buffered between iterations; overflow drops (Raft tolerates loss). */
export const inboxMessagesMax = 10_000;
/** Waiters on waitForLeader(); more means a caller is leaking them. */
export const leaderWaitersMax = 1_000;

interface TransferWaiter {
  readonly targetId: string;
  submitted: boolean;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

interface LeaderWaiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export class RaftNode<Result> {
  readonly #id: string;
  readonly #core: RawNode;
  readonly #storage: RaftStorage;
  readonly #stateMachine: StateMachine<Result>;
  readonly #transport: Transport;
  readonly #log: (message: string, fields?: Record<string, unknown>) => void;
  readonly #proposals = new ProposalTracker<Result>();
  readonly #reads = new ReadTracker();
  readonly #membership = new MembershipTracker();
  #inbox: Message[] = [];
  #ticksPending = 0;
  #leaderWaiters: LeaderWaiter[] = [];
  #transfers: TransferWaiter[] = [];
  readonly #electionTimeoutMs: number;
  #loop: Promise<void> | undefined = undefined;
  #ticker: Ticker | undefined = undefined;
  #unsubscribe: () => void = () => {};
  #deferredHardState: HardState | undefined = undefined;
  /** The newest hard state persisted or deferred: what a snapshot's WAL marker carries. */
  #latestHardState: HardState;
  #snapshotIndex: number;
  readonly #snapshotEveryEntries: number;
  /** This member's offset in the snapshot schedule (snapshot-schedule.ts). */
  readonly #snapshotPhase: number;
  /** A view being serialised off the loop; at most one. */
  #snapshotWriting: Promise<void> | undefined = undefined;
  /** Bytes of a view, ready for the loop to persist and compact. */
  #snapshotWritten: { readonly snapshot: Snapshot; readonly startedMs: number; readonly captureMs: number } | undefined = undefined;
  #leaderTerm: number | undefined = undefined;
  /** When a message from each peer last arrived (performance.now()); for leaderContactMs. */
  readonly #lastHeardMs = new Map<string, number>();
  readonly #openedMs = performance.now();
  #failure: NodeFailedError | undefined = undefined;
  readonly #failureListeners: ((error: NodeFailedError) => void)[] = [];
  /** Writes to storage completed (appends, snapshots): see storageWrites(). */
  #storageWrites = 0;
  /** onRoleChange listeners, and the role they last heard of. */
  readonly #roleListeners = new Set<() => void>();
  #notifiedRole: RaftStatus['role'] = 'follower';
  #closed = false;

  private constructor(options: RaftNodeOptions<Result>, storage: RaftStorage) {
    this.#id = options.id;
    this.#storage = storage;
    this.#stateMachine = options.stateMachine;
    this.#transport = options.transport ?? nullTransport;
    this.#log = options.log ?? (() => {});
    this.#latestHardState = storage.recovered.hardState;
    this.#snapshotIndex = storage.recovered.snapshot?.meta.index ?? 0;
    this.#snapshotEveryEntries = options.snapshotEveryEntries ?? defaultSnapshotEveryEntries;
    this.#snapshotPhase = snapshotPhase(options.id, this.#snapshotEveryEntries);
    this.#electionTimeoutMs = (options.electionTicks ?? defaultElectionTicks) * (options.tickIntervalMs ?? defaultTickIntervalMs);
    // The core keeps its configuration object for its life, and with it what it was restored
    // from: hand it a copy whose entries (copied into its log) and snapshot (kept by the core
    // itself until a newer one replaces it) are dropped once it is built.
    const recovered = storage.recovered;
    const restored: { hardState: HardState; entries: Entry[]; snapshot?: Snapshot } = { hardState: recovered.hardState, entries: [...recovered.entries] };
    if (recovered.snapshot !== undefined) restored.snapshot = recovered.snapshot;
    this.#core = new RawNode({
      id: options.id, voters: options.peers,
      electionTicks: options.electionTicks ?? defaultElectionTicks,
      heartbeatTicks: options.heartbeatTicks ?? defaultHeartbeatTicks,
      rng: createRng(Math.floor(Math.random() * 2 ** 32)),
      restored, appliedIndex: options.stateMachine.appliedIndex(),
      ...(options.snapshotChunkBytes === undefined ? {} : { snapshotChunkBytes: options.snapshotChunkBytes }),
    });
    restored.entries = [];
    delete restored.snapshot;
  }

  /** Recovers the log, replays committed entries into the state machine and starts ticking. */
  static async open<Result>(options: RaftNodeOptions<Result>): Promise<RaftNode<Result>> {
    validateOptions(options);
    const log = options.log ?? (() => {});
    const disk = await DiskStorage.open(options.dataDir, {
      ...(options.walSegmentBytes === undefined ? {} : { segmentBytes: options.walSegmentBytes }),
      ...(options.walSegmentSource === undefined ? {} : { segmentSource: options.walSegmentSource }),
      onCorruptSnapshot: (file) => log('raft snapshot corrupt; quarantined, using an older one', { file }),
    });
    const storage: RaftStorage = options.wrapStorage?.(disk) ?? disk;
    // Recovery: the newest valid snapshot into the state machine, then the WAL after it replays
    // through the core as committed entries.
    const snapshot = storage.recovered.snapshot;
    // Reopening under a state machine that already applied entries (recovery after a storage
    // failure): the log on disk must still hold them, or this member would have applied
    // entries it can no longer prove committed.
    const recoveredLastIndex = storage.recovered.entries.at(-1)?.index ?? snapshot?.meta.index ?? 0;
    if (options.stateMachine.appliedIndex() > recoveredLastIndex) {
      await storage.close();
      throw new Error(`the log in ${options.dataDir} ends at index ${recoveredLastIndex}, before the ${options.stateMachine.appliedIndex()} entries already applied; `
        + 'restart the process to recover from disk alone');
    }
    if (snapshot !== undefined && options.stateMachine.appliedIndex() < snapshot.meta.index) {
      options.stateMachine.restore(snapshot.data, snapshot.meta.index);
    }
    const node = new RaftNode(options, storage);
    disk.releaseRecovered(); // the core and the state machine hold what they need of it
    await node.#runToQuiet();
    const configuration = node.#core.configuration();
    if (configuration.voters.length === 1 && configuration.voters[0] === options.id) {
      // A sole voter needs no election timeout: win now, append the no-op, and commit (and so
      // apply) every entry in the log, even if the stored commit index lagged.
      node.#core.campaign();
      await node.#runToQuiet();
    } else {
      // Members of a group started together (a cold start) elect a leader within 0.1-1 s of the
      // last one opening, not 1-2 s.
      node.#core.advanceElectionTimerAtStart();
    }
    node.#unsubscribe = node.#transport.onMessage((message) => node.#receive(message));
    node.#ticker = startTicker(options.tickIntervalMs ?? defaultTickIntervalMs, () => node.#onTick());
    node.#log('raft node opened', { ...node.status() });
    return node;
  }

  propose(data: Uint8Array): Promise<ProposalOutcome<Result>> {
    const unavailable = this.#unavailable();
    if (unavailable !== undefined) return Promise.reject(unavailable);
    if (data.byteLength > entryDataBytesMax) return Promise.reject(new ProposalDroppedError(DropReasons.TooLarge));
    const status = this.#core.status();
    if (status.role !== 'leader') return Promise.reject(new NotLeaderError(status.leaderId));
    const outcome = this.#proposals.enqueue(data);
    this.#kick();
    return outcome;
  }

  readIndex(): Promise<number> {
    const unavailable = this.#unavailable();
    if (unavailable !== undefined) return Promise.reject(unavailable);
    const status = this.#core.status();
    if (status.role !== 'leader') return Promise.reject(new NotLeaderError(status.leaderId));
    const index = this.#reads.enqueue();
    this.#kick();
    return index;
  }

  /**
   * Changes the membership by one server (thesis §4.1-4.3): add a learner, promote a caught-up
   * learner to voter, or remove a member. Resolves with the new configuration once its entry
   * committed and was applied here. Leader only; one change at a time (a second is refused
   * with MembershipChangeRefusedError until the first committed). A new member is started with
   * `join: true` and the group's bootstrap peers; the transport reaches it by its id.
   */
  changeMembership(change: MembershipChange): Promise<Configuration> {
    const unavailable = this.#unavailable();
    if (unavailable !== undefined) return Promise.reject(unavailable);
    const status = this.#core.status();
    if (status.role !== 'leader') return Promise.reject(new NotLeaderError(status.leaderId));
    const outcome = this.#membership.enqueue(change);
    this.#kick();
    return outcome;
  }

  /**
   * Leadership transfer (thesis §3.10): this leader stops accepting proposals (they are refused
   * with NotLeaderError naming the target), brings `targetId` up to date and tells it to
   * campaign at once. Resolves when this member sees `targetId` lead; rejects with
   * TransferFailedError if the core refuses or it has not happened within `timeoutMs`
   * (default: two election timeouts; the core itself gives up after one).
   */
  transferLeadership(targetId: string, timeoutMs = 2 * this.#electionTimeoutMs): Promise<void> {
    const unavailable = this.#unavailable();
    if (unavailable !== undefined) return Promise.reject(unavailable);
    const status = this.#core.status();
    if (status.role !== 'leader') return Promise.reject(new NotLeaderError(status.leaderId));
    if (this.#transfers.length >= leaderWaitersMax) return Promise.reject(new TransferFailedError(targetId, 'too many transfers waiting'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#transfers = this.#transfers.filter((transfer) => transfer.timer !== timer);
        reject(new TransferFailedError(targetId, `not leader within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#transfers.push({ targetId, submitted: false, resolve, reject, timer });
      this.#kick();
    });
  }

  /** The configuration in effect here: the latest in the log, committed or not (thesis §4.1). */
  configuration(): Configuration {
    return this.#core.configuration();
  }

  waitForLeader(timeoutMs: number): Promise<void> {
    const unavailable = this.#unavailable();
    if (unavailable !== undefined) return Promise.reject(unavailable);
    if (this.#core.status().leaderId !== undefined) return Promise.resolve();
    if (this.#leaderWaiters.length >= leaderWaitersMax) return Promise.reject(new NotLeaderError(undefined, 'too many leader waiters'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#leaderWaiters = this.#leaderWaiters.filter((waiter) => waiter.timer !== timer);
        reject(new NotLeaderError(undefined, `no leader within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#leaderWaiters.push({ resolve, reject, timer });
    });
  }

  status(): RaftStatus {
    const status = this.#core.status();
    return {
      id: this.#id, role: this.#failure === undefined ? status.role : 'failed', term: status.term,
      leaderId: this.#failure === undefined ? status.leaderId : undefined,
      commitIndex: status.commitIndex, appliedIndex: this.#stateMachine.appliedIndex(), lastIndex: status.lastIndex,
      failure: this.#failure?.reason,
      leaderContactMs: this.#leaderContactMs(status.role, status.leaderId),
    };
  }

  #leaderContactMs(role: RaftStatus['role'], leaderId: string | undefined): number | undefined {
    if (leaderId === undefined) return undefined;
    if (role === 'leader') return 0;
    return Math.round(performance.now() - (this.#lastHeardMs.get(leaderId) ?? this.#openedMs));
  }

  /**
   * Calls `listener` (with no arguments; read status()) after this member's role changed:
   * it became leader, stopped leading, became a candidate or a follower again, or failed. For
   * what runs only while this member leads, instead of polling status(): the listener runs on
   * the Raft loop, so it must only take note and return (an exception it throws is logged).
   * Returns the unsubscribe function. A listener is not called for the role at subscription
   * time: read status() after subscribing.
   */
  onRoleChange(listener: () => void): () => void {
    this.#roleListeners.add(listener);
    return () => {
      this.#roleListeners.delete(listener);
    };
  }

  #notifyRoleChange(): void {
    const role = this.status().role;
    if (role === this.#notifiedRole) return;
    this.#notifiedRole = role;
    for (const listener of [...this.#roleListeners]) {
      try {
        listener();
      } catch (error) {
        this.#log('raft role listener failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  /**
   * How many writes to its storage (log appends, snapshots with the segments they release) this
   * member has completed: while the count stays, the data dir holds what it held, so a caller
   * that measures its size (deploy/storage-quota.ts) need not walk it again.
   */
  storageWrites(): number {
    return this.#storageWrites;
  }

  /**
   * Stops ticking and receiving, finishes the iteration in progress, rejects what is left. With
   * `snapshotIfBehind`, then persists a snapshot at the applied index when at least that many
   * applied entries came after the newest one, so the next start restores it instead of
   * replaying them (a clean stop; a crash still replays). A failed snapshot is logged: the log on
   * disk still holds everything.
   */
  async close(options: { readonly snapshotIfBehind?: number } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ticker?.stop();
    this.#unsubscribe();
    const closedError = (): Error => new ProposalDroppedError(DropReasons.Closed);
    this.#proposals.rejectQueued(closedError);
    await this.#snapshotWriting;
    await this.#loop;
    this.#proposals.rejectAll(closedError);
    this.#membership.rejectAll(closedError);
    this.#reads.rejectAll(closedError);
    this.#rejectLeaderWaiters(closedError);
    if (this.#failure === undefined && this.#deferredHardState !== undefined) {
      await this.#storage.append([], this.#deferredHardState);
      this.#storageWrites += 1;
    }
    if (this.#failure === undefined && options.snapshotIfBehind !== undefined) await this.#snapshotAtClose(options.snapshotIfBehind);
    await this.#storage.close();
    this.#log('raft node closed', { id: this.#id });
  }

  #unavailable(): Error | undefined {
    if (this.#failure !== undefined) return this.#failure;
    if (this.#closed) return new ProposalDroppedError(DropReasons.Closed);
    return undefined;
  }

  #receive(message: Message): void {
    if (message.to !== this.#id) return;
    this.#lastHeardMs.set(message.from, performance.now());
    if (this.#inbox.length >= inboxMessagesMax) return;
    this.#inbox.push(message);
    this.#kick();
  }

  #onTick(): void {
    this.#ticksPending = Math.min(this.#ticksPending + 1, ticksPendingMax);
    this.#kick();
  }

  /** Starts the loop on the next turn, so everything proposed in this turn joins one batch. */
  #kick(): void {
    if (this.#loop !== undefined || this.#failure !== undefined) return;
    this.#loop = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#runLoop());
  }

  async #runToQuiet(): Promise<void> {
    this.#kick();
    await this.#loop;
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #runLoop(): Promise<void> {
    try {
      while (this.#failure === undefined && this.#hasWork()) await this.#iterate();
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      // Runs synchronously after the last check of #hasWork(): no input can slip in between.
      this.#loop = undefined;
    }
  }

  #hasWork(): boolean {
    return this.#ticksPending > 0 || this.#inbox.length > 0 || this.#proposals.hasQueued() || this.#membership.hasQueued()
      || this.#reads.hasQueued() || this.#transfers.some((transfer) => !transfer.submitted) || this.#core.hasReady()
      || this.#snapshotWritten !== undefined;
  }

  async #iterate(): Promise<void> {
    this.#feedInputs();
    this.#observeLeadership();
    if (!this.#core.hasReady()) {
      // A leader may have asked for a snapshot while handling an answer that produced no Ready.
      await this.#maybeSnapshot();
      return;
    }
    const ready = this.#core.ready();
    if (ready.sendAppendsBeforePersist) {
      // A leader's appends go out before its own fsync: followers write in parallel with it
      // (Ready step 2's exception); its own match counts only after advance().
      this.#transport.send(ready.messages.filter(isLeaderReplication));
      await this.#persist(ready);
      this.#transport.send(ready.messages.filter((message) => !isLeaderReplication(message)));
    } else {
      await this.#persist(ready);
      this.#transport.send(ready.messages);
    }
    this.#apply(ready);
    this.#reads.confirm(ready.readStates);
    this.#reads.resolveApplied(this.#stateMachine.appliedIndex());
    this.#core.advance();
    // Applied entries no peer will be sent need not wait for a snapshot to go (compaction.ts).
    this.#core.compactApplied();
    this.#observeLeadership();
    await this.#maybeSnapshot();
  }

  /**
   * Log compaction (thesis §5.1): snapshot the state machine on this member's schedule, or at
   * once when the core wants one to send a peer (RawNode.snapshotWanted). With snapshotView()
   * the capture is the only part on the loop (the serialisation runs between iterations and the
   * loop persists its bytes when they are ready); without it, snapshot() runs inline. Persisting
   * (the file's write and fsync) runs on the loop either way.
   */
  async #maybeSnapshot(): Promise<void> {
    await this.#saveWrittenSnapshot();
    if (this.#snapshotWriting !== undefined) return;
    const appliedIndex = this.#stateMachine.appliedIndex();
    const due = snapshotDue(this.#snapshotIndex, appliedIndex, this.#snapshotEveryEntries, this.#snapshotPhase);
    if (!due && !this.#core.snapshotWanted()) return;
    const startedMs = performance.now();
    const meta = this.#core.snapshotMeta(appliedIndex);
    const view = this.#stateMachine.snapshotView?.();
    if (view === undefined) {
      await this.#snapshotInline();
      return;
    }
    assert(view.index === appliedIndex, `snapshot view at ${view.index}, applied ${appliedIndex}`);
    const captureMs = performance.now() - startedMs;
    this.#snapshotWriting = writeSliced(view.chunks()).then(
      (data) => {
        this.#snapshotWriting = undefined;
        if (this.#closed || this.#failure !== undefined) return;
        this.#snapshotWritten = { snapshot: { meta, data }, startedMs, captureMs };
        this.#kick();
      },
      (error: unknown) => {
        this.#snapshotWriting = undefined;
        if (this.#failure === undefined) this.#fail(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  /** close()'s snapshot: after the loop ended, so nothing else uses the core or the storage. */
  async #snapshotAtClose(minimumEntries: number): Promise<void> {
    try {
      await this.#saveWrittenSnapshot();
      const behind = this.#stateMachine.appliedIndex() - this.#snapshotIndex;
      if (behind < minimumEntries) return;
      await this.#snapshotInline();
    } catch (error) {
      this.#log('raft snapshot at close failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Takes, persists and compacts to a snapshot at the applied index, on the loop. */
  async #snapshotInline(): Promise<void> {
    const startedMs = performance.now();
    const meta = this.#core.snapshotMeta(this.#stateMachine.appliedIndex());
    await this.#saveSnapshot({ meta, data: this.#stateMachine.snapshot() }, startedMs, undefined);
  }

  /** Persists and compacts to a snapshot serialised off the loop, unless one at a later index was installed meanwhile. */
  async #saveWrittenSnapshot(): Promise<void> {
    const written = this.#snapshotWritten;
    if (written === undefined) return;
    this.#snapshotWritten = undefined;
    if (written.snapshot.meta.index <= this.#snapshotIndex) return;
    await this.#saveSnapshot(written.snapshot, written.startedMs, written.captureMs);
  }

  async #saveSnapshot(snapshot: Snapshot, startedMs: number, captureMs: number | undefined): Promise<void> {
    const persistStartedMs = performance.now();
    await this.#storage.saveSnapshot(snapshot, this.#latestHardState);
    this.#storageWrites += 1;
    this.#deferredHardState = undefined;
    this.#core.compact(snapshot);
    this.#snapshotIndex = snapshot.meta.index;
    const now = performance.now();
    this.#log('raft snapshot taken', {
      index: snapshot.meta.index, bytes: snapshot.data.byteLength, durationMs: Math.round(now - startedMs),
      // Time the loop was held: the capture and the persist (all of it for an inline snapshot).
      loopMs: Math.round(captureMs === undefined ? now - startedMs : captureMs + now - persistStartedMs),
      offLoop: captureMs !== undefined,
    });
  }

  #feedInputs(): void {
    for (; this.#ticksPending > 0; this.#ticksPending -= 1) this.#core.tick();
    const inbox = this.#inbox;
    this.#inbox = [];
    for (const message of inbox) this.#core.step(message);
    if (this.#proposals.hasQueued()) this.#proposeBatch();
    this.#submitTransfers();
    this.#membership.submitQueued((change) => {
      const proposed = this.#core.proposeMembershipChange(change);
      if (proposed.accepted) return { index: proposed.index, term: proposed.term };
      if (proposed.reason === 'notLeader') return new NotLeaderError(proposed.leaderId);
      return new MembershipChangeRefusedError(proposed.reason, proposed.detail);
    });
    const notLeader = (): Error => new NotLeaderError(this.#core.status().leaderId);
    this.#reads.submitQueued((requestId) => this.#core.readIndex(requestId), notLeader);
  }

  #proposeBatch(): void {
    const batch = this.#proposals.takeBatch();
    assert(batch.length > 0, 'a queued proposal batch is not empty');
    const proposed = this.#core.proposeBatch(batch.map((proposal) => proposal.data));
    if (proposed.accepted) {
      this.#proposals.track(batch, proposed.firstIndex, proposed.term);
      return;
    }
    for (const proposal of batch) proposal.reject(new NotLeaderError(proposed.leaderId));
  }

  async #persist(ready: Ready): Promise<void> {
    if (ready.hardState !== undefined) this.#latestHardState = ready.hardState;
    if (ready.snapshot !== undefined) {
      // Ready step 0: the leader's snapshot first, with the hard state, then entries after it.
      await this.#storage.saveSnapshot(ready.snapshot, this.#latestHardState);
      this.#storageWrites += 1;
      this.#deferredHardState = undefined;
      this.#snapshotIndex = ready.snapshot.meta.index;
      if (ready.entries.length > 0) {
        await this.#storage.append(ready.entries);
        this.#storageWrites += 1;
      }
      return;
    }
    if (!ready.mustSync) {
      // Commit-only change: carried into the next fsynced append (or written on close).
      if (ready.hardState !== undefined) this.#deferredHardState = ready.hardState;
      return;
    }
    await this.#storage.append(ready.entries, ready.hardState ?? this.#deferredHardState);
    this.#storageWrites += 1;
    this.#deferredHardState = undefined;
  }

  #apply(ready: Ready): void {
    if (ready.snapshot !== undefined) {
      const { index } = ready.snapshot.meta;
      this.#stateMachine.restore(ready.snapshot.data, index);
      assert(this.#stateMachine.appliedIndex() === index, `state machine at ${this.#stateMachine.appliedIndex()} after restoring ${index}`);
      // Entries this member proposed up to the snapshot will not be applied one by one here.
      this.#proposals.dropThrough(index, () => new ProposalDroppedError(DropReasons.LeadershipLost));
      this.#membership.dropThrough(index, () => new ProposalDroppedError(DropReasons.LeadershipLost));
      this.#log('raft snapshot installed', { index, bytes: ready.snapshot.data.byteLength });
    }
    for (const entry of ready.committedEntries) {
      // A configuration entry reaches the state machine as a no-op (empty data): it keeps the
      // applied index contiguous, and the application has no business with membership.
      const isConfiguration = entry.type === 'configuration';
      const result = this.#stateMachine.apply({ index: entry.index, term: entry.term, data: isConfiguration ? new Uint8Array(0) : entry.data });
      assert(this.#stateMachine.appliedIndex() === entry.index, `state machine applied ${this.#stateMachine.appliedIndex()} after entry ${entry.index}`);
      if (isConfiguration) this.#membership.settleApplied(entry.index, entry.term, decodeConfiguration(entry.data));
      else this.#proposals.settleApplied(entry.index, entry.term, result);
    }
  }

  /** Rejects what this member can no longer deliver after losing leadership, and wakes
   *  waitForLeader() callers once a leader is known. */
  #observeLeadership(): void {
    const status = this.#core.status();
    const leaderTerm = status.role === 'leader' ? status.term : undefined;
    if (this.#leaderTerm !== undefined && leaderTerm !== this.#leaderTerm) {
      this.#log('raft leadership lost', { term: status.term, leaderId: status.leaderId });
      this.#proposals.dropUncommitted(status.commitIndex, () => new ProposalDroppedError(DropReasons.LeadershipLost));
      this.#membership.dropUncommitted(status.commitIndex, () => new ProposalDroppedError(DropReasons.LeadershipLost));
      this.#reads.rejectUnconfirmed(() => new NotLeaderError(status.leaderId, 'leadership lost'));
    }
    if (leaderTerm !== undefined && leaderTerm !== this.#leaderTerm) this.#log('raft became leader', { term: leaderTerm });
    this.#leaderTerm = leaderTerm;
    if (status.leaderId !== undefined) this.#resolveLeaderWaiters();
    this.#settleTransfers(status.leaderId);
    if (status.role !== this.#notifiedRole) this.#notifyRoleChange();
  }

  #submitTransfers(): void {
    for (const transfer of this.#transfers) {
      if (transfer.submitted) continue;
      transfer.submitted = true;
      const result = this.#core.transferLeadership(transfer.targetId);
      if (!result.accepted) this.#settleTransfer(transfer, new TransferFailedError(transfer.targetId, result.detail));
    }
  }

  /** Settles transfers whose target now leads (or every one, with `error`). */
  #settleTransfers(leaderId: string | undefined): void {
    for (const transfer of [...this.#transfers]) {
      if (transfer.targetId === leaderId) this.#settleTransfer(transfer, undefined);
    }
  }

  #settleTransfer(transfer: TransferWaiter, error: Error | undefined): void {
    clearTimeout(transfer.timer);
    this.#transfers = this.#transfers.filter((waiting) => waiting !== transfer);
    if (error === undefined) transfer.resolve();
    else transfer.reject(error);
  }

  #resolveLeaderWaiters(): void {
    const waiters = this.#leaderWaiters;
    this.#leaderWaiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }

  #rejectLeaderWaiters(error: () => Error): void {
    for (const transfer of [...this.#transfers]) this.#settleTransfer(transfer, error());
    const waiters = this.#leaderWaiters;
    this.#leaderWaiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error());
    }
  }

  /**
   * Resolves with the error once storage or apply failed (never, while the member is healthy).
   * After a failed write or fsync the page cache can no longer be trusted, so nothing is
   * retried: the owner stops what it runs as this member and restarts it from disk.
   */
  failed(): Promise<NodeFailedError> {
    if (this.#failure !== undefined) return Promise.resolve(this.#failure);
    return new Promise((resolve) => this.#failureListeners.push(resolve));
  }

  /** Storage or apply failed: the member is inoperable until restarted and recovered. */
  #fail(cause: Error): void {
    const error = cause instanceof NodeFailedError ? cause : new NodeFailedError(cause);
    this.#failure = error;
    for (const listener of this.#failureListeners.splice(0)) listener(error);
    this.#ticker?.stop();
    this.#log('raft node failed', { error: error.reason });
    this.#proposals.rejectAll(() => error);
    this.#membership.rejectAll(() => error);
    this.#reads.rejectAll(() => error);
    this.#rejectLeaderWaiters(() => error);
    this.#notifyRoleChange();
  }
}
