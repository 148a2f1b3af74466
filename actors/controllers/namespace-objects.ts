// Owns: the controllers that keep one object present in every active namespace, as
// kube-controller-manager does:
//  - serviceaccount-controller: the `default` ServiceAccount (created when missing, also again
//    after a delete; an existing one is never changed);
//  - root-ca-certificate-publisher-controller: the `kube-root-ca.crt` ConfigMap holding the
//    cluster CA (`ca.crt`) that pods use to verify the API server; created when missing and put
//    back when its data or description drift.
// A namespace being deleted (deletionTimestamp set) gets nothing new. Leader-only; acts only by
// proposing commands (updates carry a resourceVersion precondition, so a concurrent writer is
// never overwritten: the change brings the namespace back here).
import { randomUUID } from 'node:crypto';
import type { ChangeEvent } from '../events.ts';
import type { JsonValue, KubeObject, ObjectKey } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { KeyQueue } from './serial.ts';

/** What one such controller keeps in each namespace. */
export interface NamespaceObjectSpec {
  readonly controllerName: string;
  /** Who its commands name as their cause (kube-controller-manager's service account). */
  readonly identity: string;
  readonly group: string;
  readonly resource: string;
  readonly name: string;
  /** The object's kind-specific content for a namespace (apiVersion, kind, data, ...), without metadata. */
  readonly content: (namespace: string) => Record<string, JsonValue>;
  /** Extra metadata it must carry (labels, annotations). */
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
  /** Whether a stored object that differs from `content`/`metadata` is put back (root CA) or left alone (service account). */
  readonly enforce: boolean;
}

const namespacesResource = { group: '', resource: 'namespaces', namespace: '' } as const;

function isActive(namespace: KubeObject | undefined): namespace is KubeObject {
  return namespace !== undefined && namespace.metadata.deletionTimestamp === undefined;
}

function sameJson(a: unknown, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class NamespaceObjectController implements Controller {
  readonly name: string;
  readonly #context: ControllerContext;
  readonly #spec: NamespaceObjectSpec;
  /** Namespaces to look at; reconciled one at a time, in order. */
  readonly #queue: KeyQueue<string>;
  #unsubscribe: (() => void) | undefined;

  constructor(context: ControllerContext, spec: NamespaceObjectSpec) {
    this.#context = context;
    this.#spec = spec;
    this.name = spec.controllerName;
    this.#queue = new KeyQueue((namespace) => this.#reconcile(namespace), (namespace, error) => {
      this.#context.log(`${this.name}: reconcile failed; retried on the next change`, { namespace, error: (error as Error).message });
    });
  }

  start(): void {
    this.#queue.resume();
    this.#unsubscribe = this.#context.state.subscribe((events) => this.#onEvents(events));
    for (const namespace of this.#context.state.list(namespacesResource).items) {
      if (isActive(namespace)) this.#markDirty(namespace.metadata.name ?? '');
    }
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  #onEvents(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      const key = event.key;
      if (key.group === '' && key.resource === 'namespaces' && event.type !== 'DELETED') this.#markDirty(key.name);
      else if (key.group === this.#spec.group && key.resource === this.#spec.resource && key.name === this.#spec.name) this.#markDirty(key.namespace);
    }
  }

  #markDirty(namespace: string): void {
    if (namespace !== '') this.#queue.mark(namespace);
  }

  #key(namespace: string): ObjectKey {
    return { group: this.#spec.group, resource: this.#spec.resource, namespace, name: this.#spec.name };
  }

  async #reconcile(namespace: string): Promise<void> {
    if (!isActive(this.#context.state.get({ ...namespacesResource, name: namespace }))) return;
    const key = this.#key(namespace);
    const current = this.#context.state.get(key);
    const content = this.#spec.content(namespace);
    const annotations = this.#spec.metadata?.annotations;
    if (current === undefined) {
      const at = this.#context.now();
      const object = {
        ...content,
        metadata: { name: this.#spec.name, namespace, uid: randomUUID(), creationTimestamp: at, ...(annotations === undefined ? {} : { annotations: { ...annotations } }) },
      } as KubeObject;
      // alreadyExists (a concurrent creator) and namespaceTerminating are both fine outcomes.
      await this.#context.propose({ type: 'create', key, object, at, by: this.#spec.identity });
      return;
    }
    if (!this.#spec.enforce || current.metadata.deletionTimestamp !== undefined) return;
    const drifted = Object.entries(content).some(([field, value]) => !sameJson(current[field], value))
      || Object.entries(annotations ?? {}).some(([name, value]) => current.metadata.annotations?.[name] !== value);
    if (!drifted) return;
    const repaired = structuredClone({ ...current, ...content }) as KubeObject;
    if (annotations !== undefined) repaired.metadata.annotations = { ...current.metadata.annotations, ...annotations };
    await this.#context.propose({
      type: 'update', key, object: repaired, at: this.#context.now(), by: this.#spec.identity,
      preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' },
    });
  }
}

/** kube-controller-manager's serviceaccount-controller: a `default` ServiceAccount in every namespace. */
export function serviceAccountController(context: ControllerContext): NamespaceObjectController {
  return new NamespaceObjectController(context, {
    controllerName: 'serviceaccount', identity: 'system:serviceaccount:kube-system:service-account-controller',
    group: '', resource: 'serviceaccounts', name: 'default',
    content: () => ({ apiVersion: 'v1', kind: 'ServiceAccount' }), enforce: false,
  });
}

export const rootCaConfigMapName = 'kube-root-ca.crt';

/** The description kube's root-ca-cert-publisher puts on the ConfigMap. */
export const rootCaDescription = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/**
 * kube-controller-manager's root-ca-certificate-publisher-controller: `kube-root-ca.crt` with
 * the cluster CA (the context's rootCertificate; without one the controller has nothing to
 * publish and is not created — see registry.ts).
 */
export function rootCaPublisher(context: ControllerContext, rootCertificate: string): NamespaceObjectController {
  return new NamespaceObjectController(context, {
    controllerName: 'root-ca-cert-publisher', identity: 'system:serviceaccount:kube-system:root-ca-cert-publisher',
    group: '', resource: 'configmaps', name: rootCaConfigMapName,
    content: () => ({ apiVersion: 'v1', kind: 'ConfigMap', data: { 'ca.crt': rootCertificate } }),
    metadata: { annotations: { 'kubernetes.io/description': rootCaDescription } }, enforce: true,
  });
}
