// Owns: the client-session table that makes a retried proposal apply at most once (Raft
// thesis §6.3): per session id, the last applied sequence and its result.
// Must not: read a clock or expire by time (eviction must be the same on every replica, so
// it is by count, least recently used, in log order).
//
// Limit: sessionsMax (10,000). Each entry holds one result (often one object, ~1 KB), so the
// table stays near 10 MB. A retry comes within a proposal timeout (seconds) of the original;
// 10,000 sessions keep every session of a busy API tier, even with one session per request,
// for longer than that. Overflow: the least recently used session is forgotten; a retry on
// it would apply again (its sequence looks new), which is the thesis' documented trade-off.
//
// Only the latest result per session is kept, so a session must have at most one proposal in
// flight (the thesis' model). A sequence below the latest is an old duplicate whose result
// is gone: it is rejected as invalid rather than applied again.
import { assert } from '../raft/stdx/index.ts';
import type { CommandResult } from './results.ts';

export const sessionsMaxDefault = 10_000;

export interface SessionEntry {
  readonly id: string;
  readonly sequence: number;
  readonly result: CommandResult;
}

export type SessionCheck =
  | { readonly type: 'new' }
  | { readonly type: 'duplicate'; readonly result: CommandResult };

export class SessionTable {
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, SessionEntry>();

  constructor(private readonly sessionsMax: number = sessionsMaxDefault) {
    assert(Number.isSafeInteger(sessionsMax) && sessionsMax > 0, 'sessionsMax must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether (id, sequence) was applied already; a hit counts as a use. */
  check(id: string, sequence: number): SessionCheck {
    const entry = this.entries.get(id);
    if (entry === undefined || sequence > entry.sequence) return { type: 'new' };
    this.touch(entry);
    if (sequence === entry.sequence) return { type: 'duplicate', result: entry.result };
    const message = `session ${id}: sequence ${sequence} was applied before (latest ${entry.sequence}) and its result is no longer retained`;
    return { type: 'duplicate', result: { type: 'invalid', message } };
  }

  /** Records the result of a newly applied (id, sequence), evicting the least recently used. */
  record(id: string, sequence: number, result: CommandResult): void {
    const previous = this.entries.get(id);
    assert(previous === undefined || sequence > previous.sequence, 'a recorded sequence must be new');
    this.touch({ id, sequence, result });
    while (this.entries.size > this.sessionsMax) {
      const oldest = this.entries.keys().next();
      assert(oldest.done !== true, 'an over-full table has an oldest entry');
      this.entries.delete(oldest.value);
    }
    assert(this.entries.size <= this.sessionsMax, 'session table stays bounded');
  }

  /** Entries least recently used first (for snapshots). */
  toJson(): SessionEntry[] {
    return [...this.entries.values()];
  }

  static fromJson(entries: readonly SessionEntry[], sessionsMax: number = sessionsMaxDefault): SessionTable {
    const table = new SessionTable(sessionsMax);
    for (const entry of entries) table.touch(entry);
    assert(table.size === entries.length, 'restored session ids must be unique');
    return table;
  }

  private touch(entry: SessionEntry): void {
    this.entries.delete(entry.id);
    this.entries.set(entry.id, entry);
  }
}
