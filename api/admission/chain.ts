// Owns: the admission chain every write runs through, in kube-apiserver's plugin order
// (NamespaceLifecycle, …, ServiceAccount, …): the attributes a plugin sees, the two phases —
// every mutating plugin's admit() first, then every validating plugin's validate() on the final
// object — and the order itself. A plugin refuses by throwing an ApiError; nothing is stored
// then. Dry-run writes are admitted like real ones (kube runs admission for them too). Later
// plugins (LimitRanger, ResourceQuota, PodSecurity, webhooks, ValidatingAdmissionPolicy) join
// here as entries of `admissionPluginsInOrder`.
import type { KubeObject } from '../../actors/index.ts';
import type { UserInfo } from '../auth/authn.ts';
import type { ResourceKind } from '../registry/kinds.ts';
import type { StoreClient } from '../store-client.ts';
import { defaultIngressClassPlugin } from './default-ingress-class.ts';
import { namespaceLifecyclePlugin } from './namespace-lifecycle.ts';
import { priorityPlugin } from './priority.ts';
import { serviceAccountPlugin } from './service-account.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What a plugin sees of a write (kube's admission.Attributes). */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly kind: ResourceKind;
  readonly namespace: string;
  readonly name: string;
  /** The name the request's URL carries ('' for a POST to a collection), kube's RequestInfo.Name. */
  readonly requestName: string;
  /** '' for the main resource. */
  readonly subresource: string;
  /** The object to store (mutable in admit); undefined for DELETE. */
  readonly object: KubeObject | undefined;
  /** The stored object for UPDATE and DELETE. */
  readonly oldObject: KubeObject | undefined;
  readonly user: UserInfo;
  readonly dryRun: boolean;
}

/** What plugins may read: the store's current state (unconverted keys), randomness for names. */
export interface AdmissionServices {
  readonly store: StoreClient;
  readonly randomSuffix: () => string;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase: may change `attributes.object` in place. */
  admit?(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> | void;
  /** Validating phase: sees the object every mutating plugin produced; may only refuse. */
  validate?(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> | void;
}

/** kube-apiserver's recommended plugin order, restricted to the plugins kstore has. */
export const admissionPluginsInOrder: readonly AdmissionPlugin[] = [namespaceLifecyclePlugin, serviceAccountPlugin, priorityPlugin, defaultIngressClassPlugin];

export class AdmissionChain {
  readonly #plugins: readonly AdmissionPlugin[];
  readonly #services: AdmissionServices;

  constructor(services: AdmissionServices, plugins: readonly AdmissionPlugin[] = admissionPluginsInOrder) {
    this.#services = services;
    this.#plugins = plugins;
  }

  get pluginNames(): readonly string[] {
    return this.#plugins.map((plugin) => plugin.name);
  }

  /** The mutating phase, in order. */
  async admit(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.#plugins) await plugin.admit?.(attributes, this.#services);
  }

  /** The validating phase, in order. */
  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.#plugins) await plugin.validate?.(attributes, this.#services);
  }
}
