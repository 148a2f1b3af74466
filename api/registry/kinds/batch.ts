// Owns: the batch/v1 kinds kstore serves (jobs, cronjobs): each one ResourceKind with kube's
// names, status subresource, printer columns (printJob, printCronJob), field selectors, schema
// and strategy (strategy-batch.ts).
import type { ResourceKind } from '../kind.ts';
import { ageColumn, nameColumn, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import { formatLabelSelector, nested as path, templateContainers } from '../printers.ts';
import { boolPointer, cronJobLastSchedule, jobCompletions, jobDuration, jobStatus, jobTemplateContainers } from '../printers-batch.ts';
import { cronJobStrategy, jobStrategy } from '../strategy-batch.ts';

const statusSubresource = { name: 'status', verbs: ['get', 'patch', 'update'] } as const;

export const batchKinds: readonly ResourceKind[] = [
  {
    group: 'batch', version: 'v1', resource: 'cronjobs', singular: 'cronjob', kind: 'CronJob',
    namespaced: true, shortNames: ['cj'], categories: ['all'], verbs: standardVerbs,
    subresources: [statusSubresource],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Schedule', type: 'string', description: 'The cron schedule the jobs are started on.', priority: 0, cell: (o) => stringCell(path(o, 'spec', 'schedule')) },
      { name: 'Timezone', type: 'string', description: 'The time zone the schedule is read in.', priority: 0, cell: (o) => stringCell(path(o, 'spec', 'timeZone') ?? '<none>') },
      { name: 'Suspend', type: 'boolean', description: 'Whether starting new jobs is suspended.', priority: 0, cell: (o) => boolPointer(path(o, 'spec', 'suspend')) },
      { name: 'Active', type: 'integer', description: 'The number of jobs running now.', priority: 0, cell: (o) => { const active = path(o, 'status', 'active'); return Array.isArray(active) ? active.length : 0; } },
      { name: 'Last Schedule', type: 'string', description: 'When a job was last started.', priority: 0, cell: (o, since) => cronJobLastSchedule(o, since) },
      ageColumn,
      { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1, cell: (o) => jobTemplateContainers(o, 'name') },
      { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1, cell: (o) => jobTemplateContainers(o, 'image') },
      { name: 'Selector', type: 'string', description: 'The label selector of the job template.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'jobTemplate', 'spec', 'selector')) },
    ],
    strategy: cronJobStrategy,
    schema: schemaOf('k8s.io.api.batch.v1.CronJob'),
  },
  {
    group: 'batch', version: 'v1', resource: 'jobs', singular: 'job', kind: 'Job',
    namespaced: true, shortNames: [], categories: ['all'], verbs: standardVerbs,
    subresources: [statusSubresource],
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    columns: [
      nameColumn,
      { name: 'Status', type: 'string', description: 'Status of the job.', priority: 0, cell: (o) => jobStatus(o) },
      { name: 'Completions', type: 'string', description: 'The number of pods which reached phase Succeeded, of those needed.', priority: 0, cell: (o) => jobCompletions(o) },
      { name: 'Duration', type: 'string', description: 'Time required to complete the job.', priority: 0, cell: (o, since) => jobDuration(o, since) },
      ageColumn,
      { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1, cell: (o) => templateContainers(o, 'name') },
      { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1, cell: (o) => templateContainers(o, 'image') },
      { name: 'Selector', type: 'string', description: 'The label selector of the job\'s pods.', priority: 1, cell: (o) => formatLabelSelector(path(o, 'spec', 'selector')) },
    ],
    // kube's JobToSelectableFields: status.successful, the succeeded count.
    fieldSelectors: { 'status.successful': (o) => String(typeof path(o, 'status', 'succeeded') === 'number' ? path(o, 'status', 'succeeded') : 0) },
    strategy: jobStrategy,
    schema: schemaOf('k8s.io.api.batch.v1.Job'),
  },
];
