// Owns: the conversion between the two served forms of one stored HorizontalPodAutoscaler.
// kube-apiserver stores horizontalpodautoscalers as autoscaling/v2 and serves autoscaling/v1 as
// a converted view (k8s.io/kubernetes pkg/apis/autoscaling/v1/conversion.go through the
// internal type):
//
//   autoscaling/v1                         autoscaling/v2
//   spec.targetCPUUtilizationPercentage ↔  a Resource metric for cpu with an Utilization target
//   status.currentCPUUtilizationPercentage ↔ the cpu Resource metric's current averageUtilization
//   scaleTargetRef, min/maxReplicas, observedGeneration, lastScaleTime, current/desiredReplicas: same
//
// What v1 cannot express travels in annotations, so a v1 client that reads an object and
// writes it back loses nothing: the other metrics (autoscaling.alpha.kubernetes.io/metrics, in
// the v1 MetricSpec shape: metricName, targetAverageUtilization, ...), the current metrics
// (…/current-metrics), the behavior (…/behavior, the internal Go type marshalled without json
// tags: ScaleUp, StabilizationWindowSeconds, ...) and the conditions (…/conditions). Reading
// back, those annotations are turned into fields and removed; a v1 object with no metric at
// all gets the cpu utilization default (80%) kube applies. The stored form also gets the v2
// defaults kube applies when it decodes a stored v2 object (minReplicas 1, the cpu metric, the
// behavior's unset rules filled). Pure functions that never throw (a malformed annotation is
// ignored), returning copies.
import type { KubeObject } from '../../actors/index.ts';

type Fields = Record<string, unknown>;

export const metricSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const metricStatusesAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
/** kube's autoscaling.DefaultCPUUtilization. */
export const defaultCpuUtilization = 80;

const roundTripAnnotations = [metricSpecsAnnotation, behaviorAnnotation, metricStatusesAnnotation, conditionsAnnotation];

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fields(value: unknown): Fields {
  return isFields(value) ? value : {};
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function listOf(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter(isFields) : [];
}

/** Copies `from[key]` to `to[as]` when it is set. */
function copySet(to: Fields, as: string, from: Fields, key: string): void {
  if (isSet(from[key])) to[as] = structuredClone(from[key]);
}

/** A resource.Quantity that is a plain struct (not a pointer) in Go: unset marshals as "0". */
function quantityOrZero(from: Fields, key: string): unknown {
  return isSet(from[key]) ? structuredClone(from[key]) : '0';
}

function reference(ref: unknown): Fields {
  const source = fields(ref);
  const result: Fields = { kind: source['kind'] ?? '', name: source['name'] ?? '' };
  copySet(result, 'apiVersion', source, 'apiVersion');
  return result;
}

function isCpuUtilization(metric: Fields): boolean {
  const resource = fields(metric['resource']);
  return metric['type'] === 'Resource' && resource['name'] === 'cpu' && isSet(fields(resource['target'])['averageUtilization']);
}

// --- metric specs and statuses, v2 shape ↔ v1 (annotation) shape ---------------------------

function identifierOf(source: Fields): { readonly name: unknown; readonly selector: unknown } {
  const metric = fields(source['metric']);
  return { name: metric['name'] ?? '', selector: metric['selector'] };
}

function v1Identifier(source: Fields, nameKey: string, selectorKey: string): Fields {
  const result: Fields = { name: source[nameKey] ?? '' };
  copySet(result, 'selector', source, selectorKey);
  return result;
}

function metricSpecToV1(metric: Fields): Fields {
  const result: Fields = { type: metric['type'] ?? '' };
  if (isFields(metric['object'])) {
    const source = metric['object'];
    const target = fields(source['target']);
    const { name, selector } = identifierOf(source);
    const object: Fields = { target: reference(source['describedObject']), metricName: name, targetValue: quantityOrZero(target, 'value') };
    if (isSet(selector)) object['selector'] = structuredClone(selector);
    copySet(object, 'averageValue', target, 'averageValue');
    result['object'] = object;
  }
  if (isFields(metric['pods'])) {
    const source = metric['pods'];
    const { name, selector } = identifierOf(source);
    const pods: Fields = { metricName: name, targetAverageValue: quantityOrZero(fields(source['target']), 'averageValue') };
    if (isSet(selector)) pods['selector'] = structuredClone(selector);
    result['pods'] = pods;
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isFields(metric[key])) continue;
    const source = metric[key];
    const target = fields(source['target']);
    const converted: Fields = { name: source['name'] ?? '' };
    copySet(converted, 'targetAverageUtilization', target, 'averageUtilization');
    copySet(converted, 'targetAverageValue', target, 'averageValue');
    if (key === 'containerResource') converted['container'] = source['container'] ?? '';
    result[key] = converted;
  }
  if (isFields(metric['external'])) {
    const source = metric['external'];
    const target = fields(source['target']);
    const { name, selector } = identifierOf(source);
    const external: Fields = { metricName: name };
    if (isSet(selector)) external['metricSelector'] = structuredClone(selector);
    copySet(external, 'targetValue', target, 'value');
    copySet(external, 'targetAverageValue', target, 'averageValue');
    result['external'] = external;
  }
  return result;
}

function metricSpecFromV1(metric: Fields): Fields {
  const result: Fields = { type: metric['type'] ?? '' };
  if (isFields(metric['object'])) {
    const source = metric['object'];
    const target: Fields = { type: isSet(source['averageValue']) ? 'AverageValue' : 'Value', value: quantityOrZero(source, 'targetValue') };
    copySet(target, 'averageValue', source, 'averageValue');
    result['object'] = { describedObject: reference(source['target']), metric: v1Identifier(source, 'metricName', 'selector'), target };
  }
  if (isFields(metric['pods'])) {
    const source = metric['pods'];
    result['pods'] = { metric: v1Identifier(source, 'metricName', 'selector'), target: { type: 'AverageValue', averageValue: quantityOrZero(source, 'targetAverageValue') } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isFields(metric[key])) continue;
    const source = metric[key];
    const target: Fields = { type: isSet(source['targetAverageUtilization']) ? 'Utilization' : 'AverageValue' };
    copySet(target, 'averageUtilization', source, 'targetAverageUtilization');
    copySet(target, 'averageValue', source, 'targetAverageValue');
    const converted: Fields = { name: source['name'] ?? '' };
    if (key === 'containerResource') converted['container'] = source['container'] ?? '';
    converted['target'] = target;
    result[key] = converted;
  }
  if (isFields(metric['external'])) {
    const source = metric['external'];
    const target: Fields = { type: isSet(source['targetValue']) ? 'Value' : 'AverageValue' };
    copySet(target, 'value', source, 'targetValue');
    copySet(target, 'averageValue', source, 'targetAverageValue');
    result['external'] = { metric: v1Identifier(source, 'metricName', 'metricSelector'), target };
  }
  return result;
}

function metricStatusToV1(metric: Fields): Fields {
  const result: Fields = { type: metric['type'] ?? '' };
  if (isFields(metric['object'])) {
    const source = metric['object'];
    const current = fields(source['current']);
    const { name, selector } = identifierOf(source);
    const object: Fields = { target: reference(source['describedObject']), metricName: name, currentValue: quantityOrZero(current, 'value') };
    if (isSet(selector)) object['selector'] = structuredClone(selector);
    copySet(object, 'averageValue', current, 'averageValue');
    result['object'] = object;
  }
  if (isFields(metric['pods'])) {
    const source = metric['pods'];
    const { name, selector } = identifierOf(source);
    const pods: Fields = { metricName: name, currentAverageValue: quantityOrZero(fields(source['current']), 'averageValue') };
    if (isSet(selector)) pods['selector'] = structuredClone(selector);
    result['pods'] = pods;
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isFields(metric[key])) continue;
    const source = metric[key];
    const current = fields(source['current']);
    const converted: Fields = { name: source['name'] ?? '' };
    copySet(converted, 'currentAverageUtilization', current, 'averageUtilization');
    converted['currentAverageValue'] = quantityOrZero(current, 'averageValue');
    if (key === 'containerResource') converted['container'] = source['container'] ?? '';
    result[key] = converted;
  }
  if (isFields(metric['external'])) {
    const source = metric['external'];
    const current = fields(source['current']);
    const { name, selector } = identifierOf(source);
    const external: Fields = { metricName: name };
    if (isSet(selector)) external['metricSelector'] = structuredClone(selector);
    external['currentValue'] = quantityOrZero(current, 'value');
    copySet(external, 'currentAverageValue', current, 'averageValue');
    result['external'] = external;
  }
  return result;
}

function metricStatusFromV1(metric: Fields): Fields {
  const result: Fields = { type: metric['type'] ?? '' };
  if (isFields(metric['object'])) {
    const source = metric['object'];
    const current: Fields = { value: quantityOrZero(source, 'currentValue') };
    copySet(current, 'averageValue', source, 'averageValue');
    result['object'] = { metric: v1Identifier(source, 'metricName', 'selector'), current, describedObject: reference(source['target']) };
  }
  if (isFields(metric['pods'])) {
    const source = metric['pods'];
    result['pods'] = { metric: v1Identifier(source, 'metricName', 'selector'), current: { averageValue: quantityOrZero(source, 'currentAverageValue') } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isFields(metric[key])) continue;
    const source = metric[key];
    const current: Fields = { averageValue: quantityOrZero(source, 'currentAverageValue') };
    copySet(current, 'averageUtilization', source, 'currentAverageUtilization');
    const converted: Fields = { name: source['name'] ?? '' };
    if (key === 'containerResource') converted['container'] = source['container'] ?? '';
    converted['current'] = current;
    result[key] = converted;
  }
  if (isFields(metric['external'])) {
    const source = metric['external'];
    const current: Fields = { value: quantityOrZero(source, 'currentValue') };
    copySet(current, 'averageValue', source, 'currentAverageValue');
    result['external'] = { metric: v1Identifier(source, 'metricName', 'metricSelector'), current };
  }
  return result;
}

// --- behavior, as the internal Go type marshals without json tags ---------------------------

const goRuleNames: readonly (readonly [string, string])[] = [
  ['stabilizationWindowSeconds', 'StabilizationWindowSeconds'], ['selectPolicy', 'SelectPolicy'], ['policies', 'Policies'],
];
const goPolicyNames: readonly (readonly [string, string])[] = [['type', 'Type'], ['value', 'Value'], ['periodSeconds', 'PeriodSeconds']];

function rulesToGo(rules: unknown): unknown {
  if (!isFields(rules)) return null;
  const policies = Array.isArray(rules['policies'])
    ? listOf(rules['policies']).map((policy) => ({ Type: policy['type'] ?? '', Value: policy['value'] ?? 0, PeriodSeconds: policy['periodSeconds'] ?? 0 }))
    : null;
  return { StabilizationWindowSeconds: rules['stabilizationWindowSeconds'] ?? null, SelectPolicy: rules['selectPolicy'] ?? null, Policies: policies };
}

/** A key as encoding/json matches it: exactly, else ignoring case. */
function goField(object: Fields, name: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : object[key];
}

function rulesFromGo(rules: unknown): Fields | undefined {
  if (!isFields(rules)) return undefined;
  const result: Fields = {};
  for (const [json, go] of goRuleNames) {
    const value = goField(rules, go);
    if (!isSet(value)) continue;
    result[json] = json === 'policies' && Array.isArray(value)
      ? listOf(value).map((policy) => Object.fromEntries(goPolicyNames.map(([policyJson, policyGo]) => [policyJson, goField(policy, policyGo) ?? (policyJson === 'type' ? '' : 0)])))
      : value;
  }
  return result;
}

function behaviorFromAnnotation(text: string): Fields | undefined {
  const parsed = parseJson(text);
  if (!isFields(parsed)) return undefined;
  const behavior: Fields = {};
  const scaleUp = rulesFromGo(goField(parsed, 'ScaleUp'));
  const scaleDown = rulesFromGo(goField(parsed, 'ScaleDown'));
  if (scaleUp !== undefined) behavior['scaleUp'] = scaleUp;
  if (scaleDown !== undefined) behavior['scaleDown'] = scaleDown;
  return Object.keys(behavior).length === 0 ? undefined : behavior;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// --- v2 defaults ----------------------------------------------------------------------------

function cpuMetric(utilization: unknown): Fields {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } };
}

function defaultRules(rules: unknown, defaults: Fields): Fields {
  if (!isFields(rules)) return structuredClone(defaults);
  const result: Fields = { ...rules };
  for (const key of ['stabilizationWindowSeconds', 'selectPolicy', 'policies']) {
    if (!isSet(result[key]) && isSet(defaults[key])) result[key] = structuredClone(defaults[key]);
  }
  return result;
}

const scaleUpDefaults: Fields = {
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
};
const scaleDownDefaults: Fields = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler on a spec: minReplicas 1, the cpu metric, a given behavior's unset rules. Returns a new spec. */
export function defaultV2Spec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (!isSet(result['minReplicas'])) result['minReplicas'] = 1;
  if (!Array.isArray(result['metrics']) || result['metrics'].length === 0) result['metrics'] = [cpuMetric(defaultCpuUtilization)];
  if (isFields(result['behavior'])) {
    const behavior = result['behavior'];
    result['behavior'] = { ...behavior, scaleUp: defaultRules(behavior['scaleUp'], scaleUpDefaults), scaleDown: defaultRules(behavior['scaleDown'], scaleDownDefaults) };
  }
  return result;
}

// --- the objects ------------------------------------------------------------------------------

function annotationsOf(object: Fields): Record<string, string> {
  return fields(fields(object['metadata'])['annotations']) as Record<string, string>;
}

/** metadata without the round-trip annotations (an annotations map left empty is removed). */
function withoutRoundTrip(metadata: unknown): Fields {
  const result: Fields = structuredClone(fields(metadata));
  const annotations = fields(result['annotations']);
  if (!roundTripAnnotations.some((key) => Object.hasOwn(annotations, key))) return result;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([key]) => !roundTripAnnotations.includes(key)));
  if (Object.keys(kept).length === 0) delete result['annotations'];
  else result['annotations'] = kept;
  return result;
}

/** The stored autoscaling/v2 HPA → its autoscaling/v1 form (Convert_autoscaling_HorizontalPodAutoscaler_To_v1_...). A copy. */
export function hpaV2ToV1(object: KubeObject): KubeObject {
  const source = fields(object);
  const spec = fields(source['spec']);
  const status = fields(source['status']);
  const metadata = withoutRoundTrip(source['metadata']);
  const metrics = listOf(spec['metrics']);
  const v1Spec: Fields = { scaleTargetRef: reference(spec['scaleTargetRef']) };
  copySet(v1Spec, 'minReplicas', spec, 'minReplicas');
  v1Spec['maxReplicas'] = spec['maxReplicas'] ?? 0;
  const cpu = metrics.find(isCpuUtilization);
  if (cpu !== undefined) v1Spec['targetCPUUtilizationPercentage'] = fields(fields(cpu['resource'])['target'])['averageUtilization'];
  const v1Status: Fields = {};
  copySet(v1Status, 'observedGeneration', status, 'observedGeneration');
  copySet(v1Status, 'lastScaleTime', status, 'lastScaleTime');
  v1Status['currentReplicas'] = status['currentReplicas'] ?? 0;
  v1Status['desiredReplicas'] = status['desiredReplicas'] ?? 0;
  const currentMetrics = listOf(status['currentMetrics']);
  // kube's loop has no break: the last cpu metric with a utilization is the one shown.
  for (const metric of currentMetrics) {
    const resource = fields(metric['resource']);
    const utilization = fields(resource['current'])['averageUtilization'];
    if (metric['type'] === 'Resource' && resource['name'] === 'cpu' && isSet(utilization)) v1Status['currentCPUUtilizationPercentage'] = utilization;
  }
  const annotations: Record<string, string> = {};
  const others = metrics.filter((metric) => !isCpuUtilization(metric)).map(metricSpecToV1);
  if (others.length > 0) annotations[metricSpecsAnnotation] = JSON.stringify(others);
  if (currentMetrics.length > 0) annotations[metricStatusesAnnotation] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  if (isFields(spec['behavior'])) {
    annotations[behaviorAnnotation] = JSON.stringify({ ScaleUp: rulesToGo(spec['behavior']['scaleUp']), ScaleDown: rulesToGo(spec['behavior']['scaleDown']) });
  }
  const conditions = listOf(status['conditions']);
  if (conditions.length > 0) annotations[conditionsAnnotation] = JSON.stringify(conditions);
  if (Object.keys(annotations).length > 0) metadata['annotations'] = { ...fields(metadata['annotations']), ...annotations };
  const result: Fields = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: v1Spec };
  if (source['status'] !== undefined) result['status'] = v1Status;
  return result as unknown as KubeObject;
}

/**
 * An autoscaling/v1 HPA → the autoscaling/v2 object it stands for
 * (Convert_v1_HorizontalPodAutoscaler_To_autoscaling_...), with the v2 defaults. A copy.
 */
export function hpaV1ToV2(object: KubeObject): KubeObject {
  const source = fields(object);
  const spec = fields(source['spec']);
  const status = fields(source['status']);
  const annotations = annotationsOf(source);
  const v2Spec: Fields = { scaleTargetRef: reference(spec['scaleTargetRef']) };
  copySet(v2Spec, 'minReplicas', spec, 'minReplicas');
  v2Spec['maxReplicas'] = spec['maxReplicas'] ?? 0;
  let metrics: Fields[] = isSet(spec['targetCPUUtilizationPercentage']) ? [cpuMetric(spec['targetCPUUtilizationPercentage'])] : [];
  const others = parseJson(annotations[metricSpecsAnnotation] ?? '');
  // The metrics v1 cannot express come first; the cpu metric of the v1 field goes last.
  if (Array.isArray(others)) metrics = [...listOf(others).map(metricSpecFromV1), ...metrics];
  if (metrics.length === 0) metrics = [cpuMetric(defaultCpuUtilization)];
  v2Spec['metrics'] = metrics;
  const behavior = behaviorFromAnnotation(annotations[behaviorAnnotation] ?? '');
  if (behavior !== undefined) v2Spec['behavior'] = behavior;
  const v2Status: Fields = {};
  copySet(v2Status, 'observedGeneration', status, 'observedGeneration');
  copySet(v2Status, 'lastScaleTime', status, 'lastScaleTime');
  if (isSet(status['currentReplicas']) && status['currentReplicas'] !== 0) v2Status['currentReplicas'] = status['currentReplicas'];
  v2Status['desiredReplicas'] = status['desiredReplicas'] ?? 0;
  if (isSet(status['currentCPUUtilizationPercentage'])) {
    v2Status['currentMetrics'] = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status['currentCPUUtilizationPercentage'] } } }];
  }
  const currentMetrics = parseJson(annotations[metricStatusesAnnotation] ?? '');
  // "the ones here have more information"
  if (Array.isArray(currentMetrics)) v2Status['currentMetrics'] = listOf(currentMetrics).map(metricStatusFromV1);
  const conditions = parseJson(annotations[conditionsAnnotation] ?? '');
  if (Array.isArray(conditions)) v2Status['conditions'] = listOf(conditions);
  const result: Fields = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: withoutRoundTrip(source['metadata']), spec: defaultV2Spec(v2Spec) };
  if (source['status'] !== undefined) result['status'] = v2Status;
  return result as unknown as KubeObject;
}
