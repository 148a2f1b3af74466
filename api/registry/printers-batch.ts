// Owns: the Table cells of kube's printers (pkg/printers/internalversion/printers.go) for the
// batch, autoscaling and policy kinds: printJob (Status, Completions, Duration), printCronJob
// (Timezone, Suspend, Active, Last Schedule), printHorizontalPodAutoscaler (Reference,
// Targets, MinPods, MaxPods, Replicas, over the autoscaling/v2 form) and
// printPodDisruptionBudget (Min Available, Max Unavailable, Allowed Disruptions).
import { humanDuration } from '../table.ts';
import { nested, stringOf } from './printers.ts';

type Fields = Record<string, unknown>;

function listOf(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function hasCondition(object: Fields, type: string): boolean {
  return listOf(nested(object, 'status', 'conditions')).some((condition) => condition['type'] === type && condition['status'] === 'True');
}

/** printJob's Status: Complete, Failed, Terminating, Suspended, FailureTarget, else Running. */
export function jobStatus(object: Fields): string {
  if (hasCondition(object, 'Complete')) return 'Complete';
  if (hasCondition(object, 'Failed')) return 'Failed';
  if (isSet(nested(object, 'metadata', 'deletionTimestamp'))) return 'Terminating';
  if (hasCondition(object, 'Suspended')) return 'Suspended';
  if (hasCondition(object, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** printJob's Completions: succeeded/completions, or succeeded/1 (of parallelism) for a work queue. */
export function jobCompletions(object: Fields): string {
  const succeeded = numberOf(nested(object, 'status', 'succeeded'));
  const completions = nested(object, 'spec', 'completions');
  if (isSet(completions)) return `${succeeded}/${numberOf(completions)}`;
  const parallelism = numberOf(nested(object, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's Duration: none before it starts, the time since it started while running, start to completion after. */
export function jobDuration(object: Fields, since: (timestamp: unknown) => string): string {
  const start = nested(object, 'status', 'startTime');
  if (!isSet(start)) return '';
  const completion = nested(object, 'status', 'completionTime');
  if (!isSet(completion)) return since(start);
  const elapsed = Date.parse(stringOf(completion)) - Date.parse(stringOf(start));
  return Number.isNaN(elapsed) ? '<unknown>' : humanDuration(elapsed);
}

/** printBoolPtr: True, False, or <unset>. */
export function boolPointer(value: unknown): string {
  return typeof value === 'boolean' ? (value ? 'True' : 'False') : '<unset>';
}

export function cronJobLastSchedule(object: Fields, since: (timestamp: unknown) => string): string {
  const last = nested(object, 'status', 'lastScheduleTime');
  return isSet(last) ? since(last) : '<none>';
}

/** A CronJob's job template's pod containers' names or images, comma-joined. */
export function jobTemplateContainers(object: Fields, field: 'name' | 'image'): string {
  return listOf(nested(object, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers')).map((container) => stringOf(container[field])).join(',');
}

/** A resource.Quantity as the printer shows it. */
function quantity(value: unknown): string {
  return isSet(value) ? stringOf(value) : '0';
}

function percent(value: unknown): string {
  return `${numberOf(value)}%`;
}

/** One metric of formatHPAMetrics: `<current>/<target>`, resource metrics prefixed with the resource name. */
function hpaMetric(spec: Fields, status: Fields | undefined): string {
  const unknown = '<unknown>';
  switch (spec['type']) {
    case 'External':
    case 'Object': {
      const source = spec['type'] === 'External' ? 'external' : 'object';
      const target = (nested(spec, source, 'target') ?? {}) as Fields;
      const current = status?.[source] === undefined ? undefined : ((nested(status, source, 'current') ?? {}) as Fields);
      if (isSet(target['averageValue'])) {
        const shown = current !== undefined && isSet(current['averageValue']) ? quantity(current['averageValue']) : unknown;
        return `${shown}/${quantity(target['averageValue'])} (avg)`;
      }
      return `${current === undefined ? unknown : quantity(current['value'])}/${quantity(target['value'])}`;
    }
    case 'Pods': {
      const current = status?.['pods'] === undefined ? unknown : quantity(nested(status, 'pods', 'current', 'averageValue'));
      return `${current}/${quantity(nested(spec, 'pods', 'target', 'averageValue'))}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const source = spec['type'] === 'Resource' ? 'resource' : 'containerResource';
      const name = stringOf(nested(spec, source, 'name'));
      const target = (nested(spec, source, 'target') ?? {}) as Fields;
      const current = status?.[source] === undefined ? undefined : ((nested(status, source, 'current') ?? {}) as Fields);
      if (isSet(target['averageValue'])) {
        return `${name}: ${current === undefined ? unknown : quantity(current['averageValue'])}/${quantity(target['averageValue'])}`;
      }
      const shown = current !== undefined && isSet(current['averageUtilization']) ? percent(current['averageUtilization']) : unknown;
      const wanted = isSet(target['averageUtilization']) ? percent(target['averageUtilization']) : '<auto>';
      return `${name}: ${shown}/${wanted}`;
    }
    default:
      return '<unknown type>';
  }
}

/** formatHPAMetrics over an autoscaling/v2 HPA: the first two metrics, then "+ N more...". */
export function hpaTargets(object: Fields): string {
  const specs = listOf(nested(object, 'spec', 'metrics'));
  if (specs.length === 0) return '<none>';
  const statuses = listOf(nested(object, 'status', 'currentMetrics'));
  const shown = specs.slice(0, 2).map((spec, index) => hpaMetric(spec, statuses[index]));
  const joined = shown.join(', ');
  return specs.length > 2 ? `${joined} + ${specs.length - 2} more...` : joined;
}

export function hpaReference(object: Fields): string {
  return `${stringOf(nested(object, 'spec', 'scaleTargetRef', 'kind'))}/${stringOf(nested(object, 'spec', 'scaleTargetRef', 'name'))}`;
}

export function hpaMinPods(object: Fields): string {
  const min = nested(object, 'spec', 'minReplicas');
  return isSet(min) ? String(numberOf(min)) : '<unset>';
}

/** An IntOrString as its String(): the number, or the percent text; N/A when unset. */
export function intOrStringCell(value: unknown): string {
  return isSet(value) ? stringOf(value) : 'N/A';
}
