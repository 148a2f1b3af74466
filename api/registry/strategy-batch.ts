// Owns: the create/update behaviour of batch/v1 Jobs and CronJobs as kube-apiserver 1.33 has
// it. Jobs: the v1 defaults (SetDefaults_Job: completions and parallelism 1 when both are
// unset, backoffLimit 6, completionMode NonIndexed, suspend false, manualSelector false,
// podReplacementPolicy TerminatingOrFailed — Failed with a podFailurePolicy — and the job's
// labels from its template's), the generated selector (kube's job strategy generateSelector:
// `batch.kubernetes.io/controller-uid=<uid>` selected, and the controller-uid / job-name labels,
// prefixed and legacy, put on the template), generation, status reset on create and kept on
// writes to the main resource, and the validation a user meets (ValidateJob,
// ValidateJobSpecUpdate: restartPolicy OnFailure or Never, a selector that matches the
// template, the immutable selector, template, completions and completion mode). CronJobs: the
// v1 defaults (concurrencyPolicy Allow, suspend false, history limits 3 and 1), the schedule
// (cron.ts, robfig/cron's messages; TZ in the schedule refused), the time zone, the job
// template's rules (no selector of its own) and the 52-character name limit.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { cronScheduleProblem, timeZoneProblem } from './cron.ts';
import { selectorMatches } from './strategy-apps.ts';
import { defaultPodTemplateSpec, podSpecCauses } from './strategy-workloads.ts';
import { invalidValue, requiredValue } from './validation.ts';
import { fields, isFields, sameJson, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

function unset(value: JsonValue | undefined): boolean {
  return value === undefined || value === null;
}

function unsupported(field: string, value: JsonValue, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

function nonNegative(field: string, value: JsonValue | undefined): StatusCause[] {
  return typeof value === 'number' && value < 0 ? [invalidValue(field, value, 'must be greater than or equal to 0')] : [];
}

function immutable(field: string, value: JsonValue | undefined, old: JsonValue | undefined): StatusCause[] {
  return sameJson(value, old) ? [] : [invalidValue(field, value ?? null, 'field is immutable')];
}

/** Status, kept from the stored object on a write to the main resource (the status subresource replaces it). */
function keepStatus(object: KubeObject, old: KubeObject): void {
  if (old['status'] !== undefined) object['status'] = old['status'];
  else delete object['status'];
}

/** Generation: 1 on create, +1 when the spec changes. */
function bumpGeneration(object: KubeObject, old: KubeObject): void {
  const generation = old.metadata.generation ?? 1;
  object.metadata.generation = sameJson(object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
}

/** A pod template with its spec defaulted as every pod template is. */
function defaultTemplate(template: JsonValue | undefined): Fields {
  const result: Fields = { ...fields(template) };
  result['spec'] = defaultPodTemplateSpec(fields(result['spec']));
  return result;
}

// --- jobs ---------------------------------------------------------------------------------

export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const legacyControllerUidLabel = 'controller-uid';
export const legacyJobNameLabel = 'job-name';

/** SetDefaults_Job's spec part, with the pod template's spec defaulted. */
export function defaultJobSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['completions']) && unset(result['parallelism'])) {
    result['completions'] = 1;
    result['parallelism'] = 1;
  }
  if (unset(result['parallelism'])) result['parallelism'] = 1;
  if (unset(result['backoffLimit'])) result['backoffLimit'] = unset(result['backoffLimitPerIndex']) ? 6 : 2147483647;
  if (unset(result['completionMode'])) result['completionMode'] = 'NonIndexed';
  if (unset(result['suspend'])) result['suspend'] = false;
  const failurePolicy = result['podFailurePolicy'];
  if (isFields(failurePolicy) && Array.isArray(failurePolicy['rules'])) {
    result['podFailurePolicy'] = {
      ...failurePolicy,
      rules: failurePolicy['rules'].map((rule) => {
        if (!isFields(rule) || !Array.isArray(rule['onPodConditions'])) return rule;
        return { ...rule, onPodConditions: rule['onPodConditions'].map((pattern) => (isFields(pattern) && unset(pattern['status']) ? { ...pattern, status: 'True' } : pattern)) };
      }),
    };
  }
  if (unset(result['podReplacementPolicy'])) result['podReplacementPolicy'] = isFields(failurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (unset(result['manualSelector'])) result['manualSelector'] = false;
  result['template'] = defaultTemplate(result['template']);
  return result;
}

/** kube's job strategy generateSelector: the template's controller labels and the controller-uid selector. */
function generateSelector(object: KubeObject, spec: Fields): void {
  const template: Fields = { ...fields(spec['template']) };
  const metadata: Fields = { ...fields(template['metadata']) };
  const labels: Fields = { ...fields(metadata['labels']) };
  const name = object.metadata.name ?? '';
  const uid = object.metadata.uid ?? '';
  // A label the user already set is left as is; validation refuses a wrong value.
  for (const key of [legacyJobNameLabel, jobNameLabel]) if (!Object.hasOwn(labels, key)) labels[key] = name;
  for (const key of [legacyControllerUidLabel, controllerUidLabel]) if (!Object.hasOwn(labels, key)) labels[key] = uid;
  metadata['labels'] = labels;
  template['metadata'] = metadata;
  spec['template'] = template;
  const selector: Fields = { ...fields(spec['selector']) };
  const matchLabels: Fields = { ...fields(selector['matchLabels']) };
  if (!Object.hasOwn(matchLabels, controllerUidLabel)) matchLabels[controllerUidLabel] = uid;
  selector['matchLabels'] = matchLabels;
  spec['selector'] = selector;
}

function templateLabels(spec: Fields): Fields {
  return fields(fields(fields(spec['template'])['metadata'])['labels']);
}

/** SetDefaults_Job: a job without labels takes its template's. */
function defaultJobLabels(object: KubeObject, labels: Fields): void {
  if (Object.keys(object.metadata.labels ?? {}).length === 0 && Object.keys(labels).length > 0) {
    object.metadata.labels = Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
  }
}

const restartPolicies = ['OnFailure', 'Never'];

/** validateJobSpec: the rules a Job's spec and a CronJob's job template share; `at` is the spec's path. */
function jobSpecCauses(spec: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const field of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    causes.push(...nonNegative(`${at}.${field}`, spec[field]));
  }
  if (!unset(spec['maxFailedIndexes']) && unset(spec['backoffLimitPerIndex'])) causes.push(requiredValue(`${at}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  const mode = spec['completionMode'];
  const indexed = mode === 'Indexed';
  if (!unset(mode)) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') causes.push(unsupported(`${at}.completionMode`, mode!, ['NonIndexed', 'Indexed']));
    if (indexed && unset(spec['completions'])) causes.push(requiredValue(`${at}.completions`, 'when completion mode is Indexed'));
    if (indexed && typeof spec['parallelism'] === 'number' && spec['parallelism'] > 100000) {
      causes.push(invalidValue(`${at}.parallelism`, spec['parallelism'], 'must be less than or equal to 100000 when completion mode is Indexed'));
    }
  }
  if (!indexed) {
    if (!unset(spec['backoffLimitPerIndex'])) causes.push(invalidValue(`${at}.backoffLimitPerIndex`, spec['backoffLimitPerIndex'], 'requires indexed completion mode'));
    if (!unset(spec['maxFailedIndexes'])) causes.push(invalidValue(`${at}.maxFailedIndexes`, spec['maxFailedIndexes'], 'requires indexed completion mode'));
    if (!unset(spec['successPolicy'])) causes.push(invalidValue(`${at}.successPolicy`, spec['successPolicy'], 'requires indexed completion mode'));
  }
  const replacement = spec['podReplacementPolicy'];
  if (!unset(replacement)) {
    const supported = isFields(spec['podFailurePolicy']) ? ['Failed'] : ['Failed', 'TerminatingOrFailed'];
    if (typeof replacement !== 'string' || !supported.includes(replacement)) causes.push(unsupported(`${at}.podReplacementPolicy`, replacement!, supported));
  }
  const podSpec = fields(fields(spec['template'])['spec']);
  causes.push(...podSpecCauses(podSpec, `${at}.template.spec`));
  const restartPolicy = podSpec['restartPolicy'];
  const restartField = `${at}.template.spec.restartPolicy`;
  if (restartPolicy === 'Always' || unset(restartPolicy) || restartPolicy === '') {
    causes.push(requiredValue(restartField, 'valid values: "OnFailure", "Never"'));
  } else if (typeof restartPolicy !== 'string' || !restartPolicies.includes(restartPolicy)) {
    causes.push(unsupported(restartField, restartPolicy!, restartPolicies));
  } else if (isFields(spec['podFailurePolicy']) && restartPolicy !== 'Never') {
    causes.push(invalidValue(restartField, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return causes;
}

/** ValidateHasLabel: the template label generation put there, with its value. */
function hasLabelCauses(labels: Fields, key: string, expected: string): StatusCause[] {
  const field = `spec.template.metadata.labels[${key}]`;
  if (!Object.hasOwn(labels, key)) return [requiredValue(field, `must be '${expected}'`)];
  return labels[key] === expected ? [] : [invalidValue(field, labels, `must be '${expected}'`)];
}

/** validateGeneratedSelector: with a generated selector, the template carries the controller labels and the selector selects them. */
function generatedSelectorCauses(object: KubeObject, prefixedLabels: boolean): StatusCause[] {
  const spec = specOf(object);
  if (spec['manualSelector'] === true || !isFields(spec['selector'])) return [];
  const causes: StatusCause[] = [];
  const uid = object.metadata.uid ?? '';
  const name = object.metadata.name ?? '';
  if (uid === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.uid' });
  const labels = templateLabels(spec);
  causes.push(...hasLabelCauses(labels, legacyControllerUidLabel, uid), ...hasLabelCauses(labels, legacyJobNameLabel, name));
  const expected: Fields = { [legacyControllerUidLabel]: uid, [legacyJobNameLabel]: name };
  if (prefixedLabels) {
    causes.push(...hasLabelCauses(labels, controllerUidLabel, uid), ...hasLabelCauses(labels, jobNameLabel, name));
    expected[controllerUidLabel] = uid;
    expected[jobNameLabel] = name;
  }
  if (!selectorMatches(spec['selector'], expected)) causes.push(invalidValue('spec.selector', spec['selector'], '`selector` not auto-generated'));
  return causes;
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** ValidateJob (less the generated-selector rules, which depend on the update): the spec, its selector, an indexed job's pod host names. */
function jobCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes = jobSpecCauses(spec, 'spec');
  const selector = spec['selector'];
  if (!isFields(selector)) causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  else if (!selectorMatches(selector, templateLabels(spec))) causes.push(invalidValue('spec.template.metadata.labels', templateLabels(spec), '`selector` does not match template `labels`'));
  const completions = spec['completions'];
  if (spec['completionMode'] === 'Indexed' && typeof completions === 'number' && completions > 0) {
    const name = object.metadata.name ?? '';
    const hostname = `${name}-${completions - 1}`;
    if (hostname.length > 63 || !dns1123Label.test(hostname)) causes.push(invalidValue('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return causes;
}

/** The scheduling directives of a suspended job that never started may change (validatePodTemplateUpdate). */
function templateForComparison(template: Fields, other: Fields, mutableScheduling: boolean): Fields {
  if (!mutableScheduling) return template;
  const metadata: Fields = { ...fields(template['metadata']) };
  const otherMetadata = fields(other['metadata']);
  for (const key of ['labels', 'annotations']) {
    if (otherMetadata[key] === undefined) delete metadata[key];
    else metadata[key] = otherMetadata[key];
  }
  const spec: Fields = { ...fields(template['spec']) };
  const otherSpec = fields(other['spec']);
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) {
    if (otherSpec[key] === undefined) delete spec[key];
    else spec[key] = otherSpec[key];
  }
  const affinity: Fields = { ...fields(spec['affinity']) };
  const otherAffinity = fields(otherSpec['affinity']);
  if (otherAffinity['nodeAffinity'] === undefined) delete affinity['nodeAffinity'];
  else affinity['nodeAffinity'] = otherAffinity['nodeAffinity'];
  if (Object.keys(affinity).length === 0) delete spec['affinity'];
  else spec['affinity'] = affinity;
  return { ...template, metadata, spec };
}

/** ValidateJobSpecUpdate. */
function jobUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const oldSpec = specOf(old);
  const causes: StatusCause[] = [];
  const completions = spec['completions'];
  // ElasticIndexedJob: an indexed job's completions change in tandem with its parallelism.
  if (spec['completionMode'] === 'Indexed') {
    if (!sameJson(completions, oldSpec['completions']) && typeof completions === 'number' && completions !== spec['parallelism']) {
      causes.push(invalidValue('spec.completions', completions, 'can only be modified in tandem with spec.parallelism'));
    }
  } else {
    causes.push(...immutable('spec.completions', completions, oldSpec['completions']));
  }
  causes.push(...immutable('spec.selector', spec['selector'], oldSpec['selector']));
  const status = fields(old['status'] as JsonValue | undefined);
  const mutableScheduling = oldSpec['suspend'] === true && unset(status['startTime']);
  const template = fields(spec['template']);
  const oldTemplate = templateForComparison(fields(oldSpec['template']), template, mutableScheduling);
  if (!sameJson(template, oldTemplate)) causes.push(invalidValue('spec.template', template, 'field is immutable'));
  for (const field of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    causes.push(...immutable(`spec.${field}`, spec[field], oldSpec[field]));
  }
  return causes;
}

function hasPrefixedLabels(object: KubeObject): boolean {
  const labels = templateLabels(specOf(object));
  return Object.hasOwn(labels, jobNameLabel) && Object.hasOwn(labels, controllerUidLabel);
}

export const jobStrategy: Strategy = {
  // kube: PUT of an absent Job is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    const spec = defaultJobSpec(specOf(object));
    defaultJobLabels(object, templateLabels(spec));
    if (spec['manualSelector'] !== true) generateSelector(object, spec);
    object['spec'] = spec;
    // A stored job read back is defaulted again: one still without labels shows its template's.
    defaultJobLabels(object, templateLabels(spec));
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    object['spec'] = defaultJobSpec(specOf(object));
    defaultJobLabels(object, templateLabels(specOf(object)));
    bumpGeneration(object, old);
  },
  validate: (object) => jobCauses(object),
  validateCreate: (object) => generatedSelectorCauses(object, true),
  // Jobs stored before the prefixed labels existed are not held to them.
  validateUpdate: (object, old) => [...generatedSelectorCauses(object, hasPrefixedLabels(old)), ...jobUpdateCauses(object, old)],
};

// --- cronjobs -----------------------------------------------------------------------------

const concurrencyPolicies = ['Allow', 'Forbid', 'Replace'];

/** SetDefaults_CronJob, with the job template's pod template defaulted (SetDefaults_Job is a Job's, not a template's). */
export function defaultCronJobSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['concurrencyPolicy']) || result['concurrencyPolicy'] === '') result['concurrencyPolicy'] = 'Allow';
  if (unset(result['suspend'])) result['suspend'] = false;
  if (unset(result['successfulJobsHistoryLimit'])) result['successfulJobsHistoryLimit'] = 3;
  if (unset(result['failedJobsHistoryLimit'])) result['failedJobsHistoryLimit'] = 1;
  const jobTemplate: Fields = { ...fields(result['jobTemplate']) };
  const jobSpec: Fields = { ...fields(jobTemplate['spec']) };
  jobSpec['template'] = defaultTemplate(jobSpec['template']);
  jobTemplate['spec'] = jobSpec;
  result['jobTemplate'] = jobTemplate;
  return result;
}

/** validateScheduleFormat: robfig's parse error, and TZ in the schedule (allowed only where it already was). */
function scheduleCauses(spec: Fields, allowTzInSchedule: boolean): StatusCause[] {
  const schedule = spec['schedule'];
  if (typeof schedule !== 'string' || schedule === '') return [];
  const causes: StatusCause[] = [];
  const problem = cronScheduleProblem(schedule);
  if (problem !== undefined) causes.push(invalidValue('spec.schedule', schedule, problem));
  if (allowTzInSchedule && schedule.includes('TZ') && !unset(spec['timeZone'])) {
    causes.push(invalidValue('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTzInSchedule && schedule.includes('TZ')) {
    causes.push(invalidValue('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return causes;
}

const timeZoneComponent = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone. */
function timeZoneCauses(timeZone: JsonValue | undefined): StatusCause[] {
  if (unset(timeZone) || typeof timeZone !== 'string') return [];
  const field = 'spec.timeZone';
  if (timeZone === '') return [invalidValue(field, timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !timeZoneComponent.test(part)) return [invalidValue(field, timeZone, `unknown time zone ${timeZone}`)];
  }
  const causes: StatusCause[] = [];
  if (timeZone.toLowerCase() === 'local') causes.push(invalidValue(field, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const problem = timeZoneProblem(timeZone);
  if (problem !== undefined) causes.push(invalidValue(field, timeZone, problem));
  return causes;
}

/** ValidateJobTemplateSpec: the job spec rules, and no selector of its own. */
function jobTemplateCauses(jobTemplate: Fields): StatusCause[] {
  const at = 'spec.jobTemplate.spec';
  const spec = fields(jobTemplate['spec']);
  const causes = jobSpecCauses(spec, at);
  if (!unset(spec['selector'])) causes.push(invalidValue(`${at}.selector`, spec['selector'], '`selector` will be auto-generated'));
  if (spec['manualSelector'] === true) causes.push(unsupported(`${at}.manualSelector`, true, ['nil', 'false']));
  return causes;
}

/** validateCronJobSpec, less the schedule format and time zone rules (they depend on the stored object). */
function cronJobCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes: StatusCause[] = [];
  if (typeof spec['schedule'] !== 'string' || spec['schedule'] === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.schedule' });
  causes.push(...nonNegative('spec.startingDeadlineSeconds', spec['startingDeadlineSeconds']));
  const policy = spec['concurrencyPolicy'];
  if (unset(policy) || policy === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.concurrencyPolicy' });
  else if (typeof policy !== 'string' || !concurrencyPolicies.includes(policy)) causes.push(unsupported('spec.concurrencyPolicy', policy!, concurrencyPolicies));
  causes.push(...jobTemplateCauses(fields(spec['jobTemplate'])));
  causes.push(...nonNegative('spec.successfulJobsHistoryLimit', spec['successfulJobsHistoryLimit']));
  causes.push(...nonNegative('spec.failedJobsHistoryLimit', spec['failedJobsHistoryLimit']));
  return causes;
}

export const cronJobStrategy: Strategy = {
  // kube: PUT of an absent CronJob is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultCronJobSpec(specOf(object));
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    object['spec'] = defaultCronJobSpec(specOf(object));
    bumpGeneration(object, old);
  },
  validate: (object) => cronJobCauses(object),
  validateCreate(object) {
    const spec = specOf(object);
    const causes = [...scheduleCauses(spec, false), ...timeZoneCauses(spec['timeZone'])];
    // The controller names a job <cronjob>-<11-character timestamp>; job names are DNS labels.
    const name = object.metadata.name ?? '';
    if (name.length > 52) causes.push(invalidValue('metadata.name', name, 'must be no more than 52 characters'));
    return causes;
  },
  validateUpdate(object, old) {
    const spec = specOf(object);
    const oldSpec = specOf(old);
    const oldSchedule = oldSpec['schedule'];
    const causes = scheduleCauses(spec, typeof oldSchedule === 'string' && oldSchedule.includes('TZ'));
    if (!sameJson(spec['timeZone'], oldSpec['timeZone'])) causes.push(...timeZoneCauses(spec['timeZone']));
    return causes;
  },
};
