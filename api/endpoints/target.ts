// Owns: resolving a resource URL to what it names: the served kind, the namespace, the object
// name and subresource (the path shapes of the spec: core /api/v1/..., named groups
// /apis/<group>/<version>/..., cluster-scoped and namespaced, the all-namespaces collection).
// An unknown group, version or resource is the bare 404 kube-apiserver gives.
import type { CollectionKey, ObjectKey } from '../../actors/index.ts';
import { findKind, storedResourceOf } from '../registry/kinds.ts';
import type { ResourceKind } from '../registry/kinds.ts';
import { badRequest, pathNotFound } from '../status.ts';

export interface Target {
  readonly kind: ResourceKind;
  /** "" for cluster-scoped kinds and for the all-namespaces collection. */
  readonly namespace: string;
  /** Undefined for a collection. */
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

/** Splits "/api/v1/namespaces/t/configmaps/c" into its decoded segments. */
function segmentsOf(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment !== '');
  try {
    return segments.map((segment) => decodeURIComponent(segment));
  } catch {
    throw badRequest(`malformed path: ${path}`);
  }
}

export function resolveTarget(urlPath: string): Target {
  const segments = segmentsOf(urlPath);
  let group: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    rest = segments.slice(1);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1]!;
    rest = segments.slice(2);
  } else {
    throw pathNotFound();
  }
  const [version, ...path] = rest as [string, ...string[]];
  return resolveInVersion(group, version, path);
}

function resolveInVersion(group: string, version: string, path: string[]): Target {
  if (path[0] === 'namespaces' && path.length >= 3) {
    const namespacedKind = findKind(group, version, path[2]!);
    if (namespacedKind?.namespaced) {
      if (path.length > 5) throw pathNotFound();
      return { kind: namespacedKind, namespace: path[1]!, name: path[3], subresource: path[4] };
    }
  }
  const kind = findKind(group, version, path[0]!);
  if (!kind || path.length > 3) throw pathNotFound();
  if (kind.namespaced && path.length > 1) throw pathNotFound();
  return { kind, namespace: '', name: path[1], subresource: path[2] };
}

/** The stored object a target names: keys are the stored resource's (events.k8s.io events are core events). */
export function objectKey(target: Target, name: string): ObjectKey {
  const { group, resource } = storedResourceOf(target.kind);
  return { group, resource, namespace: target.namespace, name };
}

export function collectionKey(target: Target): CollectionKey {
  const { group, resource } = storedResourceOf(target.kind);
  return { group, resource, namespace: target.namespace };
}
