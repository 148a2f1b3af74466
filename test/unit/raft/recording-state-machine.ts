// A test StateMachine that records every applied entry and returns a per-entry result.
import type { CommittedEntry, StateMachine } from '../../../raft/index.ts';

export class RecordingStateMachine implements StateMachine<string> {
  readonly applied: CommittedEntry[] = [];
  #appliedIndex = 0;

  apply(entry: CommittedEntry): string {
    if (entry.index !== this.#appliedIndex + 1) throw new Error(`applied ${entry.index} after ${this.#appliedIndex}`);
    this.applied.push({ index: entry.index, term: entry.term, data: new Uint8Array(entry.data) });
    this.#appliedIndex = entry.index;
    return `applied:${new TextDecoder().decode(entry.data)}`;
  }

  appliedIndex(): number {
    return this.#appliedIndex;
  }

  /** Non-empty payloads in apply order (no-ops skipped). */
  payloads(): string[] {
    return this.applied.filter((entry) => entry.data.length > 0).map((entry) => new TextDecoder().decode(entry.data));
  }

  snapshot(): Uint8Array {
    return new Uint8Array(0);
  }

  restore(): void {
    throw new Error('snapshots are not used in these tests');
  }
}
