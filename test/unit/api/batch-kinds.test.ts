// batch/v1 Jobs and CronJobs through the API: the v1 defaults, the generated selector and
// controller labels, generation and status (reset on create, kept on writes to the main
// resource, replaced through /status), kube's validation messages (restartPolicy, the
// immutable template and selector, the cron schedule with robfig/cron's wording, TZ in the
// schedule, the time zone), the printer columns, the status.successful field selector and a
// protobuf round trip.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { cronScheduleProblem, timeZoneProblem } from '../../../api/registry/cron.ts';
import { createdObject, invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
const jobs = '/apis/batch/v1/namespaces/t/jobs';
const cronjobs = '/apis/batch/v1/namespaces/t/cronjobs';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

/** A pod template; a null restart policy leaves it unset (defaulted to Always). */
function podTemplate(restartPolicy: string | null = 'Never'): Json {
  return { spec: { containers: [{ name: 'work', image: 'busybox' }], ...(restartPolicy === null ? {} : { restartPolicy }) } };
}

function job(name: string, spec: Json = {}): Json {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: podTemplate(), ...spec } };
}

function cronJob(name: string, spec: Json = {}): Json {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } }, ...spec } };
}

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

describe('jobs', () => {
  it('are created with the v1 defaults, a generated selector, the controller labels, generation 1 and an empty status', async () => {
    const created = await create(jobs, { ...job('pi'), status: { succeeded: 3 } });
    const uid = created.metadata.uid as string;
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    expect(created.spec).toMatchObject({
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false,
      manualSelector: false, podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi' };
    expect(created.spec.template.metadata.labels).toEqual(labels);
    expect(created.metadata.labels).toEqual(labels);
    // The restart policy stays as given; the rest of the pod template is defaulted.
    expect(created.spec.template.spec).toMatchObject({ restartPolicy: 'Never', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 });
  });

  it('keep the user\'s labels and parallelism without completions, and default podReplacementPolicy Failed with a podFailurePolicy', async () => {
    const created = await create(jobs, job('queue', {
      parallelism: 3,
      podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
      template: { metadata: { labels: { app: 'queue' } }, ...podTemplate() },
    }));
    expect(created.spec.completions).toBeUndefined();
    expect(created.spec.parallelism).toBe(3);
    expect(created.spec.podReplacementPolicy).toBe('Failed');
    expect(created.spec.podFailurePolicy.rules[0].onPodConditions[0].status).toBe('True');
    expect(created.metadata.labels).toEqual({ app: 'queue' });
    expect(created.spec.template.metadata.labels).toMatchObject({ app: 'queue', 'job-name': 'queue' });
  });

  it('refuse a restartPolicy other than OnFailure or Never, with kube\'s messages', async () => {
    expect(await causesOf('POST', jobs, job('always', { template: podTemplate(null) }))).toEqual([
      { field: 'spec.template.spec.restartPolicy', message: 'Required value: valid values: "OnFailure", "Never"' },
    ]);
    expect(await causesOf('POST', jobs, job('neg', { backoffLimit: -1, completionMode: 'Sometimes' }))).toEqual([
      { field: 'spec.backoffLimit', message: 'Invalid value: -1: must be greater than or equal to 0' },
      { field: 'spec.completionMode', message: 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"' },
    ]);
  });

  it('refuse a manual selector that does not match the template and a wrong generated label', async () => {
    const manual = job('manual', { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, ...podTemplate() } });
    expect(await causesOf('POST', jobs, manual)).toEqual([
      { field: 'spec.template.metadata.labels', message: 'Invalid value: {"app":"y"}: `selector` does not match template `labels`' },
    ]);
    const wrong = job('wrong', { template: { metadata: { labels: { 'job-name': 'other' } }, ...podTemplate() } });
    const causes = await causesOf('POST', jobs, wrong);
    expect(causes).toContainEqual({ field: 'spec.template.metadata.labels[job-name]', message: expect.stringContaining("must be 'wrong'") as string });
  });

  it('bump the generation on a spec change, keep the stored status on a PUT and refuse changing the template, selector or completions', async () => {
    const created = await create(jobs, job('pi', { suspend: true }));
    const status = { ...created, status: { active: 1, startTime: '2024-01-01T00:00:00Z' } };
    const statusWrite = await harness.request('PUT', `${jobs}/pi/status`, status);
    expect(statusWrite.statusCode, statusWrite.body).toBe(200);
    const current = statusWrite.json();
    const resumed = await harness.request('PUT', `${jobs}/pi`, { ...current, spec: { ...current.spec, suspend: false }, status: {} });
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.json().metadata.generation).toBe(2);
    expect(resumed.json().status).toEqual({ active: 1, startTime: '2024-01-01T00:00:00Z' });
    const changed = resumed.json();
    changed.spec.template.spec.containers[0].image = 'busybox:2';
    changed.spec.completions = 4;
    const causes = await causesOf('PUT', `${jobs}/pi`, changed);
    expect(causes.map((cause) => cause.field)).toEqual(['spec.completions', 'spec.template']);
    expect(causes[0]!.message).toBe('Invalid value: 4: field is immutable');
  });

  it('print kube\'s job columns and select on status.successful', async () => {
    const created = await create(jobs, job('pi'));
    await create(jobs, job('other'));
    const done = await harness.request('PUT', `${jobs}/pi/status`, {
      ...created, status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:02:05Z', conditions: [{ type: 'Complete', status: 'True' }] },
    });
    expect(done.statusCode, done.body).toBe(200);
    const response = await harness.request('GET', `${jobs}?fieldSelector=status.successful%3D1`, undefined, tableAccept);
    expect(response.statusCode, response.body).toBe(200);
    const table = response.json();
    expect(table.columnDefinitions.map((column: Json) => [column.name, column.priority])).toEqual([
      ['Name', 0], ['Status', 0], ['Completions', 0], ['Duration', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
    ]);
    expect(table.rows).toHaveLength(1);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['pi', 'Complete', '1/1', '2m5s']);
    expect(table.rows[0].cells.slice(5)).toEqual(['work', 'busybox', `batch.kubernetes.io/controller-uid=${created.metadata.uid as string}`]);
    const running = (await harness.request('GET', `${jobs}?fieldSelector=status.successful%3D0`, undefined, tableAccept)).json();
    expect(running.rows.map((row: Json) => row.cells.slice(0, 4))).toEqual([['other', 'Running', '0/1', '']]);
  });

  it('round-trip through protobuf', async () => {
    await create(jobs, job('pb'));
    const json = (await harness.request('GET', `${jobs}/pb`)).json();
    const pb = await harness.request('GET', `${jobs}/pb`, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(pb.statusCode).toBe(200);
    expect(decodeProtobufObject(pb.rawPayload)).toEqual(json);
  });
});

describe('cronjobs', () => {
  it('are created with the v1 defaults, the job template\'s pod template defaulted, generation 1 and an empty status', async () => {
    const created = await create(cronjobs, cronJob('tick'));
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    expect(created.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(created.spec.jobTemplate.spec.template.spec).toMatchObject({ restartPolicy: 'OnFailure', dnsPolicy: 'ClusterFirst' });
    // SetDefaults_Job is a Job's, not a job template's.
    expect(created.spec.jobTemplate.spec.backoffLimit).toBeUndefined();
    const list = (await harness.request('GET', '/apis/batch/v1/namespaces/t/cronjobs', undefined, tableAccept)).json();
    expect(list.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
    expect(list.rows[0].cells.slice(0, 6)).toEqual(['tick', '*/5 * * * *', '<none>', 'False', 0, '<none>']);
    expect(list.rows[0].cells.slice(7)).toEqual(['work', 'busybox', '<none>']);
  });

  it('refuse a schedule robfig/cron does not parse, TZ in the schedule and unknown time zones, in kube\'s words', async () => {
    expect(await causesOf('POST', cronjobs, cronJob('bad', { schedule: '61 * * * *' }))).toEqual([
      { field: 'spec.schedule', message: 'Invalid value: "61 * * * *": end of range (61) above maximum (59): 61' },
    ]);
    expect(await causesOf('POST', cronjobs, cronJob('few', { schedule: '* * *' }))).toEqual([
      { field: 'spec.schedule', message: 'Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]' },
    ]);
    expect(await causesOf('POST', cronjobs, cronJob('tz', { schedule: 'TZ=UTC 0 * * * *' }))).toEqual([
      { field: 'spec.schedule', message: 'Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead' },
    ]);
    expect(await causesOf('POST', cronjobs, cronJob('zone', { timeZone: 'Mars/Olympus' }))).toEqual([
      { field: 'spec.timeZone', message: 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus' },
    ]);
    expect(await causesOf('POST', cronjobs, cronJob('policy', { concurrencyPolicy: 'Sometimes', jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: podTemplate('Always') } } }))).toEqual([
      { field: 'spec.concurrencyPolicy', message: 'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"' },
      { field: 'spec.jobTemplate.spec.template.spec.restartPolicy', message: 'Required value: valid values: "OnFailure", "Never"' },
      { field: 'spec.jobTemplate.spec.selector', message: 'Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated' },
    ]);
    const longName = 'x'.repeat(53);
    expect(await causesOf('POST', cronjobs, cronJob(longName))).toEqual([
      { field: 'metadata.name', message: `Invalid value: "${longName}": must be no more than 52 characters` },
    ]);
    const zoned = await create(cronjobs, cronJob('berlin', { schedule: '@hourly', timeZone: 'Europe/Berlin' }));
    expect(zoned.spec.timeZone).toBe('Europe/Berlin');
  });

  it('bump the generation on a spec change and keep the status on a PUT', async () => {
    const created = await create(cronjobs, cronJob('tick'));
    const withStatus = await harness.request('PUT', `${cronjobs}/tick/status`, { ...created, status: { lastScheduleTime: '2024-01-01T00:00:00Z' } });
    expect(withStatus.statusCode, withStatus.body).toBe(200);
    const current = withStatus.json();
    const suspended = await harness.request('PUT', `${cronjobs}/tick`, { ...current, spec: { ...current.spec, suspend: true }, status: {} });
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect(suspended.json().metadata.generation).toBe(2);
    expect(suspended.json().status).toEqual({ lastScheduleTime: '2024-01-01T00:00:00Z' });
  });
});

describe('the cron parser', () => {
  it('accepts robfig/cron\'s standard forms and descriptors', () => {
    for (const schedule of ['*/15 0-6 1,15 JAN-mar MON-FRI', '0 0 * * 0', '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly', '@every 1h30m', '@every 90s', '5/10 * * * ?']) {
      expect(cronScheduleProblem(schedule), schedule).toBeUndefined();
    }
  });

  it('reports robfig/cron\'s errors', () => {
    expect(cronScheduleProblem('* * * * 7')).toBe('end of range (7) above maximum (6): 7');
    expect(cronScheduleProblem('0 0 0 * *')).toBe('beginning of range (0) below minimum (1): 0');
    expect(cronScheduleProblem('5-2 * * * *')).toBe('beginning of range (5) beyond end of range (2): 5-2');
    expect(cronScheduleProblem('*/0 * * * *')).toBe('step of range should be a positive number: */0');
    expect(cronScheduleProblem('1-2-3 * * * *')).toBe('too many hyphens: 1-2-3');
    expect(cronScheduleProblem('1/2/3 * * * *')).toBe('too many slashes: 1/2/3');
    expect(cronScheduleProblem('x * * * *')).toBe('failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    expect(cronScheduleProblem('@often')).toBe('unrecognized descriptor: @often');
    expect(cronScheduleProblem('@every 5')).toBe('failed to parse duration @every 5: time: missing unit in duration "5"');
    expect(cronScheduleProblem('@every 5y')).toBe('failed to parse duration @every 5y: time: unknown unit "y" in duration "5y"');
    expect(cronScheduleProblem('* * * * * *')).toBe('expected exactly 5 fields, found 6: [* * * * * *]');
  });

  it('checks time zones against the tz database', () => {
    for (const zone of ['America/New_York', 'Europe/Berlin', 'UTC', 'US/Eastern', 'Etc/GMT+5']) expect(timeZoneProblem(zone), zone).toBeUndefined();
    expect(timeZoneProblem('utc')).toBe('unknown time zone utc');
    expect(timeZoneProblem('Nowhere/Special')).toBe('unknown time zone Nowhere/Special');
  });
});
