// Owns: one simulated member: a RawNode driven like raft/node's RaftNode (inputs buffered while a
// Ready or a snapshot is being persisted; persist → fsync → send → restore/apply → serve reads →
// advance, with a leader's appends sent before its fsync when the Ready allows it), its faulty
// storage, its KV state machine, log compaction (every `snapshotEveryEntries` applied entries,
// or at once when the core wants a snapshot to send a peer (RawNode.snapshotWanted): snapshot
// the KV state with its session table, persist it, fsync, then compact() the core; and after
// every Ready, compactApplied(), which forgets applied entries no peer will be sent),
// snapshots installed from the leader (persisted with the Ready, then restored into the KV), the
// administrative requests the cluster hands it (membership change, leadership transfer) and the
// server side of the client protocol (propose writes, ReadIndex for gets, answer once applied).
// Crash drops everything volatile; start() rebuilds the KV from the newest durable snapshot and
// the core from durable storage only. Must not decide faults or time: the cluster does.
import { isLeaderReplication, RawNode } from '../../raft/core/index.ts';
import type {
  Configuration, CoreStatus, Entry, MembershipChange, MembershipProposal, Message, Ready, Snapshot, TransferResult,
} from '../../raft/core/index.ts';
import { assert } from '../../raft/stdx/index.ts';
import type { Rng } from '../../raft/stdx/index.ts';
import type { SnapshotSource } from './checkers/safety.ts';
import { FaultyStorage } from './faulty-storage.ts';
import { encodeWrite, KvStateMachine } from './kv.ts';
import type { SnapshotKnobs } from './options.ts';
import type { ClientAnswer, ClientRequest, Packet } from './packets.ts';

/**
 * Inputs buffered while a Ready awaits its fsync. The driver's limit (raft/node inboxMessagesMax)
 * is the model; overflow drops the input, which Raft and the clients' retries tolerate.
 */
export const memberInboxMax = 10_000;

export type MemberInput =
  | { readonly kind: 'tick' }
  | { readonly kind: 'message'; readonly message: Message }
  | { readonly kind: 'request'; readonly request: ClientRequest }
  | { readonly kind: 'membership'; readonly change: MembershipChange }
  | { readonly kind: 'transfer'; readonly targetId: string };

/** What a member needs from the cluster around it. */
export interface MemberEnvironment {
  send(packet: Packet): void;
  scheduleFsync(member: SimMember): void;
  trace(text: string): void;
  coreRng(): Rng;
  /** A Ready's writes reached storage (not yet durable): the log checks look at them. */
  onWritten(member: SimMember, ready: Ready): void;
  onApplied(member: SimMember, entry: Entry): void;
  /** A snapshot was taken here (before it is persisted) or installed from the leader (restored into the KV). */
  onSnapshot(member: SimMember, snapshot: Snapshot, source: SnapshotSource): void;
  onMembershipProposed(member: SimMember, change: MembershipChange, result: MembershipProposal): void;
  onTransferRequested(member: SimMember, targetId: string, result: TransferResult): void;
  /** This member just became leader of `term`. */
  onLeader(member: SimMember, term: number): void;
}

export interface CoreTimers {
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
}

interface PendingProposal {
  readonly term: number;
  readonly request: ClientRequest;
}

/** What the member waits on an fsync for; inputs are buffered meanwhile (as RaftNode's loop awaits). */
type Syncing =
  | { readonly kind: 'ready'; readonly ready: Ready; readonly sentEarly: boolean }
  | { readonly kind: 'snapshot'; readonly snapshot: Snapshot };

/** Volatile state of a running incarnation; gone at a crash. */
interface Running {
  readonly core: RawNode;
  readonly kv: KvStateMachine;
  inbox: MemberInput[];
  syncing: Syncing | undefined;
  readonly proposals: Map<number, PendingProposal>;
  readonly readsAwaiting: Map<number, ClientRequest>;
  readsConfirmed: { readonly index: number; readonly request: ClientRequest }[];
  nextReadId: number;
  leaderTerm: number | undefined;
  /** Index of the newest snapshot this member holds (taken, installed or restored); 0 if none. */
  snapshotIndex: number;
}

export class SimMember {
  readonly id: string;
  readonly storage = new FaultyStorage();
  incarnation = 0;
  /** Leader messages sent before the leader's own fsync completed (Ready.sendAppendsBeforePersist). */
  earlySends = 0;
  /** Snapshots taken because the core wanted one to send a peer (RawNode.snapshotWanted). */
  snapshotsOnDemand = 0;
  readonly #voters: readonly string[];
  readonly #timers: CoreTimers;
  readonly #snapshots: SnapshotKnobs;
  readonly #env: MemberEnvironment;
  #running: Running | undefined = undefined;

  /** `voters` is the group's bootstrap configuration; a spare member is not among them. */
  constructor(id: string, voters: readonly string[], timers: CoreTimers, snapshots: SnapshotKnobs, env: MemberEnvironment) {
    this.id = id;
    this.#voters = voters;
    this.#timers = timers;
    this.#snapshots = snapshots;
    this.#env = env;
  }

  get up(): boolean {
    return this.#running !== undefined;
  }

  get syncing(): boolean {
    return this.#running?.syncing !== undefined;
  }

  /** Starts (or restarts) from durable storage only: the KV from the newest durable snapshot. */
  start(): void {
    assert(this.#running === undefined, `${this.id} started twice`);
    this.incarnation += 1;
    const restored = this.storage.restored();
    const kv = new KvStateMachine();
    const snapshotIndex = restored.snapshot?.meta.index ?? 0;
    if (restored.snapshot !== undefined) kv.restore(restored.snapshot.data, snapshotIndex);
    const core = new RawNode({
      id: this.id, voters: this.#voters, electionTicks: this.#timers.electionTicks, heartbeatTicks: this.#timers.heartbeatTicks,
      rng: this.#env.coreRng(), restored, appliedIndex: snapshotIndex, snapshotChunkBytes: this.#snapshots.chunkBytes,
    });
    this.#running = {
      core, kv, inbox: [], syncing: undefined, proposals: new Map(),
      readsAwaiting: new Map(), readsConfirmed: [], nextReadId: 1, leaderTerm: undefined, snapshotIndex,
    };
    // As RaftNode.open does for a member with peers: its first election timeout runs short.
    core.advanceElectionTimerAtStart();
    this.#drive();
  }

  /** Loses all volatile state and the unsynced writes except the first `recordsKept`. */
  crash(recordsKept: number): void {
    assert(this.#running !== undefined, `${this.id} crashed while down`);
    this.#running = undefined;
    this.storage.crash(recordsKept);
    this.incarnation += 1;
  }

  status(): CoreStatus | undefined {
    return this.#running?.core.status();
  }

  /** The configuration in force here (the latest in its log); undefined while down. */
  configuration(): Configuration | undefined {
    return this.#running?.core.configuration();
  }

  hasReady(): boolean {
    return this.#running?.core.hasReady() ?? false;
  }

  /** An entry of the core's in-memory log (durable or not). */
  entryAt(index: number): Entry {
    const running = this.#running;
    assert(running !== undefined, `${this.id} is down`);
    return running.core.entryAt(index);
  }

  /**
   * Proposes one write nobody reads (key "__nudge"), as a diagnosis of a stalled cluster: new
   * entries make a leader send appends again. Returns false if not leader, transferring or
   * busy syncing.
   */
  nudge(): boolean {
    const running = this.#running;
    if (running === undefined || running.syncing !== undefined || running.core.status().role !== 'leader') return false;
    const proposed = running.core.propose(encodeWrite({ clientId: 'nudge', sequence: 1, kind: 'put', key: '__nudge', value: '' }));
    this.#drive();
    return proposed.accepted;
  }

  input(input: MemberInput): void {
    const running = this.#running;
    assert(running !== undefined, `input to ${this.id} while down`);
    if (running.syncing !== undefined) {
      if (running.inbox.length < memberInboxMax) running.inbox.push(input);
      return;
    }
    this.#feed(running, input);
    this.#drive();
  }

  /** The fsync of the outstanding Ready or snapshot completed: its writes are durable. */
  fsyncDone(): void {
    const running = this.#running;
    assert(running !== undefined && running.syncing !== undefined, `${this.id} fsync without a Ready`);
    this.storage.sync();
    const syncing = running.syncing;
    running.syncing = undefined;
    if (syncing.kind === 'ready') this.#finish(running, syncing.ready, syncing.sentEarly);
    else this.#compact(running, syncing.snapshot);
    if (running.syncing !== undefined) return; // a snapshot to persist first; the inbox waits
    const inbox = running.inbox;
    running.inbox = [];
    for (const input of inbox) this.#feed(running, input);
    this.#drive();
  }

  #feed(running: Running, input: MemberInput): void {
    switch (input.kind) {
      case 'tick': running.core.tick(); break;
      case 'message': running.core.step(input.message); break;
      case 'request': this.#serve(running, input.request); break;
      case 'membership':
        this.#env.onMembershipProposed(this, input.change, running.core.proposeMembershipChange(input.change));
        break;
      case 'transfer':
        this.#env.onTransferRequested(this, input.targetId, running.core.transferLeadership(input.targetId));
        break;
    }
    this.#observeLeadership(running);
  }

  /** Takes Readies until one needs an fsync (then waits for fsyncDone) or none is left. */
  #drive(): void {
    const running = this.#running;
    assert(running !== undefined, `${this.id} driven while down`);
    while (running.syncing === undefined && running.core.hasReady()) {
      const ready = running.core.ready();
      this.storage.write(ready);
      this.#env.onWritten(this, ready);
      if (ready.mustSync) {
        // Ready step 2's exception: a leader's appends go out while its own write is in flight.
        const sentEarly = ready.sendAppendsBeforePersist;
        if (sentEarly) {
          for (const message of ready.messages) {
            if (!isLeaderReplication(message)) continue;
            this.earlySends += 1;
            this.#env.send(message);
          }
        }
        running.syncing = { kind: 'ready', ready, sentEarly };
        this.#env.scheduleFsync(this);
        return;
      }
      this.#finish(running, ready, false);
    }
  }

  /** Ready contract steps 2-5, after the writes are durable (or need no sync); then maybe a snapshot. */
  #finish(running: Running, ready: Ready, sentEarly: boolean): void {
    for (const message of ready.messages) if (!sentEarly || !isLeaderReplication(message)) this.#env.send(message);
    if (ready.snapshot !== undefined) this.#install(running, ready.snapshot);
    for (const entry of ready.committedEntries) this.#apply(running, entry);
    for (const state of ready.readStates) {
      const request = running.readsAwaiting.get(state.requestId);
      if (request === undefined) continue;
      running.readsAwaiting.delete(state.requestId);
      running.readsConfirmed.push({ index: state.index, request });
    }
    this.#serveConfirmedReads(running);
    running.core.advance();
    // Member compaction (as RaftNode after each iteration), on seeds that compact at all.
    if (this.#snapshots.everyEntries > 0) this.#compactApplied(running);
    this.#observeLeadership(running);
    this.#maybeSnapshot(running);
  }

  #compactApplied(running: Running): void {
    const before = running.core.status().offsetIndex;
    running.core.compactApplied(this.#snapshots.retainEntries);
    const after = running.core.status().offsetIndex;
    if (after !== before) this.#env.trace(`${this.id} forgot applied entries ${before + 1}-${after} (retain ${this.#snapshots.retainEntries})`);
  }

  /** Ready step 3 for a snapshot from the leader: the KV state (values and sessions) is replaced. */
  #install(running: Running, snapshot: Snapshot): void {
    const { index } = snapshot.meta;
    running.kv.restore(snapshot.data, index);
    running.snapshotIndex = index;
    this.#env.onSnapshot(this, snapshot, 'installed');
    this.#env.trace(`${this.id} installed snapshot ${index}/${snapshot.meta.term} (${snapshot.data.byteLength} bytes)`);
    // Entries this member proposed up to the snapshot will not be applied one by one here.
    for (const [proposedIndex, proposal] of running.proposals) {
      if (proposedIndex > index) continue;
      running.proposals.delete(proposedIndex);
      this.#answer(proposal.request, { kind: 'retry', reason: 'snapshot installed' });
    }
    this.#serveConfirmedReads(running);
  }

  /**
   * Log compaction on schedule (thesis §5.1), or at once when the core wants a snapshot to send a
   * peer: snapshot the KV, persist it; compact after the fsync.
   */
  #maybeSnapshot(running: Running): void {
    const every = this.#snapshots.everyEntries;
    const applied = running.kv.appliedIndex;
    if (every === 0 || running.syncing !== undefined) return;
    const wanted = running.core.snapshotWanted();
    if (applied < running.snapshotIndex + every && !wanted) return;
    const snapshot: Snapshot = { meta: running.core.snapshotMeta(applied), data: running.kv.snapshot() };
    running.snapshotIndex = applied;
    if (wanted) this.snapshotsOnDemand += 1;
    this.#env.onSnapshot(this, snapshot, 'taken');
    this.#env.trace(`${this.id} snapshot at ${applied}/${snapshot.meta.term} (${snapshot.data.byteLength} bytes${wanted ? ', wanted to send a peer' : ''}), persisting`);
    this.storage.writeSnapshot(snapshot);
    running.syncing = { kind: 'snapshot', snapshot };
    this.#env.scheduleFsync(this);
  }

  #compact(running: Running, snapshot: Snapshot): void {
    running.core.compact(snapshot, this.#snapshots.retainEntries);
    this.#env.trace(`${this.id} compacted to ${running.core.status().offsetIndex} (snapshot ${snapshot.meta.index}, retain ${this.#snapshots.retainEntries})`);
  }

  #apply(running: Running, entry: Entry): void {
    const outcome = running.kv.apply(entry.index, entry.data, entry.type);
    this.#env.onApplied(this, entry);
    const proposal = running.proposals.get(entry.index);
    if (proposal === undefined) return;
    running.proposals.delete(entry.index);
    if (proposal.term !== entry.term || entry.type === 'configuration') {
      this.#answer(proposal.request, { kind: 'retry', reason: 'overwritten' });
      return;
    }
    assert(outcome !== 'noop', `proposal at ${entry.index} applied as a no-op`);
    this.#answer(proposal.request, { kind: 'ok' });
  }

  #serveConfirmedReads(running: Running): void {
    const applied = running.kv.appliedIndex;
    const ready = running.readsConfirmed.filter((read) => read.index <= applied);
    running.readsConfirmed = running.readsConfirmed.filter((read) => read.index > applied);
    for (const read of ready) {
      assert(read.request.command.kind === 'get', 'only gets go through ReadIndex');
      this.#answer(read.request, { kind: 'value', value: running.kv.get(read.request.command.key) });
    }
  }

  #serve(running: Running, request: ClientRequest): void {
    const status = running.core.status();
    if (status.role !== 'leader') {
      this.#answer(request, { kind: 'redirect', leaderId: status.leaderId });
      return;
    }
    const command = request.command;
    if (command.kind === 'get') {
      const requestId = running.nextReadId;
      running.nextReadId += 1;
      if (running.core.readIndex(requestId)) running.readsAwaiting.set(requestId, request);
      else this.#answer(request, { kind: 'retry', reason: 'read refused' });
      return;
    }
    const data = encodeWrite({ clientId: request.from, sequence: command.sequence, kind: command.kind, key: command.key, value: command.value });
    const proposed = running.core.propose(data);
    if (!proposed.accepted) {
      // A leader refuses proposals while it transfers leadership (thesis §3.10).
      assert(status.leadTransferee !== undefined, 'a leader refuses proposals only while transferring');
      this.#answer(request, { kind: 'retry', reason: `transferring to ${status.leadTransferee}` });
      return;
    }
    const replaced = running.proposals.get(proposed.firstIndex);
    if (replaced !== undefined) this.#answer(replaced.request, { kind: 'retry', reason: 'overwritten' });
    running.proposals.set(proposed.firstIndex, { term: proposed.term, request });
  }

  /** On losing leadership, proposals not yet committed and unconfirmed reads are answered
   *  "retry": this member can no longer finish them (as RaftNode#observeLeadership). */
  #observeLeadership(running: Running): void {
    const status = running.core.status();
    const leaderTerm = status.role === 'leader' ? status.term : undefined;
    if (running.leaderTerm !== undefined && leaderTerm !== running.leaderTerm) {
      this.#env.trace(`${this.id} lost leadership of t${running.leaderTerm} (now t${status.term} ${status.role})`);
      for (const [index, proposal] of running.proposals) {
        if (index <= status.commitIndex) continue;
        running.proposals.delete(index);
        this.#answer(proposal.request, { kind: 'retry', reason: 'leadership lost' });
      }
      for (const request of running.readsAwaiting.values()) this.#answer(request, { kind: 'retry', reason: 'leadership lost' });
      running.readsAwaiting.clear();
    }
    if (leaderTerm !== undefined && leaderTerm !== running.leaderTerm) {
      this.#env.trace(`${this.id} became leader of t${leaderTerm}`);
      this.#env.onLeader(this, leaderTerm);
    }
    running.leaderTerm = leaderTerm;
  }

  #answer(request: ClientRequest, answer: ClientAnswer): void {
    this.#env.send({ type: 'clientReply', from: this.id, to: request.from, operationId: request.operationId, answer });
  }
}
