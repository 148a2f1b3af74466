// Owns: the shared stages of a write before it is proposed (kube-apiserver's create/update
// handlers and BeforeCreate/BeforeUpdate): URL/body consistency, structural validation,
// server-set metadata, the kind's strategy, and semantic validation (422 with causes).
import type { KubeObject } from '../../actors/index.ts';
import type { UserInfo } from '../auth/authn.ts';
import { invalidValue, metadataCauses, validateStructure } from '../registry/validation.ts';
import type { FieldChecks } from '../registry/validation.ts';
import { badRequest, invalid } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { formatTime } from './context.ts';
import type { Target } from './target.ts';

/** Checks the body's namespace against the URL and sets it (cleared for cluster-scoped kinds). */
export function settleNamespace(object: KubeObject, target: Target): void {
  const bodyNamespace = object.metadata.namespace;
  if (!target.kind.namespaced) {
    delete object.metadata.namespace;
    return;
  }
  if (bodyNamespace !== undefined && bodyNamespace !== '' && bodyNamespace !== target.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  object.metadata.namespace = target.namespace;
}

/** Server-owned metadata of a new object; generateName is resolved by the caller. */
export function stampNewObject(object: KubeObject, context: EndpointContext): void {
  const metadata = object.metadata;
  metadata.uid = context.newUid();
  metadata.creationTimestamp = formatTime(context.now());
  delete metadata.resourceVersion;
  delete metadata.deletionTimestamp;
  delete metadata.deletionGracePeriodSeconds;
  delete metadata.selfLink;
  if (metadata.generation !== undefined) metadata.generation = 1;
}

function rejectIfInvalid(object: KubeObject, target: Target, causes: ReturnType<typeof metadataCauses>): void {
  if (causes.length > 0) throw invalid(target.kind.group, target.kind.kind, object.metadata.name ?? object.metadata.generateName ?? '', causes);
}

/** Validates and normalises a new object; returns the warnings for the response. */
export function prepareCreate(object: KubeObject, target: Target, checks: FieldChecks, context: EndpointContext, user: UserInfo): string[] {
  settleNamespace(object, target);
  const warnings = validateStructure(target.kind, object, checks);
  stampNewObject(object, context);
  const strategy = target.kind.strategy;
  strategy.prepareForCreate?.(object, { user });
  rejectIfInvalid(object, target, [...metadataCauses(object, target.kind.nameRule), ...(strategy.validate?.(object) ?? []), ...(strategy.validateCreate?.(object) ?? [])]);
  return warnings;
}

/** Validates and normalises a replacement of `old`; returns the warnings for the response. */
export function prepareUpdate(object: KubeObject, old: KubeObject, target: Target, checks: FieldChecks, subresource?: string): string[] {
  settleNamespace(object, target);
  const warnings = validateStructure(target.kind, object, checks);
  const metadata = object.metadata;
  // ValidateObjectMetaUpdate: the uid is immutable (a PUT's uid was already its precondition).
  const uidCauses = metadata.uid !== undefined && metadata.uid !== '' && metadata.uid !== old.metadata.uid
    ? [invalidValue('metadata.uid', metadata.uid, 'field is immutable')] : [];
  metadata.uid = old.metadata.uid ?? '';
  metadata.creationTimestamp = old.metadata.creationTimestamp ?? '';
  if (old.metadata.deletionTimestamp !== undefined) metadata.deletionTimestamp = old.metadata.deletionTimestamp;
  else delete metadata.deletionTimestamp;
  if (old.metadata.generation !== undefined) metadata.generation = old.metadata.generation;
  delete metadata.selfLink;
  const strategy = target.kind.strategy;
  // A subresource write already took everything but its own part from the stored object.
  if (subresource === undefined) strategy.prepareForUpdate?.(object, old);
  else strategy.prepareForSubresourceUpdate?.(subresource, object, old);
  rejectIfInvalid(object, target, [
    ...uidCauses,
    ...metadataCauses(object, target.kind.nameRule),
    ...(strategy.validate?.(object) ?? []),
    ...(strategy.validateUpdate?.(object, old, subresource) ?? []),
  ]);
  return warnings;
}
