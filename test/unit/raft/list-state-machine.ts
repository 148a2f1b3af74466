// A test StateMachine whose state is the list of applied payloads, with real snapshot/restore
// (JSON), so snapshot-based recovery and InstallSnapshot can be compared by state.
import type { CommittedEntry, StateMachine } from '../../../raft/index.ts';

export class ListStateMachine implements StateMachine<string> {
  #payloads: string[] = [];
  #appliedIndex = 0;
  restores: number[] = [];

  apply(entry: CommittedEntry): string {
    if (entry.index !== this.#appliedIndex + 1) throw new Error(`applied ${entry.index} after ${this.#appliedIndex}`);
    this.#appliedIndex = entry.index;
    const text = new TextDecoder().decode(entry.data);
    if (text.length > 0) this.#payloads.push(text);
    return `applied:${text}`;
  }

  appliedIndex(): number {
    return this.#appliedIndex;
  }

  payloads(): string[] {
    return [...this.#payloads];
  }

  snapshot(): Uint8Array {
    return new TextEncoder().encode(JSON.stringify({ appliedIndex: this.#appliedIndex, payloads: this.#payloads }));
  }

  restore(snapshot: Uint8Array, index: number): void {
    const parsed = JSON.parse(new TextDecoder().decode(snapshot)) as { appliedIndex: number; payloads: string[] };
    if (parsed.appliedIndex !== index) throw new Error(`snapshot at ${parsed.appliedIndex}, asked to restore ${index}`);
    this.#appliedIndex = index;
    this.#payloads = parsed.payloads;
    this.restores.push(index);
  }
}
