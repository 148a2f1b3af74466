// Owns: the Raft safety properties (Raft paper Figure 3), checked incrementally after every
// simulator step from what members write, apply and report:
//   election safety      at most one leader per term, ever;
//   log matching         same index and term ⇒ same entry and same prefix (an entry's identity
//                        is its index, term, data and the term before it; by induction that fixes
//                        the whole prefix), over every member's written (durable + unsynced) log;
//   leader completeness  every committed entry is in the log of every leader of a later term;
//   state machine safety members apply the same entry at each index, in order from index 1.
// "Committed" is what members claim (their commit index): the checker tests the claim. Throws
// SafetyViolation, whose kinds also name the simulator's other findings (liveness, convergence,
// linearizability, failed assertions); must not change anything it looks at.
import type { CoreStatus, Entry } from '../../../raft/core/index.ts';

export type ViolationKind =
  | 'election-safety' | 'log-matching' | 'leader-completeness' | 'state-machine-safety'
  | 'liveness' | 'convergence' | 'linearizability' | 'assertion' | 'simulator';

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
  /** The core's in-memory log. */
  entryAt(index: number): Entry;
}

interface EntryIdentity {
  readonly data: Uint8Array;
  readonly previousTerm: number;
  readonly member: string;
}

interface LogPoint {
  readonly term: number;
  readonly data: Uint8Array;
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
      this.#applied.push({ term: entry.term, data: entry.data });
      return;
    }
    if (known.term !== entry.term || !sameBytes(known.data, entry.data)) {
      throw new SafetyViolation('state-machine-safety',
        `${member} applied ${entry.index}/${entry.term} ${show(entry.data)}, another member applied ${entry.index}/${known.term} ${show(known.data)}`);
    }
  }

  /** A member restarted from durable state: it applies from index 1 again and re-claims commits. */
  onRestart(member: string): void {
    this.#appliedIndex.set(member, 0);
    this.#commitChecked.set(member, 0);
    this.#leaderChecked.delete(member);
  }

  afterStep(members: readonly MemberView[]): void {
    const statuses = members.map((member) => ({ member, status: member.status() }));
    for (const { member, status } of statuses) {
      if (status === undefined) continue;
      if (status.role === 'leader') this.#checkLeader(member, status);
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

  #checkLeader(member: MemberView, status: CoreStatus): void {
    const leader = this.#leaderOfTerm.get(status.term);
    if (leader !== undefined && leader !== member.id) {
      throw new SafetyViolation('election-safety', `${member.id} and ${leader} both led term ${status.term}`);
    }
    this.#leaderOfTerm.set(status.term, member.id);
    if (this.#leaderChecked.get(member.id) === status.term) return;
    this.#leaderChecked.set(member.id, status.term);
    for (let index = 1; index <= this.#committed.length; index += 1) {
      const committed = this.#committed[index - 1]!;
      if (committed.term < status.term) this.#requireEntry(member, status, index, committed);
    }
  }

  #checkCommitClaim(member: MemberView, status: CoreStatus, all: readonly { member: MemberView; status: CoreStatus | undefined }[]): void {
    const checked = this.#commitChecked.get(member.id) ?? 0;
    for (let index = checked + 1; index <= status.commitIndex; index += 1) {
      const entry = member.entryAt(index);
      const known = this.#committed[index - 1];
      if (known !== undefined) {
        if (known.term !== entry.term || !sameBytes(known.data, entry.data)) {
          throw new SafetyViolation('state-machine-safety',
            `${member.id} claims ${index}/${entry.term} committed, but ${index}/${known.term} was committed before`);
        }
        continue;
      }
      const point = { term: entry.term, data: entry.data };
      this.#committed.push(point);
      for (const other of all) {
        if (other.status?.role === 'leader' && other.status.term > entry.term) this.#requireEntry(other.member, other.status, index, point);
      }
    }
    this.#commitChecked.set(member.id, Math.max(checked, status.commitIndex));
  }

  #requireEntry(member: MemberView, status: CoreStatus, index: number, committed: LogPoint): void {
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
  let matched = false;
  for (let index = last; index >= 1; index -= 1) {
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

export function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left === right) return true;
  if (left.byteLength !== right.byteLength) return false;
  for (let position = 0; position < left.byteLength; position += 1) if (left[position] !== right[position]) return false;
  return true;
}

function show(data: Uint8Array): string {
  return data.byteLength === 0 ? '(no-op)' : JSON.stringify(new TextDecoder().decode(data));
}
