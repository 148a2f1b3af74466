// Owns: the subresources of a kind that replace one part of the object (namespaces/status,
// namespaces/finalize): which exist for which verbs, and how the new object is formed from the
// stored one — only that part comes from the request, everything else from the store, as in
// kube-apiserver's status and finalize strategies.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { Verb } from '../registry/kinds.ts';
import { notFound } from '../status.ts';
import type { Target } from './target.ts';

/** Throws 404 unless the target's kind serves this subresource for this verb. */
export function checkSubresource(target: Target, verb: Verb): string {
  const subresource = target.subresource!;
  const served = (target.kind.subresources ?? []).find((candidate) => candidate.name === subresource);
  if (!served || !served.verbs.includes(verb)) {
    throw notFound({ group: target.kind.group, resource: `${target.kind.resource}/${subresource}` }, target.name ?? '');
  }
  return subresource;
}

function field(object: KubeObject, name: string): Record<string, JsonValue> {
  const value = object[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, JsonValue>) : {};
}

/** The object a PUT to `subresource` stores: the stored object with only that part replaced. */
export function mergeSubresource(subresource: string, stored: KubeObject, requested: KubeObject): KubeObject {
  const merged = structuredClone(stored) as KubeObject;
  merged.metadata.resourceVersion = requested.metadata.resourceVersion ?? stored.metadata.resourceVersion ?? '';
  // certificatesigningrequests/approval also takes the request's status; the kind's strategy keeps only its conditions.
  if (subresource === 'status' || subresource === 'approval') {
    if (requested['status'] === undefined) delete merged['status'];
    else merged['status'] = requested['status'];
    return merged;
  }
  // finalize: spec.finalizers from the request (absent means none left).
  const finalizers = field(requested, 'spec')['finalizers'];
  merged['spec'] = { ...field(stored, 'spec'), finalizers: Array.isArray(finalizers) ? finalizers : [] };
  return merged;
}
