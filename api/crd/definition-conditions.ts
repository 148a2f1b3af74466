// Owns: the status a CustomResourceDefinition's controllers write, as pure functions of the CRD
// (and the other CRDs of its group) and the time: the names kube's NamingConditionController
// accepts and its NamesAccepted condition (with Established set to NotAccepted/Installing), the
// EstablishingController's Established condition, and the Terminating condition the delete path
// and the CRDFinalizer set; conditions are set as apihelpers.SetCRDCondition does (a condition's
// lastTransitionTime moves only when its status changes). Reasons and messages are kube's.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { aggregateMessage } from './definition-go.ts';
import { fieldsOf, isFields, listOf, objectField, textOf } from './definition-internal.ts';
import type { Fields } from './definition-internal.ts';
import { hasInvalidCaBundle } from './definition-webhook.ts';

/** The finalizer that holds a deleted CRD until its objects are gone. */
export const cleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

/** One status.conditions item; `lastTransitionTime`, `reason` and `message` are set by every writer here. */
export type CrdCondition = { type: string; status: string; [field: string]: JsonValue };

/** status.acceptedNames (CustomResourceDefinitionNames: plural and kind always written, the rest when set). */
export type CrdNames = { plural: string; kind: string; [field: string]: JsonValue };

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** The conditions of a status object, or of a conditions list itself. */
function conditionsOf(statusOrConditions: unknown): CrdCondition[] {
  const value = statusOrConditions as JsonValue | undefined;
  const listed = Array.isArray(value) ? value : listOf(fieldsOf(value)['conditions']) ?? [];
  return listed.filter(isFields).map((condition) => ({ ...condition, type: textOf(condition['type']), status: textOf(condition['status']) }));
}

function findCondition(conditions: readonly CrdCondition[], type: string): CrdCondition | undefined {
  return conditions.find((condition) => condition.type === type);
}

function isConditionTrue(conditions: readonly CrdCondition[], type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * apihelpers.SetCRDCondition: a new condition is appended with lastTransitionTime `now`; an
 * existing one takes the new status, reason and message, and `now` only when its status
 * changes or it had no time. Returns a new list.
 */
export function setCondition(
  statusOrConditions: unknown, condition: { readonly type: string; readonly status: ConditionStatus; readonly reason: string; readonly message: string }, now: string,
): CrdCondition[] {
  const conditions = conditionsOf(statusOrConditions);
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  if (index < 0) {
    return [...conditions, { type: condition.type, status: condition.status, lastTransitionTime: now, reason: condition.reason, message: condition.message }];
  }
  const existing = conditions[index]!;
  const time = existing['lastTransitionTime'];
  const moved = existing.status !== condition.status || typeof time !== 'string' || time === '';
  conditions[index] = { ...existing, status: condition.status, lastTransitionTime: moved ? now : time, reason: condition.reason, message: condition.message };
  return conditions;
}

/** The v1 CustomResourceDefinitionNames JSON, in Go's field order, omitting what Go omits. */
function namesJson(names: Fields): CrdNames {
  const result: CrdNames = { plural: textOf(names['plural']), kind: '' };
  const singular = textOf(names['singular']);
  const shortNames = listOf(names['shortNames']) ?? [];
  const listKind = textOf(names['listKind']);
  const categories = listOf(names['categories']) ?? [];
  const ordered: Fields = {
    plural: result.plural,
    ...(singular !== '' ? { singular } : {}),
    ...(shortNames.length > 0 ? { shortNames: [...shortNames] } : {}),
    kind: textOf(names['kind']),
    ...(listKind !== '' ? { listKind } : {}),
    ...(categories.length > 0 ? { categories: [...categories] } : {}),
  };
  return ordered as CrdNames;
}

function sameStrings(left: readonly JsonValue[] | undefined, right: readonly JsonValue[] | undefined): boolean {
  const a = left ?? [];
  const b = right ?? [];
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** equality.Semantic.DeepEqual of two CustomResourceDefinitionNames (an empty list equals none). */
function sameNames(left: Fields, right: Fields): boolean {
  return ['plural', 'singular', 'kind', 'listKind'].every((key) => textOf(left[key]) === textOf(right[key]))
    && sameStrings(listOf(left['shortNames']), listOf(right['shortNames']))
    && sameStrings(listOf(left['categories']), listOf(right['categories']));
}

/** The error equalToAcceptedOrFresh returns, or undefined: a name is fine if already ours or unused in the group. */
function nameConflict(requested: string, accepted: string, used: ReadonlySet<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

export interface NamingStatus {
  readonly acceptedNames: CrdNames;
  readonly conditions: CrdCondition[];
}

/**
 * What kube's NamingConditionController writes for `crd`, given the other CRDs (those of another
 * group are ignored): the names it may have (each requested name unless another CRD of the group
 * accepted it), NamesAccepted (True/NoConflicts, or False with the reason of the last conflict:
 * PluralConflict, SingularConflict, ShortNamesConflict, KindConflict, ListKindConflict), and
 * Established (kept when True; else False: Installing once the names are accepted, NotAccepted
 * while they are not). When the spec's names are already the accepted ones, or nothing would
 * change, the CRD's own acceptedNames and conditions come back unchanged.
 */
export function namingStatus(crd: KubeObject, others: readonly KubeObject[], now: string): NamingStatus {
  const spec = objectField(crd, 'spec');
  const status = objectField(crd, 'status');
  const requested = fieldsOf(spec['names']);
  const accepted = fieldsOf(status['acceptedNames']);
  const current: NamingStatus = { acceptedNames: namesJson(accepted), conditions: conditionsOf(status) };
  if (sameNames(requested, accepted)) return current;

  // getAcceptedNamesForGroup: the accepted names of every CRD of the group, this one included.
  const group = textOf(spec['group']);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  const sameGroup = [crd, ...others.filter((other) => other.metadata.name !== crd.metadata.name)]
    .filter((other) => textOf(objectField(other, 'spec')['group']) === group);
  for (const other of sameGroup) {
    const names = fieldsOf(objectField(other, 'status')['acceptedNames']);
    resources.add(textOf(names['plural']));
    resources.add(textOf(names['singular']));
    for (const shortName of listOf(names['shortNames']) ?? []) resources.add(textOf(shortName));
    kinds.add(textOf(names['kind']));
    kinds.add(textOf(names['listKind']));
  }

  let namesAccepted: { status: ConditionStatus; reason: string; message: string } = { status: 'Unknown', reason: '', message: '' };
  const conflict = (reason: string, message: string): void => {
    namesAccepted = { status: 'False', reason, message };
  };
  const next: Fields = { ...accepted };
  const check = (key: string, used: ReadonlySet<string>, reason: string): void => {
    const problem = nameConflict(textOf(requested[key]), textOf(accepted[key]), used);
    if (problem !== undefined) conflict(reason, problem);
    else next[key] = textOf(requested[key]);
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  const requestedShortNames = listOf(requested['shortNames']) ?? [];
  const acceptedShortNames = listOf(accepted['shortNames']) ?? [];
  if (!sameStrings(requestedShortNames, acceptedShortNames)) {
    const ours = new Set(acceptedShortNames.map(textOf));
    const problems = requestedShortNames.map(textOf).flatMap((shortName) => {
      if (ours.has(shortName)) return [];
      const problem = nameConflict(shortName, '', resources);
      return problem === undefined ? [] : [problem];
    });
    if (problems.length > 0) conflict('ShortNamesConflict', aggregateMessage(problems));
    else next['shortNames'] = [...requestedShortNames];
  }
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  next['categories'] = [...(listOf(requested['categories']) ?? [])];
  const finalNamesAccepted = namesAccepted as { status: ConditionStatus; reason: string; message: string };
  const namingCondition = finalNamesAccepted.status === 'Unknown'
    ? { type: 'NamesAccepted', status: 'True' as const, reason: 'NoConflicts', message: 'no conflicts found' }
    : { type: 'NamesAccepted', ...finalNamesAccepted };
  const acceptedNames = namesJson(next);

  // Nothing to write when the accepted names and NamesAccepted (times aside) are unchanged.
  const existing = findCondition(current.conditions, 'NamesAccepted');
  if (sameNames(next, accepted) && existing !== undefined && existing.status === namingCondition.status
    && textOf(existing['reason']) === namingCondition.reason && textOf(existing['message']) === namingCondition.message) {
    return current;
  }

  const previousEstablished = findCondition(current.conditions, 'Established');
  let established: { type: string; status: ConditionStatus; reason: string; message: string } = previousEstablished === undefined
    ? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }
    : {
      type: 'Established', status: previousEstablished.status as ConditionStatus,
      reason: textOf(previousEstablished['reason']), message: textOf(previousEstablished['message']),
    };
  if (established.status !== 'True' && namingCondition.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  const withNaming = setCondition(current.conditions, namingCondition, now);
  return { acceptedNames, conditions: setCondition(withNaming, established, now) };
}

/**
 * What kube's EstablishingController writes: once NamesAccepted is True and Established is not,
 * Established True (InitialNamesAccepted), or False (InvalidCABundle) when the CRD's conversion
 * webhook carries a caBundle client-go refuses. Otherwise the conditions come back unchanged.
 * Takes the conditions list (or a status object holding it).
 */
export function establishedCondition(statusOrConditions: unknown, now: string, crd?: KubeObject): CrdCondition[] {
  const conditions = conditionsOf(statusOrConditions);
  if (!isConditionTrue(conditions, 'NamesAccepted') || isConditionTrue(conditions, 'Established')) return conditions;
  const clientConfig = crd === undefined ? undefined : fieldsOf(fieldsOf(objectField(crd, 'spec')['conversion'])['webhook'])['clientConfig'];
  if (clientConfig !== undefined && hasInvalidCaBundle(clientConfig)) {
    return setCondition(conditions, { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' }, now);
  }
  return setCondition(conditions, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
}

/** The reasons of the Terminating condition: the delete path's, then the CRDFinalizer's. */
export type TerminatingReason =
  | 'InstanceDeletionPending' | 'InstanceDeletionInProgress' | 'InstanceDeletionFailed' | 'InstanceDeletionCheck'
  | 'InstanceDeletionCompleted' | 'OverlappingBuiltInResource' | 'NeverEstablished';

const terminatingConditions: Readonly<Record<TerminatingReason, { readonly status: ConditionStatus; readonly message: string }>> = {
  InstanceDeletionPending: { status: 'True', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' },
  InstanceDeletionInProgress: { status: 'True', message: 'CustomResource deletion is in progress' },
  // The failures carry the error: "could not list instances: …", "could not issue all deletes: …".
  InstanceDeletionFailed: { status: 'True', message: 'could not issue all deletes' },
  InstanceDeletionCheck: { status: 'True', message: 'could not confirm zero CustomResources remaining' },
  InstanceDeletionCompleted: { status: 'False', message: 'removed all instances' },
  OverlappingBuiltInResource: { status: 'False', message: 'instances overlap with built-in resources in storage' },
  NeverEstablished: { status: 'False', message: 'resource was never established' },
};

/**
 * The conditions with Terminating set for `reason` (kube's status and message for it; `message`
 * replaces the message, for the failure reasons, whose kube message carries the error).
 * Takes a status object (or the conditions list itself).
 */
export function terminatingCondition(statusOrConditions: unknown, now: string, reason: TerminatingReason, message?: string): CrdCondition[] {
  const known = terminatingConditions[reason];
  return setCondition(statusOrConditions, { type: 'Terminating', status: known.status, reason, message: message ?? known.message }, now);
}

/** Group/resources whose objects a CRD's finalizer does not delete (they are built-in storage too). */
const overlappingBuiltInResources = new Set(['apiregistration.k8s.io/apiservices', 'apiextensions.k8s.io/customresourcedefinitions']);

/**
 * What the CRDFinalizer does once the CRD is marked (InstanceDeletionInProgress written):
 * 'skip' (OverlappingBuiltInResource) when its group/plural is built-in storage, 'delete' the
 * objects when it is Established, else 'skip' (NeverEstablished). The reason is the one the
 * final Terminating condition carries when nothing is to be deleted.
 */
export function finalizerPlan(crd: KubeObject): { readonly action: 'delete' } | { readonly action: 'skip'; readonly reason: 'OverlappingBuiltInResource' | 'NeverEstablished' } {
  const spec = objectField(crd, 'spec');
  const plural = textOf(fieldsOf(spec['names'])['plural']);
  if (overlappingBuiltInResources.has(`${textOf(spec['group'])}/${plural}`)) return { action: 'skip', reason: 'OverlappingBuiltInResource' };
  if (isConditionTrue(conditionsOf(objectField(crd, 'status')), 'Established')) return { action: 'delete' };
  return { action: 'skip', reason: 'NeverEstablished' };
}

/**
 * kube's CRD REST Delete on a CRD not yet being deleted, in place: the deletion timestamp (when
 * unset), the cleanup finalizer, and Terminating True (InstanceDeletionPending). The object is
 * then updated, not removed; the finalizer controller deletes its objects and lets it go.
 */
export function markForDeletion(crd: KubeObject, now: string): void {
  if (crd.metadata.deletionTimestamp === undefined || crd.metadata.deletionTimestamp === '') crd.metadata.deletionTimestamp = now;
  const finalizers = crd.metadata.finalizers ?? [];
  if (!finalizers.includes(cleanupFinalizer)) crd.metadata.finalizers = [...finalizers, cleanupFinalizer];
  const status = objectField(crd, 'status');
  crd['status'] = { ...status, conditions: terminatingCondition(status, now, 'InstanceDeletionPending') };
}
