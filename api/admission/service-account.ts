// Owns: kube-apiserver's ServiceAccount admission plugin for pod creates (also dry-run ones):
//  - the pod's service account (spec.serviceAccountName, defaulted to `default` by the pod
//    strategy) must exist, else 403 `error looking up service account <ns>/<name>: serviceaccount
//    "<name>" not found`; the `default` account is waited for briefly (the serviceaccount
//    controller creates it right after the namespace), as kube's plugin retries;
//  - unless the pod or the account sets automountServiceAccountToken=false, the projected
//    `kube-api-access-<suffix>` volume (a bound token, the namespace's kube-root-ca.crt and the
//    namespace from the downward API) is added and mounted read-only at
//    /var/run/secrets/kubernetes.io/serviceaccount in every container and init container that
//    does not mount something there already; the token itself is the kubelet's to request;
//  - a pod without imagePullSecrets gets the account's;
//  - an account annotated kubernetes.io/enforce-mountable-secrets=true limits the secrets the
//    pod may use (secret volumes, env and envFrom secret references, imagePullSecrets) to the
//    account's `secrets` and `imagePullSecrets`.
// Mirror pods (annotation kubernetes.io/config.mirror) are left alone. A pod whose namespace is
// missing or terminating is passed on: the store's NamespaceLifecycle answer (404 / 403) comes first.
import type { JsonValue, KubeObject, ObjectKey } from '../../actors/index.ts';
import { forbidden } from '../status.ts';
import type { StoreClient } from '../store-client.ts';
import type { AdmissionPlugin } from './chain.ts';

type Fields = Record<string, JsonValue>;

export const serviceAccountVolumePrefix = 'kube-api-access-';
export const serviceAccountMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: 1 h + 7 s, what the admission plugin asks for. */
export const boundTokenExpirationSeconds = 3607;
export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
export const enforceMountableSecretsAnnotation = 'kubernetes.io/enforce-mountable-secrets';
/** How long a pod create waits for the `default` account of a new namespace (kube: up to 10 lookups 100–200 ms apart). */
export const defaultAccountWaitMs = 2_000;

const podsResource = { group: '', resource: 'pods' } as const;

function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function records(value: JsonValue | undefined): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

/** A top-level field other than metadata. */
function top(object: KubeObject, name: 'spec' | 'secrets' | 'imagePullSecrets' | 'automountServiceAccountToken'): JsonValue | undefined {
  return object[name] as JsonValue | undefined;
}

function names(value: JsonValue | undefined): Set<string> {
  return new Set(records(value).flatMap((reference) => (typeof reference['name'] === 'string' ? [reference['name']] : [])));
}

/** The account, from the API server's copy; a miss is checked again after a consistent read (and, for `default`, waited for). */
async function lookUp(store: StoreClient, key: ObjectKey): Promise<KubeObject | undefined> {
  const cached = store.get(key);
  if (cached !== undefined) return cached;
  await store.readIndex();
  const current = store.get(key);
  if (current !== undefined || key.name !== 'default') return current;
  return new Promise((resolve) => {
    const done = (object: KubeObject | undefined): void => {
      clearTimeout(timer);
      unsubscribe();
      resolve(object);
    };
    const unsubscribe = store.subscribe((events) => {
      const created = events.find((event) => event.type !== 'DELETED' && event.key.namespace === key.namespace && event.key.resource === key.resource && event.key.group === key.group && event.key.name === key.name);
      if (created !== undefined) done(created.object);
    });
    const timer = setTimeout(() => done(store.get(key)), defaultAccountWaitMs);
  });
}

function shouldAutomount(account: KubeObject, spec: Fields): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean') return spec['automountServiceAccountToken'];
  const accountChoice = top(account, 'automountServiceAccountToken');
  if (typeof accountChoice === 'boolean') return accountChoice;
  return true;
}

/** The projected volume source kube's TokenVolumeSource() builds. */
function tokenVolume(name: string): Fields {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: boundTokenExpirationSeconds, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

function mountToken(spec: Fields, randomSuffix: () => string): void {
  const volumes = records(spec['volumes']);
  const existing = volumes.find((volume) => typeof volume['name'] === 'string' && volume['name'].startsWith(serviceAccountVolumePrefix));
  const volumeName = typeof existing?.['name'] === 'string' ? existing['name'] : `${serviceAccountVolumePrefix}${randomSuffix()}`;
  let needsVolume = false;
  for (const field of ['initContainers', 'containers'] as const) {
    if (!Array.isArray(spec[field])) continue;
    spec[field] = records(spec[field]).map((container) => {
      const mounts = records(container['volumeMounts']);
      if (mounts.some((mount) => mount['mountPath'] === serviceAccountMountPath)) return container;
      needsVolume = true;
      return { ...container, volumeMounts: [...mounts, { name: volumeName, readOnly: true, mountPath: serviceAccountMountPath }] };
    });
  }
  if (existing === undefined && needsVolume) spec['volumes'] = [...volumes, tokenVolume(volumeName)];
}

/** limitSecretReferences: the first secret the account does not allow, as kube words it. */
function secretReferenceProblem(account: KubeObject, spec: Fields): string | undefined {
  const accountName = account.metadata.name ?? '';
  const mountable = names(top(account, 'secrets'));
  for (const volume of records(spec['volumes'])) {
    const secret = fields(volume['secret']);
    const secretName = secret['secretName'];
    if (volume['secret'] !== undefined && typeof secretName === 'string' && !mountable.has(secretName)) {
      return `volume with secret.secretName="${secretName}" is not allowed because service account ${accountName} does not reference that secret`;
    }
  }
  for (const [field, label] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
    for (const container of records(spec[field])) {
      for (const variable of records(container['env'])) {
        const reference = fields(fields(variable['valueFrom'])['secretKeyRef']);
        if (typeof reference['name'] === 'string' && !mountable.has(reference['name'])) {
          return `${label} ${String(container['name'])} with envVar ${String(variable['name'])} referencing secret.secretName="${reference['name']}" is not allowed because service account ${accountName} does not reference that secret`;
        }
      }
      for (const source of records(container['envFrom'])) {
        const reference = fields(source['secretRef']);
        if (typeof reference['name'] === 'string' && !mountable.has(reference['name'])) {
          return `${label} ${String(container['name'])} with envFrom referencing secret.secretName="${reference['name']}" is not allowed because service account ${accountName} does not reference that secret`;
        }
      }
    }
  }
  const pullSecrets = names(top(account, 'imagePullSecrets'));
  const podPullSecrets = records(spec['imagePullSecrets']);
  for (const [position, reference] of podPullSecrets.entries()) {
    if (typeof reference['name'] === 'string' && !pullSecrets.has(reference['name'])) {
      return `imagePullSecrets[${position}].name="${reference['name']}" is not allowed because service account ${accountName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

/** Admits a new pod (mutating it in place) or throws the plugin's 403. */
export async function admitPodServiceAccount(pod: KubeObject, store: StoreClient, randomSuffix: () => string): Promise<void> {
  if (pod.metadata.annotations?.[mirrorPodAnnotation] !== undefined) return;
  const namespace = pod.metadata.namespace ?? '';
  const namespaceObject = store.get({ group: '', resource: 'namespaces', namespace: '', name: namespace });
  if (namespaceObject === undefined || namespaceObject.metadata.deletionTimestamp !== undefined) return;
  const spec = fields(top(pod, 'spec'));
  const accountName = typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '' ? spec['serviceAccountName'] : 'default';
  const account = await lookUp(store, { group: '', resource: 'serviceaccounts', namespace, name: accountName });
  const podName = pod.metadata.name ?? '';
  if (account === undefined) {
    throw forbidden(podsResource, podName, `error looking up service account ${namespace}/${accountName}: serviceaccount "${accountName}" not found`);
  }
  if (shouldAutomount(account, spec)) mountToken(spec, randomSuffix);
  const accountPullSecrets = records(top(account, 'imagePullSecrets'));
  if (records(spec['imagePullSecrets']).length === 0 && accountPullSecrets.length > 0) {
    spec['imagePullSecrets'] = accountPullSecrets.map((reference) => ({ name: reference['name'] ?? '' }));
  }
  pod['spec'] = spec;
  if (account.metadata.annotations?.[enforceMountableSecretsAnnotation] === 'true') {
    const problem = secretReferenceProblem(account, spec);
    if (problem !== undefined) throw forbidden(podsResource, podName, problem);
  }
}

/** The plugin in the admission chain: pod creates through the main resource. */
export const serviceAccountPlugin: AdmissionPlugin = {
  name: 'ServiceAccount',
  async admit(attributes, services) {
    if (attributes.operation !== 'CREATE' || attributes.subresource !== '' || attributes.object === undefined) return;
    if (attributes.kind.group !== '' || attributes.kind.resource !== 'pods') return;
    await admitPodServiceAccount(attributes.object, services.store, services.randomSuffix);
  },
};
