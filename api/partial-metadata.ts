// Owns: the metadata-only representations kube-apiserver serves on request
// (Accept ...;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1), which client-go's
// metadata client and metadata informers (the garbage collector, the namespace controller,
// quota) ask for: an object becomes `PartialObjectMetadata` holding only its metadata; a list
// becomes `PartialObjectMetadataList` with the list's metadata and one such item per object.
// Asking for the item form of a list, or the list form of an item, is 406 as in kube's
// response.go.
import type { KubeObject } from '../actors/index.ts';
import type { MetadataFormat } from './negotiation.ts';
import type { ResourceKind } from './registry/kinds.ts';
import { notAcceptable } from './status.ts';

/** Go's name of the internal type kube would be converting (for the 406 messages). */
function goType(kind: ResourceKind, list: boolean): string {
  const internalPackage = kind.group === '' ? 'core' : kind.group.split('.')[0];
  return `*${internalPackage}.${kind.kind}${list ? 'List' : ''}`;
}

/** 406 unless `format` asks for the item form (get, and each object of a watch). */
export function requireItemForm(format: MetadataFormat, kind: ResourceKind): void {
  if (format.kind !== 'PartialObjectMetadata') throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${goType(kind, false)})`);
}

export function partialObjectMetadata(format: MetadataFormat, kind: ResourceKind, object: Pick<KubeObject, 'metadata'>): Record<string, unknown> {
  requireItemForm(format, kind);
  return { kind: 'PartialObjectMetadata', apiVersion: format.apiVersion, metadata: object.metadata };
}

export function partialObjectMetadataList(format: MetadataFormat, kind: ResourceKind, items: readonly KubeObject[], listMeta: Record<string, unknown>): Record<string, unknown> {
  if (format.kind !== 'PartialObjectMetadataList') throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${goType(kind, true)})`);
  return {
    kind: 'PartialObjectMetadataList', apiVersion: format.apiVersion, metadata: listMeta,
    items: items.map((item) => ({ kind: 'PartialObjectMetadata', apiVersion: format.apiVersion, metadata: item.metadata })),
  };
}
