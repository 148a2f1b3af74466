// Owns: one simulated member: a RawNode driven like raft/node's RaftNode (inputs buffered while a
// Ready is being persisted; persist → fsync → send → apply → serve reads → advance), its faulty
// storage, its KV state machine, and the server side of the client protocol (propose writes,
// ReadIndex for gets, answer once applied). Crash drops everything volatile; start() rebuilds
// the core from durable storage only. Must not decide faults or time: the cluster does.
import { RawNode } from '../../raft/core/index.ts';
import type { CoreStatus, Entry, Message, Ready } from '../../raft/core/index.ts';
import { assert } from '../../raft/stdx/index.ts';
import type { Rng } from '../../raft/stdx/index.ts';
import { FaultyStorage } from './faulty-storage.ts';
import { encodeWrite, KvStateMachine } from './kv.ts';
import type { ClientAnswer, ClientRequest, Packet } from './packets.ts';

/**
 * Inputs buffered while a Ready awaits its fsync. The driver's limit (raft/node inboxMessagesMax)
 * is the model; overflow drops the input, which Raft and the clients' retries tolerate.
 */
export const memberInboxMax = 10_000;

export type MemberInput =
  | { readonly kind: 'tick' }
  | { readonly kind: 'message'; readonly message: Message }
  | { readonly kind: 'request'; readonly request: ClientRequest };

/** What a member needs from the cluster around it. */
export interface MemberEnvironment {
  send(packet: Packet): void;
  scheduleFsync(member: SimMember): void;
  trace(text: string): void;
  coreRng(): Rng;
  /** A Ready's writes reached storage (not yet durable): the log checks look at them. */
  onWritten(member: SimMember, ready: Ready): void;
  onApplied(member: SimMember, entry: Entry): void;
}

export interface CoreTimers {
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
}

interface PendingProposal {
  readonly term: number;
  readonly request: ClientRequest;
}

/** Volatile state of a running incarnation; gone at a crash. */
interface Running {
  readonly core: RawNode;
  readonly kv: KvStateMachine;
  inbox: MemberInput[];
  syncing: Ready | undefined;
  readonly proposals: Map<number, PendingProposal>;
  readonly readsAwaiting: Map<number, ClientRequest>;
  readsConfirmed: { readonly index: number; readonly request: ClientRequest }[];
  nextReadId: number;
  leaderTerm: number | undefined;
}

export class SimMember {
  readonly id: string;
  readonly storage = new FaultyStorage();
  incarnation = 0;
  readonly #voters: readonly string[];
  readonly #timers: CoreTimers;
  readonly #env: MemberEnvironment;
  #running: Running | undefined = undefined;

  constructor(id: string, voters: readonly string[], timers: CoreTimers, env: MemberEnvironment) {
    this.id = id;
    this.#voters = voters;
    this.#timers = timers;
    this.#env = env;
  }

  get up(): boolean {
    return this.#running !== undefined;
  }

  get syncing(): boolean {
    return this.#running?.syncing !== undefined;
  }

  /** Starts (or restarts) from durable storage only, with an empty state machine. */
  start(): void {
    assert(this.#running === undefined, `${this.id} started twice`);
    this.incarnation += 1;
    const core = new RawNode({
      id: this.id, voters: this.#voters, electionTicks: this.#timers.electionTicks, heartbeatTicks: this.#timers.heartbeatTicks,
      rng: this.#env.coreRng(), restored: this.storage.restored(), appliedIndex: 0,
    });
    this.#running = {
      core, kv: new KvStateMachine(), inbox: [], syncing: undefined, proposals: new Map(),
      readsAwaiting: new Map(), readsConfirmed: [], nextReadId: 1, leaderTerm: undefined,
    };
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
   * entries make a leader send appends again. Returns false if not leader or busy syncing.
   */
  nudge(): boolean {
    const running = this.#running;
    if (running === undefined || running.syncing !== undefined || running.core.status().role !== 'leader') return false;
    running.core.propose(encodeWrite({ clientId: 'nudge', sequence: 1, kind: 'put', key: '__nudge', value: '' }));
    this.#drive();
    return true;
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

  /** The fsync of the outstanding Ready completed: its writes are durable. */
  fsyncDone(): void {
    const running = this.#running;
    assert(running !== undefined && running.syncing !== undefined, `${this.id} fsync without a Ready`);
    this.storage.sync();
    const ready = running.syncing;
    running.syncing = undefined;
    this.#finish(running, ready);
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
    }
    this.#observeLeadership(running);
  }

  /** Takes Readies until one needs an fsync (then waits for fsyncDone) or none is left. */
  #drive(): void {
    const running = this.#running;
    assert(running !== undefined, `${this.id} driven while down`);
    while (running.syncing === undefined && running.core.hasReady()) {
      const ready = running.core.ready();
      // Members never compact yet, so no leader sends InstallSnapshot; persisting and restoring a
      // received snapshot is the next step of this driver (see the module header).
      assert(ready.snapshot === undefined, `${this.id} got a snapshot the simulator cannot persist yet`);
      this.storage.write(ready);
      this.#env.onWritten(this, ready);
      if (ready.mustSync) {
        running.syncing = ready;
        this.#env.scheduleFsync(this);
        return;
      }
      this.#finish(running, ready);
    }
  }

  /** Ready contract steps 2-5, after the writes are durable (or need no sync). */
  #finish(running: Running, ready: Ready): void {
    for (const message of ready.messages) this.#env.send(message);
    for (const entry of ready.committedEntries) this.#apply(running, entry);
    for (const state of ready.readStates) {
      const request = running.readsAwaiting.get(state.requestId);
      if (request === undefined) continue;
      running.readsAwaiting.delete(state.requestId);
      running.readsConfirmed.push({ index: state.index, request });
    }
    this.#serveConfirmedReads(running);
    running.core.advance();
    this.#observeLeadership(running);
  }

  #apply(running: Running, entry: Entry): void {
    const outcome = running.kv.apply(entry.index, entry.data);
    this.#env.onApplied(this, entry);
    const proposal = running.proposals.get(entry.index);
    if (proposal === undefined) return;
    running.proposals.delete(entry.index);
    if (proposal.term !== entry.term) {
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
    assert(proposed.accepted, 'a leader accepts proposals');
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
    if (leaderTerm !== undefined && leaderTerm !== running.leaderTerm) this.#env.trace(`${this.id} became leader of t${leaderTerm}`);
    running.leaderTerm = leaderTerm;
  }

  #answer(request: ClientRequest, answer: ClientAnswer): void {
    this.#env.send({ type: 'clientReply', from: this.id, to: request.from, operationId: request.operationId, answer });
  }
}
