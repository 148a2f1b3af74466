// Owns: a deterministic generator of operator-sized CustomResourceDefinitions and of custom
// resources that match them — written here, not copied from any operator. A StorageCluster CRD
// of apiextensions.k8s.io/v1 with several versions (v1alpha1 deprecated, v1beta1, v1 stored; all
// served, conversion None), status and scale subresources, printer columns, a selectable field,
// and a schema with what real operators' schemas have: nesting more than ten levels deep
// (spec.topology.regions[].zones[].racks[].hosts[].disks[].layout.partitions[].filesystem…),
// list-maps (x-kubernetes-list-type map + list-map keys, string and integer keys), sets,
// x-kubernetes-int-or-string (with the quantity pattern of core's ResourceRequirements),
// x-kubernetes-preserve-unknown-fields islands (with known, pruned properties inside), an
// x-kubernetes-embedded-resource pod-template-like field, enums, patterns, bounds, defaults deep
// in the tree, and dozens of x-kubernetes-validations rules: list all()/exists_one(), regex
// matches, quantity, isCIDR, url, a root rule on metadata.name, transition rules, reason and
// fieldPath, and a messageExpression over bounded strings only (kube estimates string(int) as
// unbounded, so concatenating one is refused on cost).
//
// Its size is set by the number of generated "addon" blocks per version, generated parameters per
// addon and the words of each generated description: `operatorCrdOptions` is a realistic operator
// CRD of a few hundred KB, `megabyteCrdOptions` one of about 1 MB of JSON. Everything derives from a
// seeded PRNG (mulberry32), so the same options give the same bytes.
//
// Resources: `largeResource` builds a valid object of a chosen shape (regions × zones × racks ×
// hosts × disks × partitions), leaving deep defaults unset so the server fills them;
// `schemaViolations` and `ruleViolations` turn a valid one into invalid ones whose causes the tests
// know (schema errors ten levels deep; several CEL failures at once).

type Json = Record<string, unknown>;
type Schema = Record<string, unknown>;

export interface LargeCrdOptions {
  readonly group: string;
  /** Served versions in order; the last is the storage version, the first is deprecated. */
  readonly versions: readonly string[];
  /** Generated addon blocks (spec.addons.<name>) per version. */
  readonly addons: number;
  /** Generated scalar parameters per addon (spec.addons.<name>.parameters.<p>). */
  readonly parametersPerAddon: number;
  /** Words of each generated description. */
  readonly descriptionWords: number;
  /** One rule per this many addons (each addon with a rule gets one of four rule templates). */
  readonly addonRuleEvery: number;
  readonly seed: number;
}

/** A realistic operator CRD: three versions, 10 addons each, 24 rules per version, ~330 KB of JSON. */
export const operatorCrdOptions: LargeCrdOptions = {
  group: 'storage.example.com', versions: ['v1alpha1', 'v1beta1', 'v1'], addons: 10, parametersPerAddon: 6, descriptionWords: 20, addonRuleEvery: 1, seed: 1,
};

/** About 1 MB of JSON: more addons, parameters and words per description. */
export const megabyteCrdOptions: LargeCrdOptions = {
  group: 'mega.example.com', versions: ['v1alpha1', 'v1beta1', 'v1'], addons: 27, parametersPerAddon: 10, descriptionWords: 28, addonRuleEvery: 2, seed: 2,
};

export const largeKind = 'StorageCluster';
export const largePlural = 'storageclusters';

export function largeCrdName(options: LargeCrdOptions): string {
  return `${largePlural}.${options.group}`;
}

// ---- deterministic text ------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = [
  'the', 'cluster', 'replica', 'volume', 'controller', 'reconciles', 'when', 'set', 'is', 'of', 'a', 'to', 'and', 'for', 'each', 'node',
  'storage', 'shard', 'leader', 'follower', 'snapshot', 'backup', 'restore', 'schedule', 'defaults', 'value', 'field', 'must', 'be',
  'unless', 'operator', 'applies', 'rolling', 'update', 'partition', 'zone', 'region', 'rack', 'host', 'disk', 'endpoint', 'secret',
  'certificate', 'rotation', 'interval', 'seconds', 'bytes', 'limit', 'request', 'memory', 'cpu', 'quota', 'policy', 'retention',
  'compaction', 'index', 'cache', 'warm', 'cold', 'tier', 'latency', 'throughput', 'traffic', 'ignored', 'optional', 'required',
];

const addonNouns = ['backup', 'metrics', 'logging', 'tracing', 'audit', 'cache', 'proxy', 'gateway', 'scheduler', 'compactor', 'indexer', 'rebalancer'];
const addonRoles = ['Agent', 'Exporter', 'Sidecar', 'Controller', 'Worker', 'Daemon', 'Relay', 'Monitor'];

function addonName(index: number): string {
  const noun = addonNouns[index % addonNouns.length]!;
  const role = addonRoles[Math.floor(index / addonNouns.length) % addonRoles.length]!;
  const round = Math.floor(index / (addonNouns.length * addonRoles.length));
  return round === 0 ? `${noun}${role}` : `${noun}${role}${round + 1}`;
}

/** The names of the addons a CRD generated with `options` declares, in order. */
export function addonNames(options: LargeCrdOptions): string[] {
  return Array.from({ length: options.addons }, (_, index) => addonName(index));
}

class Writer {
  readonly #random: () => number;
  readonly #words: number;

  constructor(seed: number, descriptionWords: number) {
    this.#random = prng(seed);
    this.#words = descriptionWords;
  }

  /** A description: the title, then generated words, as a sentence. */
  describe(title: string): string {
    const chosen: string[] = [];
    for (let index = 0; index < this.#words; index++) chosen.push(words[Math.floor(this.#random() * words.length)]!);
    return `${title}. ${chosen.join(' ').replace(/^./, (first) => first.toUpperCase())}.`;
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.#random() * values.length)]!;
  }
}

// ---- schema building blocks ----------------------------------------------------------------------

const quantityPattern = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

function intOrString(description: string, extra: Schema = {}): Schema {
  return { description, anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true, ...extra };
}

function quantities(w: Writer, title: string): Schema {
  return {
    type: 'object', description: w.describe(title), maxProperties: 16,
    additionalProperties: intOrString(w.describe('A quantity'), { pattern: quantityPattern }),
  };
}

function resourceRequirements(w: Writer): Schema {
  return {
    type: 'object', description: w.describe('Compute resources'),
    properties: { limits: quantities(w, 'Limits'), requests: quantities(w, 'Requests') },
  };
}

function listMap(description: string, keys: readonly string[], maxItems: number, items: Schema, rules?: Json[]): Schema {
  return {
    type: 'array', description, maxItems, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys], items,
    ...(rules === undefined ? {} : { 'x-kubernetes-validations': rules }),
  };
}

function stringSet(description: string, maxItems: number, maxLength: number, rules?: Json[]): Schema {
  return {
    type: 'array', description, maxItems, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength },
    ...(rules === undefined ? {} : { 'x-kubernetes-validations': rules }),
  };
}

function stringMap(description: string, maxProperties: number): Schema {
  return { type: 'object', description, maxProperties, additionalProperties: { type: 'string', maxLength: 253 } };
}

function island(description: string, properties?: Schema): Schema {
  return { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true, ...(properties === undefined ? {} : { properties }) };
}

// ---- the core of the schema ---------------------------------------------------------------------------

function listeners(w: Writer): Schema {
  return listMap(w.describe('Listeners by name'), ['name'], 16, {
    type: 'object', description: w.describe('A listener'), required: ['name', 'port'],
    'x-kubernetes-validations': [
      { rule: '!has(self.tls) || !self.tls.enabled || has(self.tls.secretName)', message: 'tls.secretName is required when TLS is enabled', fieldPath: '.tls', reason: 'FieldValueRequired' },
    ],
    properties: {
      name: { type: 'string', maxLength: 15, description: w.describe('The listener name') },
      port: { type: 'integer', format: 'int32', minimum: 1, maximum: 65535, description: w.describe('The port') },
      protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'], default: 'TCP', description: w.describe('The protocol') },
      targetPort: intOrString(w.describe('The target port, a number or a named port')),
      hostnames: stringSet(w.describe('Host names served'), 8, 253),
      tls: {
        type: 'object', description: w.describe('TLS'),
        properties: {
          enabled: { type: 'boolean', default: false, description: w.describe('Whether TLS is on') },
          secretName: { type: 'string', maxLength: 253, description: w.describe('The TLS secret') },
          minVersion: { type: 'string', enum: ['1.2', '1.3'], default: '1.2', description: w.describe('The lowest TLS version') },
        },
      },
    },
  }, [
    { rule: 'self.all(l, self.exists_one(m, m.port == l.port))', message: 'listener ports must be unique' },
    { rule: "self.all(l, l.name.matches('^[a-z][a-z0-9-]*$'))", message: 'listener names must be lowercase DNS labels' },
  ]);
}

function partitions(w: Writer): Schema {
  return listMap(w.describe('Partitions by index'), ['index'], 8, {
    type: 'object', description: w.describe('A partition'), required: ['index', 'sizeGiB'],
    'x-kubernetes-validations': [
      { rule: "!has(self.filesystem) || self.filesystem.type != 'swap' || !has(self.mountPath)", message: 'a swap partition has no mountPath', fieldPath: '.mountPath' },
    ],
    properties: {
      index: { type: 'integer', minimum: 1, maximum: 128, description: w.describe('The partition number') },
      sizeGiB: { type: 'integer', minimum: 1, maximum: 65536, description: w.describe('The size in GiB') },
      mountPath: { type: 'string', maxLength: 256, pattern: '^/', description: w.describe('Where it is mounted') },
      filesystem: {
        type: 'object', description: w.describe('The filesystem'),
        properties: {
          type: { type: 'string', enum: ['ext4', 'xfs', 'swap'], default: 'ext4', description: w.describe('The filesystem type') },
          readOnly: { type: 'boolean', default: false, description: w.describe('Mounted read-only') },
          options: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 64 }, description: w.describe('Mount options') },
        },
      },
    },
  });
}

function topology(w: Writer): Schema {
  const disks = listMap(w.describe('Disks by device'), ['device'], 8, {
    type: 'object', description: w.describe('A disk'), required: ['device'],
    'x-kubernetes-validations': [
      { rule: "self.role != 'boot' || (has(self.layout) && has(self.layout.partitions) && self.layout.partitions.exists(p, p.index == 1))", message: 'a boot disk needs partition 1' },
    ],
    properties: {
      device: { type: 'string', maxLength: 32, pattern: '^/dev/[a-z0-9]+$', description: w.describe('The device path') },
      role: { type: 'string', enum: ['boot', 'data', 'log'], default: 'data', description: w.describe('What the disk holds') },
      layout: {
        type: 'object', description: w.describe('The partition layout'),
        properties: {
          scheme: { type: 'string', enum: ['gpt', 'mbr'], default: 'gpt', description: w.describe('The partition table') },
          partitions: partitions(w),
        },
      },
    },
  });
  const hosts = listMap(w.describe('Hosts by host name'), ['hostname'], 16, {
    type: 'object', description: w.describe('A host'), required: ['hostname'],
    'x-kubernetes-validations': [
      { rule: "!has(self.disks) || self.disks.exists_one(d, d.role == 'boot')", message: 'a host needs exactly one boot disk', fieldPath: '.disks' },
    ],
    properties: {
      hostname: { type: 'string', maxLength: 63, description: w.describe('The host name') },
      cpu: intOrString(w.describe('CPUs, a count or a quantity')),
      labels: stringMap(w.describe('Host labels'), 16),
      extra: island(w.describe('Vendor data kept as given')),
      disks,
    },
  });
  const racks = listMap(w.describe('Racks by id'), ['id'], 8, {
    type: 'object', description: w.describe('A rack'), required: ['id'],
    properties: {
      id: { type: 'string', maxLength: 16, description: w.describe('The rack id') },
      power: { type: 'string', enum: ['A', 'B', 'AB'], default: 'AB', description: w.describe('Power feeds') },
      hosts,
    },
  });
  const zones = listMap(w.describe('Zones by name'), ['name'], 4, {
    type: 'object', description: w.describe('A zone'), required: ['name'],
    properties: { name: { type: 'string', maxLength: 63, description: w.describe('The zone name') }, racks },
  });
  return {
    type: 'object', description: w.describe('Where the cluster runs'), required: ['regions'],
    properties: {
      regions: listMap(w.describe('Regions by name'), ['name'], 4, {
        type: 'object', description: w.describe('A region'), required: ['name'],
        properties: { name: { type: 'string', maxLength: 63, description: w.describe('The region name') }, zones },
      }),
    },
  };
}

function podTemplate(w: Writer): Schema {
  const container = {
    type: 'object', description: w.describe('A container'), required: ['name', 'image'],
    properties: {
      name: { type: 'string', maxLength: 63, description: w.describe('The container name') },
      image: { type: 'string', maxLength: 512, description: w.describe('The image') },
      args: { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 1024 }, 'x-kubernetes-list-type': 'atomic', description: w.describe('Arguments') },
      env: listMap(w.describe('Environment'), ['name'], 64, {
        type: 'object', required: ['name'],
        properties: { name: { type: 'string', maxLength: 128 }, value: { type: 'string', maxLength: 4096 } },
      }),
      ports: listMap(w.describe('Ports'), ['containerPort', 'protocol'], 16, {
        type: 'object', required: ['containerPort'],
        properties: {
          containerPort: { type: 'integer', minimum: 1, maximum: 65535 },
          protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'], default: 'TCP' },
          name: { type: 'string', maxLength: 15 },
        },
      }),
      resources: resourceRequirements(w),
    },
  };
  return {
    type: 'object', description: w.describe('The pod template of each member'), 'x-kubernetes-embedded-resource': true,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object', description: w.describe('The pod spec'),
        properties: {
          containers: listMap(w.describe('Containers by name'), ['name'], 8, container),
          nodeSelector: { ...stringMap(w.describe('Node selector'), 32), 'x-kubernetes-map-type': 'atomic' },
          priorityClassName: { type: 'string', maxLength: 253 },
          overrides: island(w.describe('Anything else of a pod spec, passed through')),
        },
      },
    },
  };
}

const addonRuleTemplates: readonly ((name: string) => { readonly at: 'addon' | 'endpoints' | 'tags'; readonly rule: Json })[] = [
  (name) => ({ at: 'addon', rule: { rule: '!self.enabled || self.replicas >= 1', message: `${name} needs at least one replica when enabled` } }),
  (name) => ({ at: 'endpoints', rule: { rule: 'self.all(e, e.weight <= 100)', message: `${name} endpoint weights are at most 100` } }),
  (name) => ({ at: 'tags', rule: { rule: "self.all(t, t.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))", message: `${name} tags must be DNS labels` } }),
  (name) => ({ at: 'addon', rule: { rule: "self.imagePullPolicy != 'Never' || has(self.image)", message: `${name} needs an image when it is never pulled`, fieldPath: '.image' } }),
];

function addon(w: Writer, name: string, index: number, options: LargeCrdOptions): Schema {
  const rule = index % options.addonRuleEvery === 0 ? addonRuleTemplates[(index / options.addonRuleEvery) % addonRuleTemplates.length]!(name) : undefined;
  const rulesAt = (at: 'addon' | 'endpoints' | 'tags'): Json => (rule?.at === at ? { 'x-kubernetes-validations': [rule.rule] } : {});
  const parameters: Schema = {};
  for (let p = 0; p < options.parametersPerAddon; p++) {
    const kind = p % 4;
    const key = `${w.pick(['max', 'min', 'default', 'initial', 'target'])}${w.pick(['Batch', 'Queue', 'Window', 'Buffer', 'Retry', 'Flush'])}${w.pick(['Size', 'Count', 'Delay', 'Depth'])}${p}`;
    parameters[key] = kind === 0 ? { type: 'integer', minimum: 0, maximum: 1_000_000, default: 10 * (p + 1), description: w.describe(`Parameter ${key}`) }
      : kind === 1 ? { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._-]*$', description: w.describe(`Parameter ${key}`) }
        : kind === 2 ? { type: 'boolean', default: p % 3 === 0, description: w.describe(`Parameter ${key}`) }
          : intOrString(w.describe(`Parameter ${key}`));
  }
  return {
    type: 'object', description: w.describe(`The ${name} addon`), ...rulesAt('addon'),
    properties: {
      enabled: { type: 'boolean', default: false, description: w.describe('Whether it runs') },
      replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 64, default: 1, description: w.describe('How many copies') },
      image: { type: 'string', maxLength: 256, description: w.describe('The image') },
      imagePullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'], default: 'IfNotPresent', description: w.describe('When to pull') },
      interval: { type: 'string', maxLength: 32, pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$', default: '30s', description: w.describe('How often it runs') },
      port: intOrString(w.describe('Its port')),
      resources: resourceRequirements(w),
      endpoints: listMap(w.describe('Endpoints by name'), ['name'], 8, {
        type: 'object', required: ['name'],
        properties: {
          name: { type: 'string', maxLength: 63, description: w.describe('The endpoint name') },
          url: { type: 'string', maxLength: 2048, description: w.describe('The endpoint URL') },
          weight: { type: 'integer', minimum: 0, default: 1, description: w.describe('The endpoint weight') },
        },
      }, rule?.at === 'endpoints' ? [rule.rule] : undefined),
      tags: { ...stringSet(w.describe('Tags'), 16, 63), ...rulesAt('tags') },
      annotations: stringMap(w.describe('Annotations'), 32),
      tuning: {
        type: 'object', description: w.describe('Tuning'),
        properties: {
          queue: {
            type: 'object', description: w.describe('The queue'),
            properties: {
              backoff: {
                type: 'object', description: w.describe('Backoff'),
                properties: {
                  initial: { type: 'string', maxLength: 32, default: '1s', description: w.describe('The first delay') },
                  factor: { type: 'number', minimum: 1, maximum: 10, default: 2, description: w.describe('The growth factor') },
                  jitter: { type: 'boolean', default: true, description: w.describe('Whether delays are jittered') },
                },
              },
              depth: { type: 'integer', minimum: 1, default: 1024, description: w.describe('The queue depth') },
            },
          },
        },
      },
      parameters: { type: 'object', description: w.describe('Parameters'), properties: parameters },
      overrides: island(w.describe('Anything else, passed through')),
    },
  };
}

function specSchema(w: Writer, options: LargeCrdOptions): Schema {
  const addons: Schema = {};
  addonNames(options).forEach((name, index) => { addons[name] = addon(w, name, index, options); });
  return {
    type: 'object', description: w.describe('The desired state of the storage cluster'), required: ['version', 'topology'],
    'x-kubernetes-validations': [
      // A messageExpression over bounded strings only: mode has maxLength (string(int) would be unbounded and refused on cost).
      { rule: 'self.replicas <= self.maxReplicas', message: 'replicas exceed maxReplicas', messageExpression: "'replicas exceed maxReplicas in mode ' + self.mode" },
      { rule: "self.mode != 'Standalone' || self.replicas <= 1", message: 'a Standalone cluster has at most one replica', fieldPath: '.replicas' },
    ],
    properties: {
      replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 1000, default: 3, description: w.describe('Members') },
      maxReplicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 1000, default: 100, description: w.describe('The most members') },
      version: { type: 'string', maxLength: 32, pattern: '^v[0-9]+\\.[0-9]+\\.[0-9]+$', description: w.describe('The product version') },
      mode: {
        type: 'string', maxLength: 16, enum: ['Standalone', 'Replicated', 'Sharded'], default: 'Replicated', description: w.describe('The topology mode'),
        'x-kubernetes-validations': [{ rule: "oldSelf != 'Sharded' || self == 'Sharded'", message: 'a Sharded cluster cannot change mode' }],
      },
      paused: { type: 'boolean', default: false, description: w.describe('Stops reconciling') },
      storageClassName: {
        type: 'string', maxLength: 63, description: w.describe('The storage class of every volume'),
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'storageClassName is immutable' }],
      },
      minMemory: {
        type: 'string', maxLength: 16, description: w.describe('The least memory of a member'),
        'x-kubernetes-validations': [{ rule: "isQuantity(self) && quantity(self).compareTo(quantity('64Mi')) >= 0", message: 'minMemory must be at least 64Mi' }],
      },
      resources: resourceRequirements(w),
      listeners: listeners(w),
      network: {
        type: 'object', description: w.describe('Networking'),
        properties: {
          podCIDRs: stringSet(w.describe('Pod CIDRs'), 4, 43, [{ rule: 'self.all(c, isCIDR(c))', message: 'podCIDRs must be CIDRs' }]),
          endpoint: {
            type: 'string', maxLength: 256, description: w.describe('The public endpoint'),
            'x-kubernetes-validations': [{ rule: "isURL(self) && url(self).getScheme() == 'https'", message: 'endpoint must be an https URL' }],
          },
        },
      },
      config: island(w.describe('Product configuration, passed through except the fields declared here'), {
        logLevel: { type: 'string', enum: ['debug', 'info', 'warn', 'error'], default: 'info', description: w.describe('The log level') },
        tuning: {
          type: 'object', description: w.describe('Tuning the operator reads'),
          properties: {
            cacheSizeMiB: { type: 'integer', minimum: 16, default: 256, description: w.describe('The cache size') },
            gcPercent: { type: 'integer', minimum: 10, maximum: 1000, description: w.describe('GC target') },
          },
        },
      }),
      topology: topology(w),
      template: podTemplate(w),
      addons: { type: 'object', description: w.describe('Optional components'), properties: addons },
    },
  };
}

function statusSchema(w: Writer): Schema {
  return {
    type: 'object', description: w.describe('The observed state'),
    properties: {
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: w.describe('The generation observed') },
      phase: { type: 'string', enum: ['Pending', 'Provisioning', 'Running', 'Degraded', 'Failed'], description: w.describe('The phase') },
      readyReplicas: { type: 'integer', format: 'int32', minimum: 0, description: w.describe('Ready members') },
      selector: { type: 'string', description: w.describe('The label selector of the members') },
      conditions: listMap(w.describe('Conditions by type'), ['type'], 32, {
        type: 'object', required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
        properties: {
          lastTransitionTime: { type: 'string', format: 'date-time', description: w.describe('When it last changed') },
          message: { type: 'string', maxLength: 32768, description: w.describe('A human message') },
          observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
          reason: { type: 'string', maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$', description: w.describe('The reason') },
          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
          type: { type: 'string', maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' },
        },
      }),
    },
  };
}

function versionSchema(w: Writer, options: LargeCrdOptions): Schema {
  return {
    type: 'object', description: w.describe(`${largeKind} is a storage cluster the operator runs`),
    'x-kubernetes-validations': [{ rule: 'self.metadata.name.size() <= 40', message: 'metadata.name must be at most 40 characters' }],
    properties: {
      apiVersion: { type: 'string', description: w.describe('APIVersion') },
      kind: { type: 'string', description: w.describe('Kind') },
      metadata: { type: 'object' },
      spec: specSchema(w, options),
      status: statusSchema(w),
    },
  };
}

/** The CRD (apiextensions.k8s.io/v1) for `options`, deterministic. */
export function largeCrd(options: LargeCrdOptions): Json {
  const w = new Writer(options.seed, options.descriptionWords);
  const columns = [
    { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
    { name: 'Version', type: 'string', jsonPath: '.spec.version', priority: 1 },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
  const storage = options.versions.at(-1);
  const versions = options.versions.map((name, index) => ({
    name, served: true, storage: name === storage,
    ...(index === 0 && options.versions.length > 1 ? { deprecated: true, deprecationWarning: `${options.group}/${name} ${largeKind} is deprecated; use ${options.group}/${storage}` } : {}),
    schema: { openAPIV3Schema: versionSchema(w, options) },
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.readyReplicas', labelSelectorPath: '.status.selector' } },
    additionalPrinterColumns: columns,
    // Only on one version: identical selectableFields on every version are hoisted to spec.selectableFields in
    // kube's internal form, and with per-version schemas (they differ here) kube refuses that ("selectableFields may
    // only be set when validations.schema is included").
    ...(name === storage ? { selectableFields: [{ jsonPath: '.spec.mode' }] } : {}),
  }));
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: largeCrdName(options), labels: { 'app.kubernetes.io/part-of': 'storage-operator' } },
    spec: {
      group: options.group, scope: 'Namespaced',
      names: { plural: largePlural, singular: 'storagecluster', kind: largeKind, listKind: `${largeKind}List`, shortNames: ['stc'], categories: ['all', 'storage'] },
      versions,
    },
  };
}

// ---- custom resources --------------------------------------------------------------------------------

export interface ResourceShape {
  readonly regions: number;
  readonly zones: number;
  readonly racks: number;
  readonly hosts: number;
  readonly disks: number;
  readonly partitions: number;
  /** How many addons (the first ones of the CRD) are filled in. */
  readonly addons: number;
}

/** 2 × 2 × 2 × 2 hosts, 3 disks each, 3 partitions per disk: 48 disks, 144 partitions. */
export const defaultShape: ResourceShape = { regions: 2, zones: 2, racks: 2, hosts: 2, disks: 3, partitions: 3, addons: 8 };

function disk(host: string, position: number, partitionCount: number): Json {
  const boot = position === 0;
  const partitionList = Array.from({ length: partitionCount }, (_, p) => {
    const index = p + 1;
    if (boot && index === 2) return { index, sizeGiB: 16, filesystem: { type: 'swap' } };
    if (boot && index === 1) return { index, sizeGiB: 1, mountPath: '/boot', filesystem: { type: 'ext4', options: ['noatime'] } };
    // No type, no readOnly: the server's defaults fill them in; no filesystem at all on the last one.
    return index === partitionCount && !boot ? { index, sizeGiB: 100 * index } : { index, sizeGiB: 100 * index, mountPath: `/data/${host}/${position}/${index}`, filesystem: {} };
  });
  return {
    device: `/dev/sd${String.fromCharCode(97 + position)}`,
    ...(boot ? { role: 'boot' } : {}),
    layout: { partitions: partitionList },
  };
}

function addonValue(name: string, index: number): Json {
  return {
    enabled: true, replicas: 1 + (index % 3), image: `registry.example.com/${name.toLowerCase()}:1.${index}.0`,
    port: index % 2 === 0 ? 8080 + index : `http-${index}`,
    resources: { limits: { cpu: 1, memory: '512Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    endpoints: [{ name: 'primary', url: `https://${name.toLowerCase()}.example.com`, weight: 60 }, { name: 'secondary', url: `https://${name.toLowerCase()}-b.example.com`, weight: 40 }],
    tags: ['storage', `addon-${index}`],
    annotations: { 'example.com/owner': 'team-storage' },
    tuning: { queue: { backoff: { initial: '2s' } } },
    overrides: { experimental: { flags: ['a', 'b'], level: index } },
  };
}

/** A valid StorageCluster of `shape` for a CRD generated with `options` (served version `version`, default the storage one). */
export function largeResource(name: string, options: LargeCrdOptions, shape: ResourceShape = defaultShape, version = options.versions.at(-1)!): Json {
  const regions = Array.from({ length: shape.regions }, (_, r) => ({
    name: `region-${r}`,
    zones: Array.from({ length: shape.zones }, (_, z) => ({
      name: `zone-${r}${String.fromCharCode(97 + z)}`,
      racks: Array.from({ length: shape.racks }, (_, k) => ({
        id: `r${r}z${z}k${k}`,
        hosts: Array.from({ length: shape.hosts }, (_, h) => {
          const hostname = `node-${r}-${z}-${k}-${h}`;
          return {
            hostname, cpu: h % 2 === 0 ? 32 : '31500m', labels: { 'example.com/rack': `r${r}z${z}k${k}` },
            extra: { vendor: { model: 'X1', firmware: { bios: '2.1', bmc: ['a', 'b'] } } },
            disks: Array.from({ length: shape.disks }, (_, d) => disk(hostname, d, shape.partitions)),
          };
        }),
      })),
    })),
  }));
  const addons: Json = {};
  addonNames(options).slice(0, shape.addons).forEach((addonKey, index) => { addons[addonKey] = addonValue(addonKey, index); });
  return {
    apiVersion: `${options.group}/${version}`, kind: largeKind, metadata: { name, labels: { 'app.kubernetes.io/name': name } },
    spec: {
      replicas: 3, maxReplicas: 9, version: 'v2.7.1', mode: 'Replicated', storageClassName: 'fast-ssd', minMemory: '256Mi',
      resources: { limits: { cpu: 8, memory: '32Gi' }, requests: { cpu: '2500m', memory: '8Gi' } },
      listeners: [
        { name: 'client', port: 9000, targetPort: 'client', tls: { enabled: true, secretName: `${name}-client-tls` }, hostnames: [`${name}.example.com`] },
        { name: 'peer', port: 9001, targetPort: 19001 },
        { name: 'metrics', port: 9090, protocol: 'TCP' },
      ],
      network: { podCIDRs: ['10.32.0.0/16', 'fd00:10:32::/64'], endpoint: `https://${name}.example.com:8443/api` },
      config: { logLevel: 'warn', tuning: { cacheSizeMiB: 1024 }, experimental: { raftTick: '100ms', features: { compression: 'zstd' } } },
      topology: { regions },
      template: {
        apiVersion: 'v1', kind: 'Pod', metadata: { labels: { app: name }, annotations: { 'example.com/scrape': 'true' } },
        spec: {
          containers: [
            {
              name: 'server', image: 'registry.example.com/storage/server:2.7.1', args: ['--config', '/etc/config.yaml'],
              env: [{ name: 'GOMAXPROCS', value: '8' }], ports: [{ containerPort: 9000, name: 'client' }, { containerPort: 9000, protocol: 'UDP', name: 'client-udp' }],
              resources: { requests: { cpu: 2, memory: '8Gi' } },
            },
            { name: 'sidecar', image: 'registry.example.com/storage/sidecar:2.7.1' },
          ],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          overrides: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'storage', effect: 'NoSchedule' }] },
        },
      },
      addons,
    },
  };
}

/** JSON path helpers over a generated resource (throws when the shape has no such element). */
function at(resource: Json, ...steps: (string | number)[]): Json {
  let value: unknown = resource;
  for (const step of steps) {
    value = (value as Record<string | number, unknown>)[step];
    if (value === undefined) throw new Error(`no ${steps.join('.')} in the resource`);
  }
  return value as Json;
}

/** The partitions list of one disk: spec.topology.regions[r].zones[z].racks[k].hosts[h].disks[d].layout.partitions. */
export function partitionsOf(resource: Json, r: number, z: number, k: number, h: number, d: number): Json[] {
  return at(resource, 'spec', 'topology', 'regions', r, 'zones', z, 'racks', k, 'hosts', h, 'disks', d, 'layout', 'partitions') as unknown as Json[];
}

export function hostOf(resource: Json, r: number, z: number, k: number, h: number): Json {
  return at(resource, 'spec', 'topology', 'regions', r, 'zones', z, 'racks', k, 'hosts', h);
}

/**
 * A copy of a valid resource (default shape) with schema violations, including blocking ones (a
 * type error and an unsupported value, so kube runs no rules): see the test for kube's causes.
 */
export function schemaViolations(valid: Json): Json {
  const resource = structuredClone(valid);
  const spec = at(resource, 'spec');
  spec['replicas'] = 5000;
  (at(spec, 'listeners', 0))['name'] = 'client-listener-long';
  partitionsOf(resource, 0, 1, 0, 1, 0)[1]!['sizeGiB'] = 0;
  at(partitionsOf(resource, 1, 1, 1, 1, 2)[0]!, 'filesystem')['type'] = 'zfs';
  at(hostOf(resource, 0, 0, 1, 0), 'disks', 1)['device'] = 'sdb';
  hostOf(resource, 1, 0, 0, 1)['cpu'] = true;
  delete (at(resource, 'spec', 'topology', 'regions', 1, 'zones', 0, 'racks', 1))['id'];
  delete at(spec, 'template')['kind'];
  return resource;
}

/** A copy of a valid resource (default shape) that breaks many rules and no blocking schema check. */
export function ruleViolations(valid: Json, options: LargeCrdOptions): Json {
  const resource = structuredClone(valid);
  const spec = at(resource, 'spec');
  spec['replicas'] = 12;
  spec['mode'] = 'Sharded';
  spec['minMemory'] = '32Mi';
  const listenerList = at(spec, 'listeners') as unknown as Json[];
  listenerList[1]!['port'] = 9000;
  listenerList[2]!['name'] = 'Metrics';
  listenerList[2]!['tls'] = { enabled: true };
  at(spec, 'network')['podCIDRs'] = ['10.32.0.0/16', '10.33.0.0/33'];
  at(spec, 'network')['endpoint'] = 'http://insecure.example.com';
  // A swap partition with a mount path, ten levels down.
  partitionsOf(resource, 0, 0, 1, 0, 0)[1]!['mountPath'] = '/swap';
  // A second boot disk (with its partition 1, so only the host's rule fails).
  at(hostOf(resource, 1, 1, 0, 1), 'disks', 2)['role'] = 'boot';
  // A pattern error does not block the rules.
  at(hostOf(resource, 1, 0, 1, 0), 'disks', 1)['device'] = '/dev/SDB';
  const first = addonNames(options)[0]!;
  at(spec, 'addons', first)['replicas'] = 0;
  return resource;
}
