// Owns: the conversion between the two served forms of one stored Event. kube-apiserver stores a
// single resource `events` (key /registry/events/<ns>/<name>, as core/v1 Event) and serves it
// under /api/v1 and /apis/events.k8s.io/v1; k8s.io/kubernetes pkg/apis/events/v1/conversion.go
// maps the groups' field names through the internal core Event:
//
//   events.k8s.io/v1                 core/v1
//   regarding                   ↔    involvedObject
//   note                        ↔    message
//   reportingController         ↔    reportingComponent
//   deprecatedSource            ↔    source
//   deprecatedFirstTimestamp    ↔    firstTimestamp
//   deprecatedLastTimestamp     ↔    lastTimestamp
//   deprecatedCount             ↔    count
//   eventTime, series, action, reason, related, type, reportingInstance: same names
//
// and AddFieldLabelConversionsForEvent maps the events.k8s.io field selector labels to the core
// ones (regarding.* → involvedObject.*, reportingController → reportingComponent; reason, type,
// source, metadata.name and metadata.namespace as they are). Pure functions; they never throw, so
// a stored object with wrong types reaches the served kind's decode check (the corrupt-object
// path) rather than failing here. Fields either form leaves unset (JSON null, "", a zero count)
// are omitted, and fields neither form knows are dropped, as a decode and re-encode would.
import type { KubeObject } from '../../actors/index.ts';

type Fields = Record<string, unknown>;

/** [events.k8s.io/v1 name, core/v1 name], in the events.k8s.io/v1 type's field order. */
const eventsToCore: readonly (readonly [string, string])[] = [
  ['eventTime', 'eventTime'], ['series', 'series'], ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'], ['action', 'action'], ['reason', 'reason'],
  ['regarding', 'involvedObject'], ['related', 'related'], ['note', 'message'], ['type', 'type'],
  ['deprecatedSource', 'source'], ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'], ['deprecatedCount', 'count'],
];

/** [events.k8s.io/v1 name, core/v1 name], in the core/v1 type's field order. */
const eventsToCoreInCoreOrder: readonly (readonly [string, string])[] = [
  'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type',
  'eventTime', 'series', 'action', 'related', 'reportingComponent', 'reportingInstance',
].map((core) => [eventsToCore.find(([, name]) => name === core)![0], core] as const);

/** [core/v1 name, events.k8s.io/v1 name], in the events.k8s.io/v1 type's field order. */
const coreToEvents: readonly (readonly [string, string])[] = eventsToCore.map(([events, core]) => [core, events] as const);

/** The object reference each form always carries (a struct, not omitempty, in both Go types). */
const subjectField = new Set(['involvedObject', 'regarding']);
const countField = new Set(['count', 'deprecatedCount']);

/** What an encoder leaves out or writes as null: unset in the other form too. */
function unset(name: string, value: unknown): boolean {
  return value === undefined || value === null || value === '' || (value === 0 && countField.has(name));
}

function fieldsOf(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

/** `object` renamed field by field through `pairs` ([from, to], in the target type's order). */
function renamed(object: KubeObject, apiVersion: string, pairs: readonly (readonly [string, string])[], copy: <T>(value: T) => T): KubeObject {
  const source = fieldsOf(object);
  const result: Fields = { apiVersion, kind: 'Event' };
  if (source['metadata'] !== undefined) result['metadata'] = copy(source['metadata']);
  for (const [from, to] of pairs) {
    const value = source[from];
    if (!unset(from, value)) result[to] = copy(value);
    else if (subjectField.has(to)) result[to] = {};
  }
  return result as unknown as KubeObject;
}

const deepCopy = <T>(value: T): T => structuredClone(value);
const shared = <T>(value: T): T => value;

/** events.k8s.io/v1 Event → the stored core/v1 Event (Convert_v1_Event_To_core_Event). A copy. */
export function eventsV1ToCore(object: KubeObject): KubeObject {
  return renamed(object, 'v1', eventsToCoreInCoreOrder, deepCopy);
}

/** The stored core/v1 Event → events.k8s.io/v1 Event (Convert_core_Event_To_v1_Event). A copy. */
export function coreToEventsV1(object: KubeObject): KubeObject {
  return renamed(object, 'events.k8s.io/v1', coreToEvents, deepCopy);
}

/** An events.k8s.io/v1 Event read in core/v1 names without copying (printers, selectors). */
export function coreViewOf(object: Record<string, unknown>): Record<string, unknown> {
  return renamed(object as unknown as KubeObject, 'v1', eventsToCoreInCoreOrder, shared) as unknown as Record<string, unknown>;
}

/**
 * core's EventToSelectableFields (pkg/registry/core/event/strategy.go) over the stored form:
 * `source` is source.component, else the reporting controller.
 */
export function coreEventSelectableFields(object: Record<string, unknown>): Readonly<Record<string, string>> {
  const event = fieldsOf(object);
  const involved = fieldsOf(event['involvedObject']);
  const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));
  const component = text(fieldsOf(event['source'])['component']);
  return {
    'involvedObject.kind': text(involved['kind']),
    'involvedObject.namespace': text(involved['namespace']),
    'involvedObject.name': text(involved['name']),
    'involvedObject.uid': text(involved['uid']),
    'involvedObject.apiVersion': text(involved['apiVersion']),
    'involvedObject.resourceVersion': text(involved['resourceVersion']),
    'involvedObject.fieldPath': text(involved['fieldPath']),
    reason: text(event['reason']),
    reportingComponent: text(event['reportingComponent']),
    source: component === '' ? text(event['reportingComponent']) : component,
    type: text(event['type']),
  };
}

/** core/v1 field selector labels (AddFieldLabelConversionsForEvent of core/v1, beyond metadata.*). */
export const coreEventFieldLabels = [
  'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
  'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath',
  'reason', 'reportingComponent', 'source', 'type',
] as const;

/** events.k8s.io/v1 field selector labels and the core label each is converted to (beyond metadata.*). */
export const eventsV1FieldLabels: Readonly<Record<string, (typeof coreEventFieldLabels)[number]>> = {
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
  reason: 'reason',
  source: 'source',
  type: 'type',
};

/** The core/v1 kind's field selectors: kube's core label set, over the stored (core) form. */
export const coreEventFieldSelectors: Readonly<Record<string, (object: Record<string, unknown>) => string>> = Object.fromEntries(
  coreEventFieldLabels.map((label) => [label, (object: Record<string, unknown>) => coreEventSelectableFields(object)[label] ?? '']),
);

/** The events.k8s.io/v1 kind's field selectors: each label converted to core's, evaluated as core evaluates it. */
export const eventsV1FieldSelectors: Readonly<Record<string, (object: Record<string, unknown>) => string>> = Object.fromEntries(
  Object.entries(eventsV1FieldLabels).map(([label, core]) => [label, (object: Record<string, unknown>) => coreEventSelectableFields(coreViewOf(object))[core] ?? '']),
);
