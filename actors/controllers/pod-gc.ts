// Owns: the pod garbage collector (kube-controller-manager's `pod-garbage-collector-controller`,
// pkg/controller/podgc/gc_controller.go), the part of it that finishes pod deletions kubelets
// would otherwise finish:
//  - gcOrphaned: a pod bound to a node that does not exist is force-deleted once the node has
//    been missing for a quarantine (kube: 40 s, so a node object re-created meanwhile, e.g. by a
//    re-registering kubelet, saves its pods); a node that reappears cancels its quarantine;
//  - gcUnscheduledTerminating: a pod being deleted that is bound to no node is force-deleted.
// Force-deleting is kube's markFailedAndDeletePodWithCondition: a pod not yet Succeeded or Failed
// first gets phase Failed (with the DisruptionTarget condition, reason DeletionByPodGC, for
// orphans), then a delete with grace period 0 and the pod's uid as precondition.
// Not done: gcTerminated (kube deletes finished pods beyond --terminated-pod-gc-threshold, 12500)
// and gcTerminating (pods on out-of-service nodes): with no kubelets, no pod finishes by itself.
// Leader-only; acts only by proposing commands (an update carries the read resourceVersion, so a
// concurrent writer wins and the next change brings the pod back here). Timers come from an
// injectable ControllerTimers, so tests drive the quarantine without sleeping.
import type { ChangeEvent } from '../events.ts';
import type { KubeObject, ObjectKey } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { Serial } from './serial.ts';
import { realTimers } from './token-cleaner.ts';
import type { ControllerTimers } from './token-cleaner.ts';

/** Who PodGC's commands name as their cause (kube-controller-manager's service account). */
export const podGcIdentity = 'system:serviceaccount:kube-system:pod-garbage-collector';

/** kube's quarantineTime: how long a node must stay missing before its pods are deleted. */
export const podGcQuarantineMsDefault = 40_000;

const podsCollection = { group: '', resource: 'pods', namespace: '' } as const;
const nodesCollection = { group: '', resource: 'nodes', namespace: '' } as const;

function fieldsOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

function nodeNameOf(pod: KubeObject): string {
  const nodeName = fieldsOf(pod['spec'])['nodeName'];
  return typeof nodeName === 'string' ? nodeName : '';
}

function podKey(pod: KubeObject): ObjectKey {
  return { group: '', resource: 'pods', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' };
}

function touchesPodsOrNodes(events: readonly ChangeEvent[]): boolean {
  return events.some((event) => event.key.group === '' && (event.key.resource === 'pods' || event.key.resource === 'nodes'));
}

interface Quarantine {
  readonly cancel: () => void;
  /** Set when the quarantine ran out with the node still missing. */
  expired: boolean;
}

export interface PodGcOptions {
  readonly timers?: ControllerTimers;
  readonly quarantineMs?: number;
}

export class PodGarbageCollector implements Controller {
  readonly name = 'pod-garbage-collector';
  readonly #context: ControllerContext;
  readonly #timers: ControllerTimers;
  readonly #quarantineMs: number;
  readonly #serial: Serial;
  /** Missing node name → its quarantine. */
  readonly #quarantines = new Map<string, Quarantine>();
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext, options: PodGcOptions = {}) {
    this.#context = context;
    this.#timers = options.timers ?? realTimers;
    this.#quarantineMs = options.quarantineMs ?? podGcQuarantineMsDefault;
    this.#serial = new Serial(() => this.#reconcile(), (error) => context.log('pod garbage collection failed; retried on the next change', { error: (error as Error).message }));
  }

  start(): void {
    this.#stopped = false;
    this.#unsubscribe = this.#context.state.subscribe((events) => {
      if (touchesPodsOrNodes(events)) this.#serial.poke();
    });
    this.#serial.poke();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    for (const quarantine of this.#quarantines.values()) quarantine.cancel();
    this.#quarantines.clear();
    await this.#serial.idle();
  }

  /** Waits until no reconcile is running (tests). */
  async idle(): Promise<void> {
    await this.#serial.idle();
  }

  /** Node names whose quarantine is running or ran out (tests, diagnostics). */
  quarantinedNodes(): string[] {
    return [...this.#quarantines.keys()].sort();
  }

  async #reconcile(): Promise<void> {
    if (this.#stopped) return;
    const nodes = new Set(this.#context.state.list(nodesCollection).items.map((node) => node.metadata.name ?? ''));
    const pods = this.#context.state.list(podsCollection).items;
    const missing = new Set(pods.map(nodeNameOf).filter((name) => name !== '' && !nodes.has(name)));
    this.#updateQuarantines(missing);
    for (const pod of pods) {
      if (this.#stopped) return;
      // Already deleted with grace period 0: only its finalizers hold it.
      if (pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0) continue;
      const nodeName = nodeNameOf(pod);
      if (nodeName === '' && pod.metadata.deletionTimestamp !== undefined) {
        await this.#forceDelete(pod, undefined);
      } else if (nodeName !== '' && this.#quarantines.get(nodeName)?.expired === true) {
        await this.#forceDelete(pod, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
      }
    }
  }

  /** Starts a quarantine for each newly missing node; ends those of nodes back (or no longer referenced). */
  #updateQuarantines(missing: ReadonlySet<string>): void {
    for (const [nodeName, quarantine] of this.#quarantines) {
      if (missing.has(nodeName)) continue;
      quarantine.cancel();
      this.#quarantines.delete(nodeName);
    }
    for (const nodeName of missing) {
      if (this.#quarantines.has(nodeName)) continue;
      const quarantine: Quarantine = {
        expired: false,
        cancel: this.#timers.set(this.#quarantineMs, () => {
          quarantine.expired = true;
          this.#serial.poke();
        }),
      };
      this.#quarantines.set(nodeName, quarantine);
      this.#context.log('node of bound pods does not exist; deleting them after the quarantine unless it comes back', { node: nodeName, quarantineMs: this.#quarantineMs });
    }
  }

  /** kube's markFailedAndDeletePodWithCondition: phase Failed (if not finished), then a grace-0 delete. */
  async #forceDelete(pod: KubeObject, condition: Record<string, string> | undefined): Promise<void> {
    const key = podKey(pod);
    const status = fieldsOf(pod['status']);
    if (status['phase'] !== 'Succeeded' && status['phase'] !== 'Failed') {
      const now = this.#context.now();
      const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []).filter((item) => condition === undefined || fieldsOf(item)['type'] !== condition['type']);
      const failed = structuredClone({
        ...pod,
        status: { ...status, phase: 'Failed', ...(condition === undefined ? {} : { conditions: [...conditions, { ...condition, lastProbeTime: null, lastTransitionTime: now }] }) },
      }) as KubeObject;
      const updated = await this.#context.propose({
        type: 'update', key, object: failed, at: now, by: podGcIdentity, preconditions: { resourceVersion: pod.metadata.resourceVersion ?? '' },
      });
      if (updated.type !== 'stored') return; // changed meanwhile (or gone): the change brings us back
    }
    const result = await this.#context.propose({
      type: 'delete', key, at: this.#context.now(), by: podGcIdentity, gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid ?? '' },
    });
    this.#context.log('PodGC force-deleted pod', { pod: `${key.namespace}/${key.name}`, node: nodeNameOf(pod), result: result.type });
  }
}
