// Owns: the Raft safety properties (Raft paper Figure 3), checked incrementally after every
// simulator step from what members write, apply and report:
//   election safety      at most one leader per term, ever;
//   log matching         same index and term ⇒ same entry and same prefix (an entry's identity
//                        is its index, term, data and the term before it; by induction that fixes
//                        the whole prefix), over every member's written (durable + unsynced) log;
//   leader completeness  every committed entry is in the log of every leader of a later term;
//   state machine safety members apply the same entry at each index, in order from index 1 (or
//                        from the snapshot they restored or installed); every snapshot a member
//                        takes, installs or restarts from carries the term of the entry applied
//                        at its index and exactly the KV state (values and sessions) that a
//                        reference state machine reaches by applying the applied sequence to it;
//   commit quorum        when a leader's commit index advances, a majority of the voters of the
//                        configuration in force at that leader durably hold the entry (in their
//                        durable log, or under their durable snapshot): a leader that counted an
//                        acknowledgement before its fsync, or the wrong voters, is caught.
// Entries compacted into a member's snapshot are not in its log; the checks skip them there, as
// the snapshot that covers them was verified. "Committed" is what members claim (their commit
// index): the checker tests the claim. Throws
// SafetyViolation, whose kinds also name the simulator's other findings (liveness, convergence,
// linearizability, failed assertions); must not change anything it looks at.
import type { Configuration, CoreStatus, Entry, EntryType, HardState, Snapshot } from '../../../raft/core/index.ts';
import { KvStateMachine } from '../kv.ts';

export type ViolationKind =
  | 'election-safety' | 'log-matching' | 'leader-completeness' | 'state-machine-safety'
  | 'commit-quorum' | 'membership' | 'liveness' | 'convergence' | 'linearizability' | 'assertion' | 'simulator';

export class SafetyViolation extends Error {
  readonly kind: ViolationKind;
  constructor(kind: ViolationKind, message: string) {
    super(`${kind}: ${message}`);
    this.name = 'SafetyViolation';
    this.kind = kind;
  }
}

/** What the checker may look at of one member. */
export interface MemberView {
  readonly id: string;
  /** Undefined while the member is down. */
  status(): CoreStatus | undefined;
  /** The core's in-memory log (above status().offsetIndex). */
  entryAt(index: number): Entry;
  /** The configuration in force at the member (latest in its log); undefined while down. */
  configuration(): Configuration | undefined;
  /** Whether its durable storage holds entry `index` of `term` (in the log or under a snapshot). */
  durablyHolds(index: number, term: number): boolean;
}

/** How a snapshot reached a member. */
export type SnapshotSource = 'taken' | 'installed' | 'restored';

interface EntryIdentity {
  readonly data: Uint8Array;
  readonly previousTerm: number;
  readonly member: string;
}

interface LogPoint {
  readonly term: number;
  readonly data: Uint8Array;
  readonly type: EntryType;
}

export class SafetyChecker {
  readonly #leaderOfTerm = new Map<number, string>();
  /** Registry of every entry ever written anywhere: "index/term" → identity. */
  readonly #entries = new Map<string, EntryIdentity>();
  /** The committed log as members claimed it, index i at position i - 1. */
  readonly #committed: LogPoint[] = [];
  readonly #applied: LogPoint[] = [];
  readonly #appliedIndex = new Map<string, number>();
  readonly #commitChecked = new Map<string, number>();
  /** Term in which each member was last seen leading and checked for completeness. */
  readonly #leaderChecked = new Map<string, number>();
  /** Each leader's commit index when last seen, to check each advance for a durable quorum. */
  readonly #leaderCommit = new Map<string, { readonly term: number; readonly commit: number; readonly voters: readonly string[] }>();
  /** Durable votes ever cast: term → voter → candidate. */
  readonly #votes = new Map<number, Map<string, string>>();
  /** Each leader's configuration when last seen in its term, and the index of the entry that set it. */
  readonly #leaderConfiguration = new Map<string, { readonly term: number; readonly configuration: Configuration; readonly index: number }>();
  /** Reference state machine over the applied sequence, and canonical snapshots by index. */
  #reference = new KvStateMachine();
  readonly #referenceAt = new Map<number, Uint8Array>();
  #snapshotsChecked = 0;

  get snapshotsChecked(): number {
    return this.#snapshotsChecked;
  }

  get committedIndex(): number {
    return this.#committed.length;
  }

  leaderTerms(): number {
    return this.#leaderOfTerm.size;
  }

  /** `member` wrote `entries` (ascending, contiguous); `termAt` reads its log after the write. */
  onWritten(member: string, entries: readonly Entry[], termAt: (index: number) => number | undefined): void {
    for (const entry of entries) {
      const previousTerm = entry.index === 1 ? 0 : termAt(entry.index - 1);
      if (previousTerm === undefined) throw new SafetyViolation('log-matching', `${member} wrote ${entry.index} after a gap`);
      const key = `${entry.index}/${entry.term}`;
      const known = this.#entries.get(key);
      if (known === undefined) {
        this.#entries.set(key, { data: entry.data, previousTerm, member });
        continue;
      }
      if (!sameBytes(known.data, entry.data)) {
        throw new SafetyViolation('log-matching', `entry ${key} differs: ${member} has ${show(entry.data)}, ${known.member} had ${show(known.data)}`);
      }
      if (known.previousTerm !== previousTerm) {
        throw new SafetyViolation('log-matching', `entry ${key} follows term ${previousTerm} at ${member} but ${known.previousTerm} at ${known.member}`);
      }
    }
  }

  onApplied(member: string, entry: Entry): void {
    const expected = (this.#appliedIndex.get(member) ?? 0) + 1;
    if (entry.index !== expected) throw new SafetyViolation('state-machine-safety', `${member} applied ${entry.index}, expected ${expected}`);
    this.#appliedIndex.set(member, entry.index);
    const known = this.#applied[entry.index - 1];
    if (known === undefined) {
      this.#applied.push({ term: entry.term, data: entry.data, type: entry.type ?? 'normal' });
      return;
    }
    if (known.term !== entry.term || !sameBytes(known.data, entry.data)) {
      throw new SafetyViolation('state-machine-safety',
        `${member} applied ${entry.index}/${entry.term} ${show(entry.data)}, another member applied ${entry.index}/${known.term} ${show(known.data)}`);
    }
  }

  /** A member restarted from durable state: it applies from its snapshot (or 1) again and re-claims commits. */
  onRestart(member: string, snapshot: Snapshot | undefined): void {
    this.#appliedIndex.set(member, 0);
    this.#commitChecked.set(member, 0);
    this.#leaderChecked.delete(member);
    this.#leaderCommit.delete(member);
    this.#leaderConfiguration.delete(member);
    if (snapshot !== undefined) this.onSnapshot(member, snapshot, 'restored');
  }

  /**
   * `member` took a snapshot of its state machine, installed one from the leader, or restarted
   * from one. It must be of an applied entry (same term) and hold exactly the reference state
   * there; a member that installs or restores it continues applying after its index.
   */
  onSnapshot(member: string, snapshot: Snapshot, source: SnapshotSource): void {
    const { index, term } = snapshot.meta;
    const known = this.#applied[index - 1];
    if (index === 0 || known === undefined) {
      throw new SafetyViolation('state-machine-safety', `${member} ${source} a snapshot at ${index}/${term}, which no member applied`);
    }
    if (known.term !== term) {
      throw new SafetyViolation('state-machine-safety', `${member} ${source} a snapshot at ${index}/${term}, but ${index}/${known.term} was applied`);
    }
    const expected = this.#referenceSnapshot(index);
    if (!sameBytes(expected, snapshot.data)) {
      throw new SafetyViolation('state-machine-safety',
        `${member} ${source} a snapshot at ${index} holding ${show(snapshot.data)}, but the applied entries give ${show(expected)}`);
    }
    this.#snapshotsChecked += 1;
    if (source === 'taken') {
      if (this.#appliedIndex.get(member) !== index) throw new SafetyViolation('state-machine-safety', `${member} took a snapshot at ${index} but applied ${this.#appliedIndex.get(member) ?? 0}`);
      return;
    }
    const applied = this.#appliedIndex.get(member) ?? 0;
    if (index < applied) throw new SafetyViolation('state-machine-safety', `${member} ${source} a snapshot at ${index} after applying ${applied}`);
    this.#appliedIndex.set(member, index);
    this.#commitChecked.set(member, Math.max(this.#commitChecked.get(member) ?? 0, index));
  }

  afterStep(members: readonly MemberView[]): void {
    const statuses = members.map((member) => ({ member, status: member.status() }));
    for (const { member, status } of statuses) {
      if (status === undefined) continue;
      if (status.role === 'leader') {
        this.#checkLeader(member, status);
        this.#checkCommitQuorum(member, status, members);
      } else {
        this.#leaderCommit.delete(member.id);
      }
      this.#checkCommitClaim(member, status, statuses);
    }
  }

  /** Full log matching over every pair of running members (end of run; incremental checks cover steps). */
  checkLogsMatch(members: readonly MemberView[]): void {
    const running = members.filter((member) => member.status() !== undefined);
    for (const left of running) {
      for (const right of running) {
        if (left.id < right.id) compareLogs(left, right);
      }
    }
  }

  /** A leader's commit index advanced in its term: a majority of its voters durably hold the entry. */
  #checkCommitQuorum(member: MemberView, status: CoreStatus, members: readonly MemberView[]): void {
    const seen = this.#leaderCommit.get(member.id);
    const voters = member.configuration()?.voters ?? [];
    this.#leaderCommit.set(member.id, { term: status.term, commit: status.commitIndex, voters });
    if (seen === undefined || seen.term !== status.term || status.commitIndex <= seen.commit) return;
    const index = status.commitIndex;
    // A member forgets applied entries (RawNode.compactApplied): at or below its log's offset the
    // committed entry is the one it applied.
    const term = index > status.offsetIndex ? member.entryAt(index).term : this.#appliedPoint(index, member.id).term;
    const holding = (group: readonly string[]): string[] =>
      group.filter((voter) => members.find((view) => view.id === voter)?.durablyHolds(index, term) === true);
    if (holding(voters).length * 2 > voters.length) return;
    // One step may hand a member several buffered inputs (after an fsync): the commit may have
    // advanced under the configuration it had before a change appended later in the same step.
    // A step appends at most one configuration entry (the next waits for it to commit, which
    // needs acknowledgements sent in a later step), so the previous one is the only other.
    if (holding(seen.voters).length * 2 > seen.voters.length) return;
    throw new SafetyViolation('commit-quorum',
      `leader ${member.id} of term ${status.term} committed ${index}/${term}, but only ${holding(voters).join(',') || 'none'} of voters ${voters.join(',')} hold it durably`);
  }

  /** `member`'s hard state became durable (fsync, or kept by a torn write at a crash). */
  onDurableHardState(member: string, hardState: HardState): void {
    if (hardState.vote === undefined) return;
    let votes = this.#votes.get(hardState.term);
    if (votes === undefined) {
      votes = new Map();
      this.#votes.set(hardState.term, votes);
    }
    const earlier = votes.get(member);
    if (earlier !== undefined && earlier !== hardState.vote) {
      throw new SafetyViolation('election-safety', `${member} voted for ${earlier} and for ${hardState.vote} in term ${hardState.term}`);
    }
    votes.set(member, hardState.vote);
  }

  /**
   * A member seen leading a term for the first time: it is a voter of its configuration and a
   * majority of that configuration's voters durably voted for it in that term (voters answer only
   * after their vote is durable; the leader's own vote is its candidacy).
   */
  #checkElected(member: MemberView, status: CoreStatus): void {
    const voters = member.configuration()?.voters ?? [];
    if (!voters.includes(member.id)) {
      throw new SafetyViolation('election-safety', `${member.id} leads term ${status.term} but is not a voter of ${voters.join(',')}`);
    }
    const votes = this.#votes.get(status.term);
    const granted = voters.filter((voter) => voter === member.id || votes?.get(voter) === member.id);
    if (granted.length * 2 <= voters.length) {
      throw new SafetyViolation('election-safety',
        `${member.id} leads term ${status.term} with durable votes of only ${granted.join(',')} of voters ${voters.join(',')}`);
    }
  }

  /**
   * One-server membership changes (thesis §4.1-4.3): while a member leads a term, each change of
   * its configuration adds or removes one voter at most, and comes only after the previous
   * configuration entry (or, for the term's first change, its election no-op) committed.
   */
  #checkConfigurationChange(member: MemberView, status: CoreStatus): void {
    const configuration = member.configuration();
    if (configuration === undefined) return;
    const seen = this.#leaderConfiguration.get(member.id);
    if (seen === undefined || seen.term !== status.term) {
      // The election no-op (the first entry of the term; proposals may follow it in the step that
      // elected the member) covers any earlier change.
      let noop = status.lastIndex;
      while (noop - 1 > status.offsetIndex && member.entryAt(noop - 1).term === status.term) noop -= 1;
      this.#leaderConfiguration.set(member.id, { term: status.term, configuration, index: noop });
      return;
    }
    if (sameMembers(seen.configuration, configuration)) return;
    const added = configuration.voters.filter((id) => !seen.configuration.voters.includes(id));
    const removed = seen.configuration.voters.filter((id) => !configuration.voters.includes(id));
    if (added.length + removed.length > 1) {
      throw new SafetyViolation('membership',
        `leader ${member.id} of term ${status.term} changed voters ${seen.configuration.voters.join(',')} to ${configuration.voters.join(',')} at once`);
    }
    if (status.commitIndex < seen.index) {
      throw new SafetyViolation('membership',
        `leader ${member.id} of term ${status.term} changed its configuration before ${seen.index} (the previous change or its no-op) committed (commit ${status.commitIndex})`);
    }
    let index = status.lastIndex;
    while (index > status.offsetIndex && member.entryAt(index).type !== 'configuration') index -= 1;
    this.#leaderConfiguration.set(member.id, { term: status.term, configuration, index });
  }

  /** The reference state machine's snapshot bytes after applying the applied sequence through `index`. */
  #referenceSnapshot(index: number): Uint8Array {
    const memo = this.#referenceAt.get(index);
    if (memo !== undefined) return memo;
    let reference = this.#reference;
    if (index < reference.appliedIndex) {
      // An older point than the running reference: replay from the nearest memo below it.
      const base = Math.max(0, ...[...this.#referenceAt.keys()].filter((at) => at < index));
      reference = new KvStateMachine();
      if (base > 0) reference.restore(this.#referenceAt.get(base)!, base);
    }
    for (let at = reference.appliedIndex + 1; at <= index; at += 1) {
      const point = this.#applied[at - 1]!;
      reference.apply(at, point.data, point.type);
    }
    const bytes = reference.snapshot();
    this.#referenceAt.set(index, bytes);
    return bytes;
  }

  #checkLeader(member: MemberView, status: CoreStatus): void {
    const leader = this.#leaderOfTerm.get(status.term);
    if (leader !== undefined && leader !== member.id) {
      throw new SafetyViolation('election-safety', `${member.id} and ${leader} both led term ${status.term}`);
    }
    const firstSeen = leader === undefined;
    this.#leaderOfTerm.set(status.term, member.id);
    if (firstSeen) this.#checkElected(member, status);
    this.#checkConfigurationChange(member, status);
    if (this.#leaderChecked.get(member.id) === status.term) return;
    this.#leaderChecked.set(member.id, status.term);
    for (let index = status.offsetIndex + 1; index <= this.#committed.length; index += 1) {
      const committed = this.#committed[index - 1]!;
      if (committed.term < status.term) this.#requireEntry(member, status, index, committed);
    }
  }

  #checkCommitClaim(member: MemberView, status: CoreStatus, all: readonly { member: MemberView; status: CoreStatus | undefined }[]): void {
    const checked = this.#commitChecked.get(member.id) ?? 0;
    for (let index = Math.max(checked, status.offsetIndex) + 1; index <= status.commitIndex; index += 1) {
      const entry = member.entryAt(index);
      // Entries under a snapshot were never claimed here: they are applied ones (verified).
      while (this.#committed.length < index - 1) this.#committed.push(this.#appliedPoint(this.#committed.length + 1, member.id));
      const known = this.#committed[index - 1];
      if (known !== undefined) {
        if (known.term !== entry.term || !sameBytes(known.data, entry.data)) {
          throw new SafetyViolation('state-machine-safety',
            `${member.id} claims ${index}/${entry.term} committed, but ${index}/${known.term} was committed before`);
        }
        continue;
      }
      const point = { term: entry.term, data: entry.data, type: entry.type ?? 'normal' };
      this.#committed.push(point);
      for (const other of all) {
        if (other.status?.role === 'leader' && other.status.term > entry.term) this.#requireEntry(other.member, other.status, index, point);
      }
    }
    this.#commitChecked.set(member.id, Math.max(checked, status.commitIndex));
  }

  #appliedPoint(index: number, member: string): LogPoint {
    const point = this.#applied[index - 1];
    if (point === undefined) throw new SafetyViolation('state-machine-safety', `${member} claims commits past ${index}, which nobody applied or claimed`);
    return point;
  }

  #requireEntry(member: MemberView, status: CoreStatus, index: number, committed: LogPoint): void {
    if (index <= status.offsetIndex) return; // under its snapshot, verified when it got it
    const present = index <= status.lastIndex ? member.entryAt(index) : undefined;
    if (present === undefined || present.term !== committed.term || !sameBytes(present.data, committed.data)) {
      const found = present === undefined ? 'nothing' : `${index}/${present.term}`;
      throw new SafetyViolation('leader-completeness',
        `leader ${member.id} of term ${status.term} lacks committed entry ${index}/${committed.term} (has ${found})`);
    }
  }
}

function compareLogs(left: MemberView, right: MemberView): void {
  const last = Math.min(left.status()!.lastIndex, right.status()!.lastIndex);
  const first = Math.max(left.status()!.offsetIndex, right.status()!.offsetIndex) + 1;
  let matched = false;
  for (let index = last; index >= first; index -= 1) {
    const a = left.entryAt(index);
    const b = right.entryAt(index);
    if (a.term !== b.term) {
      if (matched) throw new SafetyViolation('log-matching', `${left.id} and ${right.id} agree above ${index} but differ at it`);
      continue;
    }
    matched = true;
    if (!sameBytes(a.data, b.data)) throw new SafetyViolation('log-matching', `${left.id} and ${right.id} differ at ${index}/${a.term}`);
  }
}

function sameMembers(left: Configuration, right: Configuration): boolean {
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((id) => b.includes(id));
  return same(left.voters, right.voters) && same(left.learners, right.learners);
}

export function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left === right) return true;
  if (left.byteLength !== right.byteLength) return false;
  for (let position = 0; position < left.byteLength; position += 1) if (left[position] !== right[position]) return false;
  return true;
}

function show(data: Uint8Array): string {
  return data.byteLength === 0 ? '(no-op)' : JSON.stringify(new TextDecoder().decode(data));
}
