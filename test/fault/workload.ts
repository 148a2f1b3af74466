// Owns: the concurrent key-value workload of the fault tests and the history it records.
//
// Each client is its own StoreClient on its own NATS connection (so its own client sessions)
// and a sequential process: one operation in flight at a time, as a linearizability history
// requires of a client. Operations (configmap-register.ts says how they map onto the store):
// register writes and reads, and now and then a write-once ledger create for the durability
// check. Every register operation is recorded with process.hrtime (monotonic, in ms) taken just
// before the call and just after the answer. A call that meets its deadline (StoreDeadlineError)
// is recorded as pending (return undefined): it may or may not have taken effect, and the
// client goes on with a new session. Any other error fails the run: the store must answer
// every operation of this workload, eventually.
//
// A run has no fixed length: the clients run while the test's scenario runs, and the scenario
// moves from phase to phase on conditions (so many operations acknowledged before the fault,
// under it, after the healed member caught up), each with a deadline that fails the run naming
// what was not reached. A busy machine makes a run slower, never emptier.
import type { NatsConnection } from '@nats-io/transport-node';
import type { CommandResult } from '../../actors/index.ts';
import { isStoreDeadline, StoreClient } from '../../deploy/store-client.ts';
import type { KvOperation } from '../sim/checkers/linearizability.ts';
import { waitFor } from '../support/wait-for.ts';
import { createLedgerCommand, readCommand, readResult, writeCommand, writeRevision } from './configmap-register.ts';
import type { StoreCluster } from './store-cluster.ts';

/** Monotonic wall-clock time in milliseconds (process.hrtime), for history timestamps. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface WorkloadOptions {
  readonly clients: number;
  readonly keys: readonly string[];
  /** Fraction of operations that are reads; the rest are writes, except ledger creates. */
  readonly readFraction: number;
  /** Fraction of operations that are ledger creates. */
  readonly ledgerFraction: number;
  readonly attemptTimeoutMs: number;
  readonly deadlineMs: number;
}

/** A completed (acknowledged) register write, with the revision it was stored at. */
export interface AcknowledgedWrite {
  readonly key: string;
  readonly value: string;
  readonly revision: number;
}

/** A completed read, with the resourceVersion of the object it saw. */
export interface ObservedRead {
  readonly key: string;
  readonly value: string;
  readonly resourceVersion: string;
}

export interface LedgerEntry {
  readonly name: string;
  readonly value: string;
  readonly revision: number;
}

export interface WorkloadResult {
  readonly history: KvOperation[];
  readonly writes: AcknowledgedWrite[];
  readonly reads: ObservedRead[];
  readonly ledger: LedgerEntry[];
  readonly pendingLedger: number;
  /** Attempts beyond the first, summed over clients (how hard the faults pushed). */
  readonly retries: number;
}

/** Records operations from every client (shared so final reads can be appended after a restart). */
export class HistoryRecorder {
  readonly history: KvOperation[] = [];
  readonly writes: AcknowledgedWrite[] = [];
  readonly reads: ObservedRead[] = [];
  #nextId = 0;

  /** Acknowledged register operations invoked at or after `since` (history time, see now()). */
  acknowledgedSince(since: number): number {
    let count = 0;
    for (const operation of this.history) if (operation.return !== undefined && operation.call >= since) count += 1;
    return count;
  }

  /**
   * Waits until `count` register operations invoked at or after `since` were acknowledged (a
   * condition on the history, never a time slot); fails after `timeoutMs` naming `what`, how
   * many there were, and `diagnostics`. Resolves with the time the condition was seen.
   */
  async acknowledged(since: number, count: number, what: string, options: { readonly timeoutMs: number; readonly diagnostics?: () => string }): Promise<number> {
    await waitFor(() => this.acknowledgedSince(since) >= count, {
      timeoutMs: options.timeoutMs, intervalMs: 20, description: `${count} operations acknowledged ${what}`,
      diagnostics: () => `${this.acknowledgedSince(since)} acknowledged${options.diagnostics === undefined ? '' : `\n${options.diagnostics()}`}`,
    });
    return now();
  }

  /** One register write by `clientId`; pending if its deadline passed. */
  async write(client: StoreClient, clientId: string, key: string, value: string): Promise<void> {
    const id = this.#nextId++;
    const call = now();
    let result: CommandResult;
    try {
      result = await client.propose(writeCommand(key, value));
    } catch (error) {
      if (!isStoreDeadline(error)) throw error;
      this.history.push({ id, clientId, input: { kind: 'put', key, value }, output: undefined, call, return: undefined });
      return;
    }
    const returned = now();
    this.writes.push({ key, value, revision: writeRevision(key, result) });
    this.history.push({ id, clientId, input: { kind: 'put', key, value }, output: undefined, call, return: returned });
  }

  /** One register read by `clientId`; a read that met its deadline is pending (it observed nothing). */
  async read(client: StoreClient, clientId: string, key: string): Promise<void> {
    const id = this.#nextId++;
    const call = now();
    let result: CommandResult;
    try {
      result = await client.propose(readCommand(key));
    } catch (error) {
      if (!isStoreDeadline(error)) throw error;
      this.history.push({ id, clientId, input: { kind: 'get', key }, output: undefined, call, return: undefined });
      return;
    }
    const returned = now();
    const state = readResult(key, result);
    this.reads.push({ key, ...state });
    this.history.push({ id, clientId, input: { kind: 'get', key }, output: state.value, call, return: returned });
  }
}

/**
 * Runs the clients for exactly as long as `scenario` runs: it injects and heals the faults and
 * waits (conditions with deadlines, e.g. HistoryRecorder.acknowledged) for whatever the run must
 * contain; when it resolves, the clients stop starting operations, and the result is returned
 * once every client finished its last one. If `scenario` fails, or a client fails (an answer
 * other than a deadline), the run fails with that error. Connections are closed in every case.
 */
export async function runWorkload(cluster: StoreCluster, recorder: HistoryRecorder, options: WorkloadOptions, scenario: () => Promise<void>): Promise<WorkloadResult> {
  const connections: NatsConnection[] = [];
  const clients: StoreClient[] = [];
  const ledger: LedgerEntry[] = [];
  let pendingLedger = 0;
  let stopped = false;
  let running: Promise<void>[] = [];
  try {
    for (let position = 0; position < options.clients; position++) {
      const connection = await cluster.connect(`fault-client-${position}`);
      connections.push(connection);
      clients.push(new StoreClient({
        connection, cluster: cluster.options.cluster, group: 'main', attemptTimeoutMs: options.attemptTimeoutMs, deadlineMs: options.deadlineMs,
      }));
    }
    const runClient = async (client: StoreClient, position: number): Promise<void> => {
      const clientId = `c${position}`;
      for (let sequence = 0; !stopped; sequence++) {
        const choice = Math.random();
        const key = options.keys[Math.floor(Math.random() * options.keys.length)] ?? 'r0';
        if (choice < options.ledgerFraction) {
          const name = `ledger-${clientId}-${sequence}`;
          const value = `${clientId}-${sequence}`;
          try {
            const result = await client.propose(createLedgerCommand(name, value));
            if (result.type !== 'stored') throw new Error(`ledger create ${name}: ${JSON.stringify(result)}`);
            ledger.push({ name, value, revision: result.revision });
          } catch (error) {
            if (!isStoreDeadline(error)) throw error;
            pendingLedger += 1;
          }
        } else if (choice < options.ledgerFraction + options.readFraction) {
          await recorder.read(client, clientId, key);
        } else {
          // Values are unique across the whole run: a read names the one write it saw.
          await recorder.write(client, clientId, key, `${clientId}-${sequence}`);
        }
      }
    };
    running = clients.map((client, position) => runClient(client, position));
    // A failing client ends the run at once (its error is the verdict); otherwise the scenario decides.
    const firstClientFailure = new Promise<never>((_, reject) => {
      for (const client of running) client.catch(reject);
    });
    const scenarioDone = scenario();
    try {
      await Promise.race([scenarioDone, firstClientFailure]);
    } finally {
      stopped = true;
      // The scenario may still be waiting when a client failed; its outcome no longer matters.
      scenarioDone.catch(() => undefined);
      firstClientFailure.catch(() => undefined);
    }
    await Promise.all(running);
    return {
      history: recorder.history, writes: recorder.writes, reads: recorder.reads, ledger, pendingLedger,
      retries: clients.reduce((sum, client) => sum + client.retries, 0),
    };
  } finally {
    stopped = true;
    // Every client finishes (or fails) its operation in flight before the connections close.
    await Promise.allSettled(running);
    for (const client of clients) client.close();
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  }
}
