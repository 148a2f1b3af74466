// Owns: the JSON shapes the console reads from the API — the ObjectLifecycle of the lifecycle
// subresource and the ClusterStatus of /kstore/cluster — in one module without server imports,
// so the browser code (web/) and the server (endpoints/lifecycle.ts, cluster-view.ts) share them.
import type { Statechart } from '../../actors/index.ts';

export const lifecycleApiVersion = 'kstore.k8s.io/v1alpha1';

export interface LifecycleHistoryEntry {
  readonly event: string;
  readonly from: string | null;
  readonly to: string;
  /** The Raft index (resourceVersion) of the change, as a string like every resourceVersion. */
  readonly revision: string;
  readonly time: string;
  readonly user?: string;
}

export interface MachineView {
  readonly name: string;
  readonly statechart: Statechart;
  readonly state: string;
  readonly waitingFor: string;
  readonly context: Readonly<Record<string, unknown>>;
  readonly history: readonly LifecycleHistoryEntry[];
}

export interface ObjectLifecycleView {
  readonly kind: 'ObjectLifecycle';
  readonly apiVersion: typeof lifecycleApiVersion;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid?: string; readonly resourceVersion?: string };
  /** The object this lifecycle belongs to. */
  readonly object: { readonly apiVersion: string; readonly kind: string; readonly resource: string };
  readonly machines: readonly MachineView[];
}

export interface StoreMemberView {
  readonly id: string;
  readonly role: string;
  readonly term: number;
  readonly leaderId: string | undefined;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  /** Why the member stopped working, if it did. */
  readonly failure?: string | undefined;
  /** Its data dir's space: bytes held against the quota, bytes free against the reserve, and the alarm while raised. */
  readonly storage?: StorageUsageView | undefined;
}

export interface StorageUsageView {
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly freeBytes: number;
  readonly reserveBytes: number;
  readonly alarm: string | undefined;
}

export interface ApiReplicaView {
  readonly name: string;
  readonly url: string;
  readonly revision: number;
  readonly ready: boolean;
  /** The replica that answered this request. */
  readonly self: boolean;
}

export interface ClusterView {
  readonly kind: 'ClusterStatus';
  readonly apiVersion: 'kstore.k8s.io/v1alpha1';
  /** The leader of the newest term any member reported, if any. */
  readonly leader: string | undefined;
  readonly members: readonly StoreMemberView[];
  readonly replicas: readonly ApiReplicaView[];
}
