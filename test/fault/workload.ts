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
import type { NatsConnection } from '@nats-io/transport-node';
import type { CommandResult } from '../../actors/index.ts';
import { isStoreDeadline, StoreClient } from '../../deploy/store-client.ts';
import type { KvOperation } from '../sim/checkers/linearizability.ts';
import { createLedgerCommand, readCommand, readResult, writeCommand, writeRevision } from './configmap-register.ts';
import type { StoreCluster } from './store-cluster.ts';

/** Monotonic wall-clock time in milliseconds (process.hrtime), for history timestamps. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface WorkloadOptions {
  readonly clients: number;
  readonly keys: readonly string[];
  /** The workload stops starting operations this long after it started ... */
  readonly durationMs: number;
  /**
   * ... but not before this long after the faults resolved (healed), so the history always holds
   * operations after healing however long a restart took on a busy machine.
   */
  readonly afterFaultsMs: number;
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
 * Runs the workload until `durationMs` passed and `afterFaultsMs` after `faults` resolved, while
 * `faults` runs alongside; resolves once
 * every client finished its last operation and `faults` resolved. Connections are closed even
 * when a client fails.
 */
export async function runWorkload(cluster: StoreCluster, recorder: HistoryRecorder, options: WorkloadOptions, faults: () => Promise<void>): Promise<WorkloadResult> {
  const connections: NatsConnection[] = [];
  const clients: StoreClient[] = [];
  const ledger: LedgerEntry[] = [];
  let pendingLedger = 0;
  try {
    for (let position = 0; position < options.clients; position++) {
      const connection = await cluster.connect(`fault-client-${position}`);
      connections.push(connection);
      clients.push(new StoreClient({
        connection, cluster: cluster.options.cluster, group: 'main', attemptTimeoutMs: options.attemptTimeoutMs, deadlineMs: options.deadlineMs,
      }));
    }
    let stopAt = now() + options.durationMs;
    const runFaults = async (): Promise<void> => {
      await faults();
      stopAt = Math.max(stopAt, now() + options.afterFaultsMs);
    };
    const runClient = async (client: StoreClient, position: number): Promise<void> => {
      const clientId = `c${position}`;
      for (let sequence = 0; now() < stopAt; sequence++) {
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
    await Promise.all([runFaults(), ...clients.map((client, position) => runClient(client, position))]);
    return {
      history: recorder.history, writes: recorder.writes, reads: recorder.reads, ledger, pendingLedger,
      retries: clients.reduce((sum, client) => sum + client.retries, 0),
    };
  } finally {
    for (const client of clients) client.close();
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  }
}
