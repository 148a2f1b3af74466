// Owns: the client history of a run: each operation's invocation and response, stamped with a
// history-local sequence (a strict total order of real-time events, which is what the
// linearizability checker needs) and with virtual time for people reading a trace. Operations
// never answered stay pending. Must not judge the history: checkers/linearizability.ts does.
import { assert } from '../../raft/stdx/index.ts';
import type { KvInput, KvOperation } from './checkers/linearizability.ts';

interface RecordedOperation {
  readonly id: number;
  readonly clientId: string;
  readonly input: KvInput;
  readonly callTimeMs: number;
  readonly call: number;
  output: string | undefined;
  return: number | undefined;
  returnTimeMs: number | undefined;
}

export class History {
  readonly #operations: RecordedOperation[] = [];
  #clock = 0;

  invoke(clientId: string, input: KvInput, nowMs: number): number {
    const id = this.#operations.length + 1;
    this.#clock += 1;
    this.#operations.push({ id, clientId, input, callTimeMs: nowMs, call: this.#clock, output: undefined, return: undefined, returnTimeMs: undefined });
    return id;
  }

  complete(id: number, output: string | undefined, nowMs: number): void {
    const operation = this.#operations[id - 1];
    assert(operation !== undefined && operation.id === id, `no operation ${id}`);
    assert(operation.return === undefined, `operation ${id} completed twice`);
    assert((output !== undefined) === (operation.input.kind === 'get'), `operation ${id}: output only for gets`);
    this.#clock += 1;
    operation.output = output;
    operation.return = this.#clock;
    operation.returnTimeMs = nowMs;
  }

  operations(): KvOperation[] {
    return this.#operations.map(({ id, clientId, input, output, call, return: returned }) => ({ id, clientId, input, output, call, return: returned }));
  }

  get size(): number {
    return this.#operations.length;
  }

  pendingCount(): number {
    return this.#operations.filter((operation) => operation.return === undefined).length;
  }

  /** One line per operation of `key`, for a violation report. */
  describeKey(key: string): string[] {
    return this.#operations.filter((operation) => operation.input.key === key).map((operation) => {
      const input = operation.input;
      const what = input.kind === 'get' ? `get -> ${JSON.stringify(operation.output ?? '?')}` : `${input.kind} ${JSON.stringify(input.value)}`;
      const returned = operation.returnTimeMs === undefined ? 'pending' : `${operation.returnTimeMs}ms`;
      return `op${operation.id} ${operation.clientId} ${what} [${operation.callTimeMs}ms, ${returned}]`;
    });
  }
}
