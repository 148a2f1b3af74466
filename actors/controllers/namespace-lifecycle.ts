// Owns: the namespace lifecycle controller (kube-controller-manager's namespace controller).
// When a namespace is being deleted (Terminating: deletionTimestamp set, the "kubernetes"
// spec finalizer present) it deletes every object in it, waits until they are all gone (some
// may have finalizers of their own), then removes the "kubernetes" finalizer, at which point
// apply removes the namespace. Leader-only; acts only by proposing commands.
// Pods: kube's controller deletes them gracefully and waits for their kubelets to stop them.
// kstore runs no kubelets, so that wait would never end for a pod bound to a node; this
// controller deletes pods with grace period 0 instead (also pods already terminating), as if
// every kubelet stopped its containers at once. A deliberate divergence: a namespace deletion
// always finishes here, while pods deleted one by one keep kube's graceful deletion.
import type { ChangeEvent } from '../events.ts';
import type { KubeObject, ObjectKey } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { KeyQueue } from './serial.ts';

/** Who the controller's commands name as their cause (kube-controller-manager's service account). */
export const namespaceControllerIdentity = 'system:serviceaccount:kube-system:namespace-controller';

export const namespaceFinalizer = 'kubernetes';

const namespacesResource = { group: '', resource: 'namespaces' } as const;

function namespaceKey(name: string): ObjectKey {
  return { ...namespacesResource, namespace: '', name };
}

function specFinalizers(namespace: KubeObject): string[] {
  const spec = namespace['spec'];
  const finalizers = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec['finalizers'] : undefined;
  return Array.isArray(finalizers) ? finalizers.filter((item): item is string => typeof item === 'string') : [];
}

function isTerminating(namespace: KubeObject | undefined): namespace is KubeObject {
  return namespace !== undefined && namespace.metadata.deletionTimestamp !== undefined && specFinalizers(namespace).includes(namespaceFinalizer);
}

function isPod(key: ObjectKey): boolean {
  return key.group === '' && key.resource === 'pods';
}

/** A pod in its grace period (deleted gracefully, waiting for a kubelet to stop it). */
function isTerminatingPod(key: ObjectKey, object: KubeObject): boolean {
  return isPod(key) && object.metadata.deletionTimestamp !== undefined && (object.metadata.deletionGracePeriodSeconds ?? 0) > 0;
}

export class NamespaceLifecycleController implements Controller {
  readonly name = 'namespace-lifecycle';
  readonly #context: ControllerContext;
  /** Namespaces that changed since their last reconcile; reconciled one at a time, in order. */
  readonly #queue: KeyQueue<string>;
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext) {
    this.#context = context;
    this.#queue = new KeyQueue((namespace) => this.#reconcile(namespace), (namespace, error) => {
      this.#context.log('namespace reconcile failed; retried on the next change', { namespace, error: (error as Error).message });
    });
  }

  start(): void {
    this.#stopped = false;
    this.#queue.resume();
    this.#unsubscribe = this.#context.state.subscribe((events) => this.#onEvents(events));
    for (const namespace of this.#context.state.list({ ...namespacesResource, namespace: '' }).items) {
      if (isTerminating(namespace)) this.#markDirty(namespace.metadata.name ?? '');
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  #onEvents(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      const affected = event.key.resource === 'namespaces' && event.key.group === '' ? event.key.name : event.key.namespace;
      if (affected !== '' && isTerminating(this.#context.state.get(namespaceKey(affected)))) this.#markDirty(affected);
    }
  }

  #markDirty(namespace: string): void {
    this.#queue.mark(namespace);
  }

  /** Deletes the namespace's content; once it is empty, releases the namespace finalizer. */
  async #reconcile(name: string): Promise<void> {
    const namespace = this.#context.state.get(namespaceKey(name));
    if (!isTerminating(namespace)) return;
    const content = this.#context.state.objectsInNamespace(name);
    for (const { key, object } of content) {
      if (this.#stopped) return;
      if (object.metadata.deletionTimestamp === undefined || isTerminatingPod(key, object)) {
        await this.#context.propose({ type: 'delete', key, at: this.#context.now(), by: namespaceControllerIdentity, ...(isPod(key) ? { gracePeriodSeconds: 0 } : {}) });
      }
    }
    if (this.#context.state.objectsInNamespace(name).length > 0) return; // finalizers pending: the next change brings us back
    const current = this.#context.state.get(namespaceKey(name));
    if (!isTerminating(current)) return;
    const spec = { ...(current['spec'] as Record<string, unknown> | undefined), finalizers: specFinalizers(current).filter((item) => item !== namespaceFinalizer) };
    const released = structuredClone({ ...current, spec }) as KubeObject;
    await this.#context.propose({
      type: 'update', key: namespaceKey(name), object: released, at: this.#context.now(), by: namespaceControllerIdentity,
      preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' },
    });
  }
}
