// Owns: what a delete decides per kind before it is proposed, as kube-apiserver's registries do
// (used by the API tier for every delete, and by the garbage collector for the dependents it
// deletes, which kube's collector deletes through the API with the default period):
//  - which kinds delete gracefully (a RESTGracefulDeleteStrategy: pods) and the grace period a
//    delete gives an object: podStrategy.CheckGracefulDelete (DeleteOptions.gracePeriodSeconds,
//    else spec.terminationGracePeriodSeconds; 0 when the pod is not bound to a node or has
//    finished, Failed or Succeeded) with generic BeforeDelete's rules (a negative period is 1;
//    for an object already being deleted only an explicitly requested period counts, and apply
//    uses it only to shorten);
//  - which kinds answer a delete with the deleted object rather than a Success Status (the
//    registry store's ReturnDeletedObject: pods).
// The delete command carries the decided period; apply stays generic and computes the
// deletionTimestamp from the command's time.
// Must not: propose, read the store or a clock.
import { gracePeriodSecondsMax } from './commands.ts';
import type { KubeObject } from './object.ts';

interface KindRef {
  readonly group: string;
  readonly resource: string;
}

function isPods(kind: KindRef): boolean {
  return kind.group === '' && kind.resource === 'pods';
}

function fieldsOf(value: unknown): Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

/** Whether the kind has graceful deletion (kube: its strategy implements CheckGracefulDelete). */
export function deletesGracefully(kind: KindRef): boolean {
  return isPods(kind);
}

/** Whether a delete answers with the deleted object (kube's ReturnDeletedObject), else a Status. */
export function returnsDeletedObject(kind: KindRef): boolean {
  return isPods(kind);
}

/**
 * The grace period to carry in the delete command of `object` (as read before proposing), or
 * undefined: for kinds without graceful deletion, and for an object already being deleted when
 * the request names no period (kube's "graceful deletion is pending, do nothing").
 * `requested` is DeleteOptions.gracePeriodSeconds (an integer) when given.
 */
export function deletionGracePeriod(kind: KindRef, object: KubeObject, requested: number | undefined): number | undefined {
  if (!deletesGracefully(kind)) return undefined;
  // BeforeDelete: "Negative values will be treated as the value `1s` on the delete path."
  const asked = requested === undefined ? undefined : requested < 0 ? 1 : requested;
  if (object.metadata.deletionTimestamp !== undefined) return asked === undefined ? undefined : bounded(asked);
  const spec = fieldsOf(object['spec']);
  const status = fieldsOf(object['status']);
  const specPeriod = spec['terminationGracePeriodSeconds'];
  let period = asked ?? (typeof specPeriod === 'number' ? specPeriod : 0);
  // Not scheduled: no kubelet runs it, so it goes at once.
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') period = 0;
  // Already terminated: nothing left to stop.
  if (status['phase'] === 'Failed' || status['phase'] === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  return bounded(period);
}

/** Whole seconds, at most gracePeriodSecondsMax (a century; kube takes any int64). */
function bounded(period: number): number {
  return Math.min(Math.trunc(period), gracePeriodSecondsMax);
}
