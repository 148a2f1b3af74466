// Owns: the CustomResourceDefinitions the end-to-end suites apply: a CronTab CRD with two
// versions (v1 stored, v1beta1 served with conversion None), status and scale subresources,
// printer columns (one only in wide output), short names, the `all` category, a selectable
// field, and x-kubernetes-validations rules (one with messageExpression, one transition rule);
// a CronTab object; and a CRD whose rule is too expensive to be accepted.

export const cronTabCrdName = 'crontabs.stable.example.com';

function cronTabSchema(): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        description: 'What the CronTab runs and how many copies.',
        'x-kubernetes-validations': [
          // kube estimates string(int) as unbounded, so a message built from one is refused on cost; a bounded string is fine.
          { rule: 'self.replicas <= self.maxReplicas', message: 'replicas exceed maxReplicas', messageExpression: "'replicas exceed maxReplicas for image ' + self.image" },
        ],
        properties: {
          cronSpec: { type: 'string', description: 'The schedule, in cron format.', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
          image: { type: 'string', maxLength: 128, description: 'The container image to run.' },
          color: { type: 'string', default: 'blue', enum: ['red', 'green', 'blue'] },
          replicas: { type: 'integer', minimum: 0, default: 1 },
          maxReplicas: { type: 'integer', minimum: 0, default: 10 },
          tier: {
            type: 'string', maxLength: 32,
            'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'tier is immutable' }],
          },
          ports: {
            type: 'array', maxItems: 16, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } } },
          },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: {
        type: 'object',
        properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
      },
    },
  };
}

export function cronTabCrd(): Record<string, unknown> {
  const columns = [
    { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Image', type: 'string', jsonPath: '.spec.image', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
  const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: cronTabCrdName },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: cronTabSchema() }, subresources, additionalPrinterColumns: columns, selectableFields: [{ jsonPath: '.spec.color' }] },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: cronTabSchema() }, subresources, additionalPrinterColumns: columns, selectableFields: [{ jsonPath: '.spec.color' }] },
      ],
    },
  };
}

export function cronTab(name: string, spec: Record<string, unknown>, apiVersion = 'stable.example.com/v1'): Record<string, unknown> {
  return { apiVersion, kind: 'CronTab', metadata: { name }, spec };
}

/** A CRD whose rule compares every pair of items of an unbounded list of unbounded strings by regex: refused by cost. */
export function expensiveCrd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'expensives.stable.example.com' },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced',
      names: { plural: 'expensives', singular: 'expensive', kind: 'Expensive' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  items: {
                    type: 'array', items: { type: 'string' },
                    'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x.matches(y)))' }],
                  },
                },
              },
            },
          },
        },
      }],
    },
  };
}
