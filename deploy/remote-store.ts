// Owns: the StoreBackend of a `kstore api` replica: writes are proposals to the Raft leader over
// NATS (deploy/store-client.ts: leader following, client sessions so a retried proposal is
// applied at most once); reads come from the replica's in-memory copy (deploy/object-replica.ts);
// a Most Recent read point is the leader's ReadIndex, then a wait until the replica reached it
// (api/store-client.ts bounds that wait and answers 504 with Retry-After). A proposal that ran
// out of its deadline without an outcome, or a store that cannot be reached, becomes a 503 with
// Retry-After, never a hang (api/store-client.ts maps StoreDeadlineError by name). While any
// store member reports its space alarm (the status poller hears it), writes that would grow the
// store are refused here, before a proposal is sent: as etcd's NOSPACE alarm, one member
// running out of space stops such writes cluster-wide, since every member must append them.
import type { ChangeEvent, CollectionKey, Command, CommandResult, KubeObject, Lifecycle, ObjectKey } from '../actors/index.ts';
import type { StoreBackend } from '../api/index.ts';
import type { ObjectReplica } from './object-replica.ts';
import type { StoreClient as NatsStoreClient } from './store-client.ts';
import { admittedUnderAlarm, StorageAlarmError } from './storage-quota.ts';

export class RemoteStore implements StoreBackend {
  readonly #client: NatsStoreClient;
  readonly #replica: ObjectReplica;
  readonly #storageAlarm: () => string | undefined;

  /** `storageAlarm`: the reason of a member's raised space alarm, if any member reports one. */
  constructor(client: NatsStoreClient, replica: ObjectReplica, storageAlarm: () => string | undefined = () => undefined) {
    this.#client = client;
    this.#replica = replica;
    this.#storageAlarm = storageAlarm;
  }

  async propose(command: Command): Promise<CommandResult> {
    const alarm = this.#storageAlarm();
    if (alarm !== undefined && !admittedUnderAlarm(command)) throw new StorageAlarmError(alarm);
    // The result comes from the leader's apply; it does not wait for this replica's copy (fed by
    // the event stream) to reach its revision, so a stalled stream never stalls writes. Reads
    // that must see it (Most Recent, Not older than its resourceVersion, the read before an
    // update, patch or delete) wait for the leader's ReadIndex first, as kube-apiserver's
    // consistent reads from cache do.
    const result = await this.#client.propose(command);
    return result;
  }

  async readIndex(): Promise<number> {
    const index = await this.#client.readIndex();
    await this.#replica.waitForRevision(index);
    return index;
  }

  get(key: ObjectKey): KubeObject | undefined {
    return this.#replica.get(key);
  }

  lifecycleOf(key: ObjectKey): Lifecycle | undefined {
    return this.#replica.lifecycleOf(key);
  }

  list(collection: CollectionKey): { readonly items: readonly KubeObject[]; readonly revision: number } {
    return this.#replica.list(collection);
  }

  subscribe(listener: (events: readonly ChangeEvent[]) => void): () => void {
    return this.#replica.subscribe(listener);
  }

  currentRevision(): number {
    return this.#replica.currentRevision();
  }

  subscribeResyncs(listener: (reason: string) => void): () => void {
    return this.#replica.onResync(listener);
  }

  ready(): boolean {
    return this.#client.leaderId !== undefined && this.#replica.synced();
  }
}
