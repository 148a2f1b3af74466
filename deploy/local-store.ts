// Owns: the in-process store backend of `kstore server`: one Raft member (raft/) applying
// commands to the replicated state machine (actors/), exposed to the API tier through the
// StoreBackend interface. Commands are encoded here; the API tier never sees Raft.
import { ClusterState, encodeCommand, commandVersion } from '../actors/index.ts';
import type { ChangeEvent, CollectionKey, Command, CommandResult, KubeObject, ObjectKey } from '../actors/index.ts';
import type { StoreBackend } from '../api/index.ts';
import { RaftNode } from '../raft/index.ts';

export interface LocalStore {
  readonly backend: StoreBackend;
  readonly node: RaftNode<CommandResult>;
  readonly state: ClusterState;
  close(): Promise<void>;
}

export interface LocalStoreOptions {
  readonly id: string;
  readonly dataDir: string;
}

function backendOf(node: RaftNode<CommandResult>, state: ClusterState): StoreBackend {
  return {
    async propose(command: Command): Promise<CommandResult> {
      const { result } = await node.propose(encodeCommand({ version: commandVersion, command }));
      return result;
    },
    readIndex: () => node.readIndex(),
    get: (key: ObjectKey): KubeObject | undefined => state.get(key),
    lifecycleOf: (key: ObjectKey) => state.lifecycleOf(key),
    list: (collection: CollectionKey) => state.list(collection),
    subscribe: (listener: (events: readonly ChangeEvent[]) => void) => state.subscribe(listener),
    currentRevision: () => state.appliedIndex(),
    ready: () => node.status().role === 'leader',
  };
}

export async function openLocalStore(options: LocalStoreOptions): Promise<LocalStore> {
  const state = new ClusterState();
  const node = await RaftNode.open<CommandResult>({ id: options.id, peers: [options.id], dataDir: options.dataDir, stateMachine: state });
  return { backend: backendOf(node, state), node, state, close: () => node.close() };
}
