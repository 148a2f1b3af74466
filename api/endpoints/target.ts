// Owns: resolving a resource URL to what it names: the served kind, the namespace, the object
// name and subresource (the path shapes of the spec: core /api/v1/..., named groups
// /apis/<group>/<version>/..., cluster-scoped and namespaced, the all-namespaces collection).
// An unknown group, version or resource is the bare 404 kube-apiserver gives.
import type { CollectionKey, ObjectKey } from '../../actors/index.ts';
import { findKind, storedResourceOf } from '../registry/kinds.ts';
import type { ResourceKind } from '../registry/kinds.ts';
import type { KindLookup } from '../registry/kind-registry.ts';

/** The built-in kinds alone (a server without custom resources, and unit tests of parsing). */
export const builtinKinds: KindLookup = { find: findKind };

export interface Target {
  readonly kind: ResourceKind;
  /** "" for cluster-scoped kinds and for the all-namespaces collection. */
  readonly namespace: string;
  /** Undefined for a collection. */
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

/** The parts of a request's classification a target is resolved from. */
export interface TargetRequest {
  readonly isResourceRequest: boolean;
  readonly verb: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  /** The path segments from the resource on: resource/name/subresource. */
  readonly parts: readonly string[];
}

/** The subresource under which a path follows the name: `<resource>/<name>/proxy/<path>`. */
export const proxySubresource = 'proxy';

/**
 * The served kind and object a classified request names (request-info.ts calls this once per
 * request), or undefined when it names none: an unknown group, version or resource, a
 * cluster-scoped kind under a namespace, a namespaced kind's item without one, or a path
 * deeper than resource/name/subresource (except under a kind's `proxy` subresource).
 */
export function resolveTarget(request: TargetRequest, kinds: KindLookup = builtinKinds): Target | undefined {
  if (!request.isResourceRequest || request.resource === '' || request.verb === 'proxy') return undefined;
  const kind = kinds.find(request.apiGroup, request.apiVersion, request.resource);
  if (kind === undefined) return undefined;
  const name = request.parts[1];
  const subresource = request.parts[2];
  // Only a proxy subresource takes a path after it (pods/<name>/proxy/<path>, as kube's connecters).
  if (request.parts.length > 3 && !(subresource === proxySubresource && (kind.subresources ?? []).some((served) => served.name === proxySubresource))) return undefined;
  if (kind.namespaced) {
    // The all-namespaces collection has no namespace; an item always has one.
    if (request.namespace === '' && name !== undefined) return undefined;
  } else if (request.namespace !== '' && !(kind.group === '' && kind.resource === 'namespaces' && request.namespace === name)) {
    return undefined;
  }
  return { kind, namespace: kind.namespaced ? request.namespace : '', name, subresource };
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
