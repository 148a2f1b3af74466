// Owns: the bounded, revision-ordered history of change events that watchers resume from
// (`eventsSince`), and the compaction boundary behind "410 Gone".
// Must not: read a clock (the window is measured in proposer time, `command.at`, so every
// replica compacts at the same entries), or drop anything but a prefix (the retained events
// must stay a contiguous suffix of the change stream, else a resume would skip changes).
//
// Limits:
//   - historyWindowMillis (5 minutes): the watch window kstore promises (and the
//     JetStream stream's max age); an event leaves once the newest command's `at` is more
//     than 5 minutes past its own.
//   - historyEventsMaxDefault (50,000): memory. Five minutes at a high write rate is
//     unbounded; each retained event pins one old object version (~1 KB typical), so this
//     caps the history near 50 MB. Overflow policy: the oldest events leave early, and a
//     watcher resuming from before them gets "too old" (410) and relists, as Kubernetes
//     clients do. 50k covers the full window up to ~166 writes/s.
// Proposer clocks may disagree across leader changes; `newestAtMillis` only moves forward,
// and eviction stops at the first event still inside the window, so a late-stamped event
// can delay (never reorder) compaction.
//
// Complexity: append O(1) amortized; eviction O(1) amortized (a head offset, with the array
// compacted once the dead prefix is half of it); eventsSince O(log n + k).
import { assert } from '../../raft/stdx/index.ts';
import type { ChangeEvent } from '../events.ts';
import { millisPerMinute } from '../time.ts';

export const historyWindowMillis = 5 * millisPerMinute;
export const historyEventsMaxDefault = 50_000;
/** Compact the backing array only past this many dead slots, so small histories never copy. */
const compactionSlack = 1024;

export interface HistoryEntry {
  readonly event: ChangeEvent;
  /** Proposer time of the command that made the change, epoch ms. */
  readonly atMillis: number;
}

export type EventsSince =
  | { readonly type: 'events'; readonly events: readonly ChangeEvent[] }
  /** `revision` is before the compaction boundary: changes after it are no longer known. */
  | { readonly type: 'tooOld'; readonly compactedRevision: number };

/** Plain JSON form for snapshots. */
export interface HistoryJson {
  readonly compactedRevision: number;
  readonly newestAtMillis: number | null;
  readonly entries: readonly HistoryEntry[];
}

export class History {
  private entries: HistoryEntry[] = [];
  private head = 0;
  /** Revision of the newest evicted event (0: nothing evicted yet). */
  private compactedRevision = 0;
  /** Newest proposer time seen, epoch ms (null before any event). */
  private newestAtMillis: number | null = null;

  constructor(private readonly eventsMax: number = historyEventsMaxDefault) {
    assert(Number.isSafeInteger(eventsMax) && eventsMax > 0, 'historyEventsMax must be a positive integer');
  }

  get length(): number {
    return this.entries.length - this.head;
  }

  /** Appends the events of one applied entry, then evicts what left the window or the cap. */
  append(events: readonly ChangeEvent[], atMillis: number): void {
    assert(Number.isFinite(atMillis), 'history time must be finite');
    for (const event of events) {
      const last = this.entries[this.entries.length - 1];
      assert(last === undefined || last.event.revision <= event.revision, 'history revisions must not go backwards');
      assert(event.revision > this.compactedRevision, 'an appended event must be newer than the compaction boundary');
      this.entries.push({ event, atMillis });
    }
    this.newestAtMillis = this.newestAtMillis === null ? atMillis : Math.max(this.newestAtMillis, atMillis);
    this.evict();
  }

  /** Events with revision > `revision`, in order, or tooOld if some of them were evicted. */
  eventsSince(revision: number): EventsSince {
    if (revision < this.compactedRevision) return { type: 'tooOld', compactedRevision: this.compactedRevision };
    const start = this.firstAfter(revision);
    const events = this.entries.slice(start).map((entry) => entry.event);
    assert(events.every((e) => e.revision > revision), 'eventsSince returns only newer events');
    return { type: 'events', events };
  }

  /** The revision before which eventsSince answers tooOld. */
  compactedThrough(): number {
    return this.compactedRevision;
  }

  toJson(): HistoryJson {
    return { compactedRevision: this.compactedRevision, newestAtMillis: this.newestAtMillis, entries: this.entries.slice(this.head) };
  }

  static fromJson(json: HistoryJson, eventsMax: number = historyEventsMaxDefault): History {
    const history = new History(eventsMax);
    history.entries = [...json.entries];
    history.compactedRevision = json.compactedRevision;
    history.newestAtMillis = json.newestAtMillis;
    assert(history.entries.every((e) => e.event.revision > json.compactedRevision), 'restored history must lie after its boundary');
    return history;
  }

  private evict(): void {
    const cutoff = this.newestAtMillis === null ? Number.NEGATIVE_INFINITY : this.newestAtMillis - historyWindowMillis;
    while (this.length > 0) {
      const oldest = this.entries[this.head] as HistoryEntry;
      if (this.length <= this.eventsMax && oldest.atMillis >= cutoff) break;
      this.compactedRevision = oldest.event.revision;
      this.head++;
    }
    if (this.head > compactionSlack && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** Position of the first retained entry with revision > `revision` (binary search). */
  private firstAfter(revision: number): number {
    let low = this.head;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.entries[mid] as HistoryEntry).event.revision <= revision) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
