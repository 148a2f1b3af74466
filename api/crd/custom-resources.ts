// Owns: custom resources on one API server, as kube-apiserver's apiextensions controllers run in
// every kube-apiserver: it keeps the server's KindRegistry in step with the stored
// CustomResourceDefinitions (a CRD created through one API replica is served by every replica
// once its change event arrives), and reconciles their status — the naming controller
// (acceptedNames, NamesAccepted), the establishing controller (Established), and the
// `customresourcecleanup.apiextensions.k8s.io` finalizer (deleting a CRD deletes its objects,
// then lets the CRD go). Several replicas reconcile the same CRD safely: every update carries a
// resourceVersion precondition and every delete a uid precondition, so a replica that loses a
// race sees the winner's result and has nothing left to do.
import type { ChangeEvent, CollectionKey, Command, KubeObject, ObjectKey } from '../../actors/index.ts';
import { randomUUID } from 'node:crypto';
import { customGroupPriority } from '../discovery.ts';
import { autoRegisterManagedLabel } from '../registry/strategy-apiregistration.ts';
import type { KindRegistry } from '../registry/kind-registry.ts';
import type { StoreClient } from '../store-client.ts';
import { customResourceKinds } from './custom-resource-kind.ts';
import { cleanupFinalizer, establishedCondition, namingStatus, terminatingCondition } from './definition.ts';

export const crdGroup = 'apiextensions.k8s.io';
export const crdResource = 'customresourcedefinitions';
const crdCollection: CollectionKey = { group: crdGroup, resource: crdResource, namespace: '' };
/** Who the controllers' writes are recorded as (the lifecycle inspector shows it). */
export const controllerIdentity = 'system:apiextensions-controllers';
const apiServiceGroup = 'apiregistration.k8s.io';
/** The automanaged label value of the APIServices kube's CRD registration controller keeps. */
const crdManaged = 'true';

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface CustomResourcesOptions {
  readonly store: StoreClient;
  readonly kinds: KindRegistry;
  readonly now: () => Date;
  /** Reconciles status and finalizers too (default true); false only serves what is stored. */
  readonly reconcile?: boolean;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface CustomResources {
  stop(): void;
  /** Resolves once the work pending now is done (tests wait on it). */
  settled(): Promise<void>;
}

function crdKey(name: string): ObjectKey {
  return { group: crdGroup, resource: crdResource, namespace: '', name };
}

function storedGroupResource(crd: KubeObject): { group: string; resource: string } {
  const spec = fieldsOf(crd['spec']);
  const accepted = fieldsOf(fieldsOf(crd['status'])['acceptedNames']);
  const plural = typeof accepted['plural'] === 'string' && accepted['plural'] !== '' ? accepted['plural'] : String(fieldsOf(spec['names'])['plural'] ?? '');
  return { group: String(spec['group'] ?? ''), resource: plural };
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

export function startCustomResources(options: CustomResourcesOptions): CustomResources {
  const { store, kinds } = options;
  const reconcile = options.reconcile ?? true;
  const log = options.log ?? (() => {});
  let stopped = false;
  let scheduled = false;
  let running: Promise<void> = Promise.resolve();
  let again = false;

  // The kinds of each CRD as of its resourceVersion: a change event of one CRD rebuilds (and
  // recompiles the rules of) that CRD only.
  let built = new Map<string, { readonly resourceVersion: string; readonly kinds: ReturnType<typeof customResourceKinds> }>();
  const refreshKinds = (): void => {
    const crds = store.list(crdCollection).items;
    const next = new Map<string, { readonly resourceVersion: string; readonly kinds: ReturnType<typeof customResourceKinds> }>();
    for (const crd of crds) {
      const uid = crd.metadata.uid ?? crd.metadata.name ?? '';
      const resourceVersion = crd.metadata.resourceVersion ?? '';
      const earlier = built.get(uid);
      if (earlier !== undefined && earlier.resourceVersion === resourceVersion) {
        next.set(uid, earlier);
        continue;
      }
      try {
        next.set(uid, { resourceVersion, kinds: customResourceKinds(crd) });
      } catch (error) {
        log('a CustomResourceDefinition could not be served', { name: crd.metadata.name, error: error instanceof Error ? error.message : String(error) });
        next.set(uid, { resourceVersion, kinds: [] });
      }
    }
    const changed = next.size !== built.size || [...next].some(([uid, entry]) => built.get(uid) !== entry);
    built = next;
    if (changed) kinds.setCustom([...next.values()].flatMap((entry) => entry.kinds));
  };

  const propose = async (command: Command): Promise<void> => {
    const result = await store.propose(command);
    if (result.type !== 'stored' && result.type !== 'removed' && result.type !== 'finalizing') {
      log('a CustomResourceDefinition reconcile write was not applied', { type: result.type });
    }
  };

  const updateStatus = async (crd: KubeObject, status: Fields): Promise<void> => {
    const object = { ...structuredClone(crd), status } as KubeObject;
    await propose({
      type: 'update', key: crdKey(crd.metadata.name ?? ''), object,
      preconditions: { resourceVersion: crd.metadata.resourceVersion ?? '' }, at: formatTime(options.now()), by: controllerIdentity,
    });
  };

  /** Deletes the CRD's objects; true once none is left. */
  const deleteInstances = async (crd: KubeObject): Promise<boolean> => {
    const { group, resource } = storedGroupResource(crd);
    if (group === '' || resource === '') return true;
    const { items } = store.list({ group, resource, namespace: '' });
    const live = items.filter((item) => item.metadata.deletionTimestamp === undefined);
    await Promise.all(live.map((item) => propose({
      type: 'delete', key: { group, resource, namespace: item.metadata.namespace ?? '', name: item.metadata.name ?? '' },
      preconditions: { uid: item.metadata.uid ?? '' }, at: formatTime(options.now()), by: controllerIdentity,
    })));
    return items.length === 0;
  };

  const reconcileOne = async (crd: KubeObject, all: readonly KubeObject[]): Promise<void> => {
    const now = formatTime(options.now());
    const status = fieldsOf(crd['status']);
    if (crd.metadata.deletionTimestamp !== undefined) {
      if (!(crd.metadata.finalizers ?? []).includes(cleanupFinalizer)) return;
      const conditions = terminatingCondition(status, now, 'InstanceDeletionInProgress');
      if (!sameJson(conditions, status['conditions'])) {
        await updateStatus(crd, { ...status, conditions });
        return;
      }
      if (!(await deleteInstances(crd))) return;
      const object = structuredClone(crd);
      object.metadata.finalizers = (object.metadata.finalizers ?? []).filter((finalizer) => finalizer !== cleanupFinalizer);
      await propose({
        type: 'update', key: crdKey(crd.metadata.name ?? ''), object,
        preconditions: { resourceVersion: crd.metadata.resourceVersion ?? '' }, at: now, by: controllerIdentity,
      });
      return;
    }
    const group = String(fieldsOf(crd['spec'])['group'] ?? '');
    const others = all.filter((other) => other.metadata.name !== crd.metadata.name && String(fieldsOf(other['spec'])['group'] ?? '') === group);
    const naming = namingStatus(crd, others, now);
    let next: Fields = { ...status, acceptedNames: naming.acceptedNames, conditions: naming.conditions };
    const namesAccepted = naming.conditions.some((condition) => condition.type === 'NamesAccepted' && condition.status === 'True');
    if (namesAccepted) next = { ...next, conditions: establishedCondition(next['conditions'], now) };
    if (!sameJson(next, status)) await updateStatus(crd, next);
  };

  /**
   * kube's CRD registration controller: an APIService `<version>.<group>` (local, group priority
   * 1000, version priority 100, automanaged=true) for each version an established CRD serves, and
   * none once no CRD serves it. A custom group never shadows a built-in group's APIServices.
   */
  const registerApiServices = async (): Promise<void> => {
    const wanted = new Map<string, { group: string; version: string }>();
    for (const kind of kinds.custom()) wanted.set(`${kind.version}.${kind.group}`, { group: kind.group, version: kind.version });
    const at = formatTime(options.now());
    for (const [name, { group, version }] of wanted) {
      const key: ObjectKey = { group: apiServiceGroup, resource: 'apiservices', namespace: '', name };
      const spec = { group, version, groupPriorityMinimum: customGroupPriority.group, versionPriority: customGroupPriority.version };
      const current = store.get(key);
      if (current !== undefined) {
        if (current.metadata.labels?.[autoRegisterManagedLabel] !== crdManaged || current.metadata.deletionTimestamp !== undefined || sameJson(current['spec'], spec)) continue;
        await propose({ type: 'update', key, object: { ...structuredClone(current), spec }, preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' }, at, by: controllerIdentity });
        continue;
      }
      const object = {
        apiVersion: `${apiServiceGroup}/v1`, kind: 'APIService',
        metadata: { name, uid: randomUUID(), creationTimestamp: at, labels: { [autoRegisterManagedLabel]: crdManaged } },
        spec, status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: at, reason: 'Local', message: 'Local APIServices are always available' }] },
      } as unknown as KubeObject;
      const result = await store.propose({ type: 'create', key, object, at, by: controllerIdentity });
      if (result.type !== 'stored' && result.type !== 'alreadyExists') log('an APIService of a CRD group could not be created', { name, type: result.type });
    }
    for (const current of store.list({ group: apiServiceGroup, resource: 'apiservices', namespace: '' }).items) {
      const name = current.metadata.name ?? '';
      if (wanted.has(name) || current.metadata.labels?.[autoRegisterManagedLabel] !== crdManaged || current.metadata.deletionTimestamp !== undefined) continue;
      await propose({ type: 'delete', key: { group: apiServiceGroup, resource: 'apiservices', namespace: '', name }, preconditions: { uid: current.metadata.uid ?? '' }, at, by: controllerIdentity });
    }
  };

  const work = async (): Promise<void> => {
    refreshKinds();
    if (!reconcile || stopped) return;
    const all = store.list(crdCollection).items;
    for (const crd of all) {
      if (stopped) return;
      try {
        await reconcileOne(crd, all);
      } catch (error) {
        log('a CustomResourceDefinition reconcile failed', { name: crd.metadata.name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    try {
      await registerApiServices();
    } catch (error) {
      log('registering the APIServices of CRD groups failed', { error: error instanceof Error ? error.message : String(error) });
    }
  };

  const schedule = (): void => {
    if (stopped) return;
    if (scheduled) { again = true; return; }
    scheduled = true;
    running = (async () => {
      do {
        again = false;
        await Promise.resolve();
        await work();
      } while (again && !stopped);
      scheduled = false;
    })();
  };

  const touchesCrds = (event: ChangeEvent): boolean => event.key.group === crdGroup && event.key.resource === crdResource;
  // Objects of a terminating CRD going away let its finalizer go.
  const terminating = (): boolean => store.list(crdCollection).items.some((crd) => crd.metadata.deletionTimestamp !== undefined);
  const unsubscribe = store.subscribe((events) => {
    if (events.some(touchesCrds)) schedule();
    else if (reconcile && events.some((event) => event.type === 'DELETED') && terminating()) schedule();
  });
  const unsubscribeResyncs = store.subscribeResyncs(() => schedule());
  schedule();
  // A write refused by a race (or while the store had no leader) is retried on a slow tick.
  const retry = reconcile ? setInterval(() => { if (store.list(crdCollection).items.length > 0) schedule(); }, 5_000) : undefined;
  retry?.unref();

  return {
    stop() {
      stopped = true;
      unsubscribe();
      unsubscribeResyncs();
      if (retry !== undefined) clearInterval(retry);
    },
    async settled() {
      while (scheduled) await running;
    },
  };
}
