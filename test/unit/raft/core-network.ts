// A deterministic in-test network of RawNodes: a FIFO message pump, simulated persistence and
// link cuts. No timers or I/O: every step is driven by the test, so runs are reproducible. Like
// a driver, it takes a snapshot at once when a leader's core wants one (RawNode.snapshotWanted).
import { RawNode } from '../../../raft/core/index.ts';
import type { Entry, HardState, Message, NodeId, RaftConfig, ReadState, RestoredState, Snapshot } from '../../../raft/core/index.ts';
import { createRng } from '../../../raft/stdx/index.ts';
import { MemoryStorage } from '../../../raft/storage/index.ts';

export interface SimulatedMember {
  readonly id: NodeId;
  node: RawNode;
  /** Durable storage as a restart sees it (snapshot, log after it, hard state). */
  readonly durable: MemoryStorage;
  /** The bootstrap voters and options it was started with, for restart(). */
  readonly bootstrap: { readonly voters: readonly NodeId[]; readonly options: MemberOptions };
  /** What "storage" holds: the persisted log, overwritten suffixes included. */
  readonly stored: Entry[];
  storedHardState: HardState | undefined;
  readonly applied: Entry[];
  readonly readStates: ReadState[];
  /** The state machine: texts of applied entries (no-ops included), snapshot-restorable. */
  state: string[];
  /** The last snapshot persisted (taken locally or installed from the leader). */
  snapshot: Snapshot | undefined;
}

type MemberOptions = Partial<Pick<RaftConfig, 'preVote' | 'snapshotChunkBytes' | 'learners' | 'electionTicks'>>;

export type Intercept = (message: Message) => Message | undefined;

/** Delivery steps a pump may take before the test fails as livelocked. */
const pumpStepsMax = 100_000;

export class CoreNetwork {
  readonly members = new Map<NodeId, SimulatedMember>();
  readonly #queue: Message[] = [];
  readonly #cut = new Set<string>();
  intercept: Intercept | undefined = undefined;
  /** Snapshots taken because a leader's core wanted one to send a peer. */
  snapshotsOnDemand = 0;
  /** False: leave a wanted snapshot untaken (to look at the core meanwhile). */
  takeWantedSnapshots = true;

  constructor(
    ids: readonly NodeId[], restored: Partial<Record<NodeId, RestoredState>> = {}, electionTicks = 10,
    options: MemberOptions = {},
  ) {
    ids.forEach((id, position) => {
      const state = restored[id] ?? { hardState: { term: 0, vote: undefined, commit: 0 }, entries: [] };
      const node = new RawNode({
        id, voters: ids, electionTicks, heartbeatTicks: 1, rng: createRng(position + 1), restored: state, appliedIndex: 0,
        ...options,
      });
      this.members.set(id, {
        id, node, stored: [...state.entries], storedHardState: state.hardState, applied: [], readStates: [], state: [], snapshot: undefined,
        durable: new MemoryStorage(state), bootstrap: { voters: ids, options: { electionTicks, ...options } },
      });
    });
  }

  /** Starts a new member with an empty log that knows only the group's bootstrap voters. */
  addMember(id: NodeId, bootstrapVoters: readonly NodeId[], electionTicks = 10): SimulatedMember {
    const node = new RawNode({
      id, voters: bootstrapVoters, electionTicks, heartbeatTicks: 1, rng: createRng(this.members.size + 1),
      restored: { hardState: { term: 0, vote: undefined, commit: 0 }, entries: [] }, appliedIndex: 0,
    });
    const member: SimulatedMember = {
      id, node, stored: [], storedHardState: undefined, applied: [], readStates: [], state: [], snapshot: undefined,
      durable: new MemoryStorage(), bootstrap: { voters: bootstrapVoters, options: { electionTicks } },
    };
    this.members.set(id, member);
    return member;
  }

  /**
   * Crashes and restarts `id` from its durable storage: the state machine restarts from the
   * snapshot (if any) and replays the log; volatile state (role, leader, progress) is lost.
   */
  restart(id: NodeId, seed: number): void {
    const member = this.member(id);
    const restored = member.durable.durableState();
    member.state = restored.snapshot === undefined ? [] : JSON.parse(text(restored.snapshot.data)) as string[];
    member.snapshot = restored.snapshot;
    member.node = new RawNode({
      id, voters: member.bootstrap.voters, electionTicks: 10, heartbeatTicks: 1, ...member.bootstrap.options,
      rng: createRng(seed), restored, appliedIndex: restored.snapshot?.meta.index ?? 0,
    });
  }

  member(id: NodeId): SimulatedMember {
    const member = this.members.get(id);
    if (member === undefined) throw new Error(`no member ${id}`);
    return member;
  }

  node(id: NodeId): RawNode {
    return this.member(id).node;
  }

  /** Cuts both directions between `id` and every other member. */
  isolate(id: NodeId): void {
    for (const other of this.members.keys()) {
      if (other === id) continue;
      this.#cut.add(`${id}>${other}`);
      this.#cut.add(`${other}>${id}`);
    }
  }

  heal(): void {
    this.#cut.clear();
  }

  /** Drains every member's Ready (persist → send → apply → advance). */
  flush(): void {
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (const member of this.members.values()) {
        while (member.node.hasReady()) {
          this.#handleReady(member);
          progressed = true;
        }
        if (this.takeWantedSnapshots && member.node.snapshotWanted()) {
          // Kept to send, without compacting further: peers in step may still need entries.
          this.snapshotsOnDemand += 1;
          this.compact(member.id, member.node.status().appliedIndex);
          progressed = true;
        }
      }
    }
  }

  /** Delivers messages until the network is quiet. */
  pump(): void {
    this.flush();
    for (let steps = 0; this.#queue.length > 0; steps += 1) {
      if (steps >= pumpStepsMax) throw new Error('message pump did not quiesce');
      const message = this.#queue.shift()!;
      this.node(message.to).step(message);
      this.flush();
    }
  }

  tick(id: NodeId, count = 1): void {
    for (let index = 0; index < count; index += 1) {
      this.node(id).tick();
      this.flush();
    }
  }

  /**
   * Ticks `leader` (delivering messages in between) until every member it can reach knows its
   * commit index, within a bound. A commit rides on the next append, else on the periodic
   * heartbeat, which skips a follower that got an append since the previous tick: an idle
   * follower learns the last commit within two heartbeat intervals. `members`: the ones to wait
   * for; default every member the leader can reach.
   */
  tickUntilCommitKnown(leader: NodeId, members?: readonly NodeId[], ticksMax = 4): void {
    this.pump();
    const waitedFor = members ?? [...this.members.keys()].filter((id) => !this.#cut.has(`${leader}>${id}`));
    for (let ticks = 0; ; ticks += 1) {
      const commit = this.node(leader).status().commitIndex;
      const behind = waitedFor.filter((id) => this.node(id).status().commitIndex < commit);
      if (behind.length === 0) return;
      if (ticks >= ticksMax) throw new Error(`${behind.join(',')} did not learn ${leader}'s commit ${commit} within ${ticksMax} ticks`);
      this.tick(leader);
      this.pump();
    }
  }

  /** Ticks `id` (delivering messages in between) until it leads, within a bound. */
  electByTicks(id: NodeId, ticksMax = 100): void {
    for (let ticks = 0; ticks < ticksMax; ticks += 1) {
      if (this.node(id).status().role === 'leader') return;
      this.tick(id);
      this.pump();
    }
    throw new Error(`${id} did not become leader within ${ticksMax} ticks`);
  }

  /** Ticks every member of `ids` in turn (delivering messages) until one of them leads. */
  electAmong(ids: readonly NodeId[], ticksMax = 100): NodeId {
    for (let ticks = 0; ticks < ticksMax; ticks += 1) {
      const leader = ids.find((id) => this.node(id).status().role === 'leader');
      if (leader !== undefined) return leader;
      for (const id of ids) this.tick(id);
      this.pump();
    }
    throw new Error(`none of ${ids.join(',')} became leader within ${ticksMax} ticks`);
  }

  /** Takes a snapshot of `id`'s state machine at its applied index and compacts its log. */
  compact(id: NodeId, retainEntries = 0): Snapshot {
    const member = this.member(id);
    const meta = member.node.snapshotMeta(member.node.status().appliedIndex);
    const snapshot = { meta, data: new TextEncoder().encode(JSON.stringify(member.state)) };
    member.snapshot = snapshot;
    void member.durable.saveSnapshot(snapshot, member.durable.durableState().hardState);
    member.node.compact(snapshot, retainEntries);
    return snapshot;
  }

  leaders(): NodeId[] {
    return [...this.members.values()].filter((member) => member.node.status().role === 'leader').map((member) => member.id);
  }

  #handleReady(member: SimulatedMember): void {
    const ready = member.node.ready();
    // MemoryStorage does its work before its promise settles: durable once called.
    if (ready.snapshot !== undefined) void member.durable.saveSnapshot(ready.snapshot, ready.hardState ?? member.durable.durableState().hardState);
    void member.durable.append(ready.entries, ready.hardState);
    if (ready.hardState !== undefined) member.storedHardState = ready.hardState;
    const first = ready.entries[0];
    if (first !== undefined) member.stored.length = first.index - 1;
    member.stored.push(...ready.entries);
    for (const message of ready.messages) {
      if (this.#cut.has(`${message.from}>${message.to}`)) continue;
      const delivered = this.intercept === undefined ? message : this.intercept(message);
      if (delivered !== undefined) this.#queue.push(delivered);
    }
    if (ready.snapshot !== undefined) {
      member.snapshot = ready.snapshot;
      member.state = JSON.parse(text(ready.snapshot.data)) as string[];
    }
    member.applied.push(...ready.committedEntries);
    member.state.push(...ready.committedEntries.map((applied) => text(applied.data)));
    member.readStates.push(...ready.readStates);
    member.node.advance();
  }
}

export function entry(index: number, term: number, text = ''): Entry {
  return { index, term, data: new TextEncoder().encode(text) };
}

export function text(data: Uint8Array): string {
  return new TextDecoder().decode(data);
}
