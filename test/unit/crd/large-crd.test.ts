// Owns: operator-sized CRDs through the API tier in process (the real buildServer over a real
// ClusterState, test/unit/api/harness.ts), with the generator of test/support/large-crd.ts.
// Proves: a ~1 MB CRD (three versions, ~90 CEL rules) is created and becomes served (how fast:
// npm run bench:crd), and a re-apply (PUT with a changed description) works and is served; a ~330 KB operator CRD serves a large custom resource
// (nesting more than ten levels deep, list-maps, int-or-string, preserve-unknown islands, an
// embedded resource): pruning drops unknown fields outside the islands (with kube's warnings) and
// keeps them inside, defaults are filled deep in the tree, an invalid object gets kube's causes
// (field paths ten levels deep; a blocking error skips the rules) and several rule failures at
// once (any NotSupported, Required, TooLong, TooMany or TypeInvalid error skips them, as kube's
// hasBlockingErr), transition rules block an update, a deprecated version answers with its
// warning, and server-side apply by two managers merges a list-map by key, a conflict is kube's
// 409, force takes the field over, managedFields records both managers, an applier owns exactly
// what it sent (never the server's defaults), and preserve-unknown islands are owned field by
// field (structured-merge-diff's deduced type).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from '../api/harness.ts';
import type { Harness } from '../api/harness.ts';
import {
  addonNames, hostOf, largeCrd, largeCrdName, largeKind, largePlural, largeResource, megabyteCrdOptions, operatorCrdOptions, partitionsOf,
  ruleViolations, schemaViolations,
} from '../../support/large-crd.ts';
import type { LargeCrdOptions } from '../../support/large-crd.ts';
import { waitFor } from '../../support/wait-for.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Cause { field?: string; message?: string; reason?: string }

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const options = operatorCrdOptions;
const clusters = (version = 'v1', group = options.group): string => `/apis/${group}/${version}/namespaces/t/${largePlural}`;
const applyPatch = { 'content-type': 'application/apply-patch+yaml' };

let harness: Harness;

async function served(crdOptions: LargeCrdOptions): Promise<void> {
  await waitFor(async () => (await harness.request('GET', clusters('v1', crdOptions.group))).statusCode === 200, { timeoutMs: 15_000, description: `${largeCrdName(crdOptions)} served` });
}

async function create(object: Json, url = clusters()): Promise<Json> {
  const response = await harness.request('POST', url, object);
  expect(response.statusCode, response.body.slice(0, 2000)).toBe(201);
  return response.json();
}

/** The causes of a 422, sorted (kube walks Go maps, so the order across fields is not fixed). */
async function invalidCauses(method: string, url: string, body: unknown, headers?: Record<string, string>): Promise<Cause[]> {
  const response = await harness.request(method, url, body, headers);
  expect(response.statusCode, response.body.slice(0, 4000)).toBe(422);
  expect(response.json()).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { group: options.group, kind: largeKind } });
  return sortedCauses(response.json().details.causes as Cause[]);
}

function sortedCauses(causes: readonly Cause[]): Cause[] {
  const key = (cause: Cause): string => `${cause.field ?? ''}\u0000${cause.message ?? ''}`;
  return [...causes].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function warnings(headers: Record<string, unknown>): string[] {
  const value = headers['warning'];
  return value === undefined ? [] : [value].flat().flatMap((item) => String(item).split(/,(?=\s*299 )/)).map((item) => item.trim());
}

beforeAll(async () => {
  harness = await startHarness();
  const created = await harness.request('POST', crds, largeCrd(options));
  expect(created.statusCode, created.body.slice(0, 4000)).toBe(201);
  await served(options);
});

afterAll(async () => {
  await harness.close();
});

describe('a ~1 MB CustomResourceDefinition', () => {
  // How long it takes is measured by npm run bench:crd, not asserted here (the machine is shared).
  it('is created, becomes Established and served, and a re-apply with a changed description works', async () => {
    const crd = largeCrd(megabyteCrdOptions);
    const bytes = JSON.stringify(crd).length;
    expect(bytes).toBeGreaterThan(950_000);
    expect(bytes).toBeLessThan(1_200_000);
    const created = await harness.request('POST', crds, crd);
    expect(created.statusCode, created.body.slice(0, 4000)).toBe(201);
    await served(megabyteCrdOptions);
    const name = largeCrdName(megabyteCrdOptions);
    const stored = (await harness.request('GET', `${crds}/${name}`)).json();
    expect(stored.metadata.generation).toBe(1);
    expect(stored.status.storedVersions).toEqual(['v1']);
    expect((stored.status.conditions as Json[]).map((condition) => `${condition.type}=${condition.status}`)).toEqual(expect.arrayContaining(['NamesAccepted=True', 'Established=True']));
    expect(stored.spec.versions).toHaveLength(3);

    // Re-apply: the same CRD with one description changed, as `kubectl replace` sends it.
    const changed = structuredClone(stored);
    changed.spec.versions[2].schema.openAPIV3Schema.properties.spec.description = 'The desired state, described anew.';
    delete changed.status;
    const reapplied = await harness.request('PUT', `${crds}/${name}`, changed);
    expect(reapplied.statusCode, reapplied.body.slice(0, 4000)).toBe(200);
    expect(reapplied.json().metadata.generation).toBe(2);
    expect(reapplied.json().spec.versions[2].schema.openAPIV3Schema.properties.spec.description).toBe('The desired state, described anew.');
    const definition = `com.example.mega.v1.${largeKind}`;
    await waitFor(async () => {
      const openapi = await harness.request('GET', `/openapi/v3/apis/${megabyteCrdOptions.group}/v1`);
      return openapi.statusCode === 200 && openapi.json().components.schemas[definition]?.properties?.spec?.description === 'The desired state, described anew.';
    }, { timeoutMs: 10_000, description: 'the changed description served by OpenAPI v3' });
    // Still served, with every version: an object of the 1 MB CRD's kind is created and read back.
    const resource = largeResource('mega', megabyteCrdOptions);
    const made = await create(resource, clusters('v1', megabyteCrdOptions.group));
    expect(made.spec.topology.regions).toHaveLength(2);
    const asBeta = await harness.request('GET', `${clusters('v1beta1', megabyteCrdOptions.group)}/mega`);
    expect(asBeta.statusCode).toBe(200);
    expect(asBeta.json().apiVersion).toBe(`${megabyteCrdOptions.group}/v1beta1`);
  });
});

describe('a large custom resource of an operator CRD', () => {
  it('is created; unknown fields are pruned outside preserve-unknown islands (with kube\'s warnings) and kept inside them', async () => {
    const resource = largeResource('pruned', options);
    expect(JSON.stringify(resource).length).toBeGreaterThan(15_000);
    const spec = resource['spec'] as Json;
    spec.bogus = 1;
    spec.addons.unknownAddon = { enabled: true };
    partitionsOf(resource, 1, 0, 1, 0, 1)[0]!['compression'] = 'lz4';
    (partitionsOf(resource, 0, 0, 0, 0, 0)[0]!['filesystem'] as Json).journal = 'ordered';
    spec.config.tuning.bogus = true;
    spec.config.experimental.deeper = { still: { kept: [1, 2, 3] } };
    (hostOf(resource, 1, 1, 1, 1)['extra'] as Json).vendor.firmware.nic = { model: 'N2', offload: true };
    spec.template.metadata.bogus = 'x';
    spec.template.spec.containers[0].bogus = 'y';
    spec.template.spec.overrides.hostNetwork = true;
    spec.addons[addonNames(options)[0]!].tuning.queue.backoff.bogus = 3;
    spec.addons[addonNames(options)[0]!].overrides.anything = { goes: 'here' };

    const response = await harness.request('POST', clusters(), resource);
    expect(response.statusCode, response.body.slice(0, 2000)).toBe(201);
    const created = response.json();
    // kube's order: the pruned paths sorted, then the embedded resources' metadata.
    expect(warnings(response.headers)).toEqual([
      `299 - "unknown field \\"spec.addons.${addonNames(options)[0]}.tuning.queue.backoff.bogus\\""`,
      '299 - "unknown field \\"spec.addons.unknownAddon\\""',
      '299 - "unknown field \\"spec.bogus\\""',
      '299 - "unknown field \\"spec.config.tuning.bogus\\""',
      '299 - "unknown field \\"spec.template.spec.containers[0].bogus\\""',
      '299 - "unknown field \\"spec.topology.regions[0].zones[0].racks[0].hosts[0].disks[0].layout.partitions[0].filesystem.journal\\""',
      '299 - "unknown field \\"spec.topology.regions[1].zones[0].racks[1].hosts[0].disks[1].layout.partitions[0].compression\\""',
      '299 - "unknown field \\"spec.template.metadata.bogus\\""',
    ]);
    const got = created.spec;
    expect(got.bogus).toBeUndefined();
    expect(got.addons.unknownAddon).toBeUndefined();
    expect(partitionsOf(created, 1, 0, 1, 0, 1)[0]).not.toHaveProperty('compression');
    expect(partitionsOf(created, 0, 0, 0, 0, 0)[0]!['filesystem']).not.toHaveProperty('journal');
    expect(got.config.tuning).toEqual({ cacheSizeMiB: 1024 });
    expect(got.template.metadata).toEqual({ labels: { app: 'pruned' }, annotations: { 'example.com/scrape': 'true' } });
    expect(got.template.spec.containers[0]).not.toHaveProperty('bogus');
    expect(got.addons[addonNames(options)[0]!].tuning.queue.backoff).not.toHaveProperty('bogus');
    // Kept inside the islands, whole.
    expect(got.config.experimental).toEqual({ raftTick: '100ms', features: { compression: 'zstd' }, deeper: { still: { kept: [1, 2, 3] } } });
    expect(hostOf(created, 1, 1, 1, 1)['extra']).toEqual({ vendor: { model: 'X1', firmware: { bios: '2.1', bmc: ['a', 'b'], nic: { model: 'N2', offload: true } } } });
    expect(got.template.spec.overrides).toEqual({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'storage', effect: 'NoSchedule' }], hostNetwork: true });
    expect(got.addons[addonNames(options)[0]!].overrides).toEqual({ experimental: { flags: ['a', 'b'], level: 0 }, anything: { goes: 'here' } });
    // What was stored is what was answered.
    const read = (await harness.request('GET', `${clusters()}/pruned`)).json();
    expect(read.spec).toEqual(created.spec);
  });

  it('refuses unknown fields under fieldValidation=Strict with kube\'s strict decoding error', async () => {
    const resource = largeResource('strict', options);
    (resource['spec'] as Json).bogus = 1;
    partitionsOf(resource, 1, 1, 1, 1, 2)[2]!['compression'] = 'lz4';
    const response = await harness.request('POST', `${clusters()}?fieldValidation=Strict`, resource);
    expect(response.statusCode, response.body.slice(0, 2000)).toBe(400);
    expect(response.json().message).toBe(`${largeKind} in version "v1" cannot be handled as a ${largeKind}: strict decoding error: `
      + 'unknown field "spec.bogus", unknown field "spec.topology.regions[1].zones[1].racks[1].hosts[1].disks[2].layout.partitions[2].compression"');
  });

  it('gets its defaults filled in deep in the tree', async () => {
    const resource = largeResource('defaulted', options);
    delete (resource['spec'] as Json).config.logLevel;
    const created = await create(resource);
    const spec = created.spec;
    expect(spec.paused).toBe(false);
    expect(spec.mode).toBe('Replicated');
    expect(spec.config.logLevel).toBe('info');
    expect(spec.listeners.map((listener: Json) => listener.protocol)).toEqual(['TCP', 'TCP', 'TCP']);
    expect(spec.listeners[0].tls).toEqual({ enabled: true, secretName: 'defaulted-client-tls', minVersion: '1.2' });
    expect(spec.topology.regions[1].zones[1].racks[1].power).toBe('AB');
    const host = hostOf(created, 1, 1, 1, 1);
    const disks = host['disks'] as Json[];
    expect(disks.map((disk) => disk.role)).toEqual(['boot', 'data', 'data']);
    expect(disks.map((disk) => disk.layout.scheme)).toEqual(['gpt', 'gpt', 'gpt']);
    // Eleven levels down: spec.topology.regions[1].zones[1].racks[1].hosts[1].disks[2].layout.partitions[0].filesystem.
    expect(partitionsOf(created, 1, 1, 1, 1, 2)).toEqual([
      { index: 1, sizeGiB: 100, mountPath: '/data/node-1-1-1-1/2/1', filesystem: { type: 'ext4', readOnly: false } },
      { index: 2, sizeGiB: 200, mountPath: '/data/node-1-1-1-1/2/2', filesystem: { type: 'ext4', readOnly: false } },
      { index: 3, sizeGiB: 300 },
    ]);
    expect(partitionsOf(created, 1, 1, 1, 1, 0)[1]).toEqual({ index: 2, sizeGiB: 16, filesystem: { type: 'swap', readOnly: false } });
    expect(spec.template.spec.containers[0].ports).toEqual([{ containerPort: 9000, name: 'client', protocol: 'TCP' }, { containerPort: 9000, protocol: 'UDP', name: 'client-udp' }]);
    const addon = spec.addons[addonNames(options)[1]!];
    expect(addon).toMatchObject({ imagePullPolicy: 'IfNotPresent', interval: '30s', tuning: { queue: { backoff: { initial: '2s', factor: 2, jitter: true }, depth: 1024 } } });
    expect(addon.endpoints.map((endpoint: Json) => endpoint.weight)).toEqual([60, 40]);
    expect(created.metadata.generation).toBe(1);
  });

  it('that is invalid gets kube\'s causes ten levels deep, and its rules are skipped after a blocking error', async () => {
    const invalid = schemaViolations(largeResource('broken', options));
    const hostCpu = 'spec.topology.regions[1].zones[0].racks[0].hosts[1].cpu';
    const sizeGiB = 'spec.topology.regions[0].zones[1].racks[0].hosts[1].disks[0].layout.partitions[1].sizeGiB';
    const device = 'spec.topology.regions[0].zones[0].racks[1].hosts[0].disks[1].device';
    expect(await invalidCauses('POST', clusters(), invalid)).toEqual(sortedCauses([
      { reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: 5000: spec.replicas in body should be less than or equal to 1000' },
      { reason: 'FieldValueTooLong', field: 'spec.listeners[0].name', message: 'Too long: may not be more than 15 bytes' },
      { reason: 'FieldValueInvalid', field: sizeGiB, message: `Invalid value: 0: ${sizeGiB} in body should be greater than or equal to 1` },
      {
        reason: 'FieldValueNotSupported', field: 'spec.topology.regions[1].zones[1].racks[1].hosts[1].disks[2].layout.partitions[0].filesystem.type',
        message: 'Unsupported value: "zfs": supported values: "ext4", "xfs", "swap"',
      },
      { reason: 'FieldValueInvalid', field: device, message: `Invalid value: "sdb": ${device} in body should match '^/dev/[a-z0-9]+$'` },
      { reason: 'FieldValueTypeInvalid', field: hostCpu, message: `Invalid value: "boolean": ${hostCpu} in body must be of type integer,string: "boolean"` },
      { reason: 'FieldValueInvalid', field: '<nil>', message: `Invalid value: "": "${hostCpu}" must validate at least one schema (anyOf)` },
      { reason: 'FieldValueTypeInvalid', field: hostCpu, message: `Invalid value: "boolean": ${hostCpu} in body must be of type integer: "boolean"` },
      { reason: 'FieldValueRequired', field: 'spec.topology.regions[1].zones[0].racks[1].id', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.template.kind', message: 'Required value: must not be empty' },
      // hasBlockingErr: the rules are not run (the name rule, the listener rules…), and kube says so.
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' },
    ]));
  });

  it('a Required, TooLong or TooMany error alone also blocks the rules (kube\'s hasBlockingErr)', async () => {
    // The object breaks the name rule (a root rule on metadata.name) and has a missing required field.
    const resource = largeResource('blocked-by-a-required-field-with-a-long-name', options);
    delete (hostOf(resource, 0, 1, 1, 0)['disks'] as Json[])[1]!['device'];
    expect(await invalidCauses('POST', clusters(), resource)).toEqual(sortedCauses([
      { reason: 'FieldValueRequired', field: 'spec.topology.regions[0].zones[1].racks[1].hosts[0].disks[1].device', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' },
    ]));
  });

  it('that breaks many rules gets every failure at once, with messageExpression, reason and fieldPath', async () => {
    const name = 'rules-broken-by-a-name-longer-than-forty-chars';
    const invalid = ruleViolations(largeResource(name, options), options);
    const first = addonNames(options)[0]!;
    const device = 'spec.topology.regions[1].zones[0].racks[1].hosts[0].disks[1].device';
    expect(await invalidCauses('POST', clusters(), invalid)).toEqual(sortedCauses([
      // A pattern error does not block the rules.
      { reason: 'FieldValueInvalid', field: device, message: `Invalid value: "/dev/SDB": ${device} in body should match '^/dev/[a-z0-9]+$'` },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "object": metadata.name must be at most 40 characters' },
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": replicas exceed maxReplicas in mode Sharded' },
      { reason: 'FieldValueInvalid', field: 'spec.minMemory', message: 'Invalid value: "string": minMemory must be at least 64Mi' },
      { reason: 'FieldValueInvalid', field: 'spec.listeners', message: 'Invalid value: "array": listener ports must be unique' },
      { reason: 'FieldValueInvalid', field: 'spec.listeners', message: 'Invalid value: "array": listener names must be lowercase DNS labels' },
      { reason: 'FieldValueRequired', field: 'spec.listeners[2].tls', message: 'Required value: tls.secretName is required when TLS is enabled' },
      { reason: 'FieldValueInvalid', field: 'spec.network.podCIDRs', message: 'Invalid value: "array": podCIDRs must be CIDRs' },
      { reason: 'FieldValueInvalid', field: 'spec.network.endpoint', message: 'Invalid value: "string": endpoint must be an https URL' },
      {
        reason: 'FieldValueInvalid', field: 'spec.topology.regions[0].zones[0].racks[1].hosts[0].disks[0].layout.partitions[1].mountPath',
        message: 'Invalid value: "object": a swap partition has no mountPath',
      },
      { reason: 'FieldValueInvalid', field: 'spec.topology.regions[1].zones[1].racks[0].hosts[1].disks', message: 'Invalid value: "object": a host needs exactly one boot disk' },
      { reason: 'FieldValueInvalid', field: `spec.addons.${first}`, message: `Invalid value: "object": ${first} needs at least one replica when enabled` },
    ]));
  });

  it('is kept from an update by its transition rules; other updates go through', async () => {
    const resource = largeResource('transition', options);
    (resource['spec'] as Json).mode = 'Sharded';
    const created = await create(resource);
    const changed = structuredClone(created);
    changed.spec.storageClassName = 'slow-hdd';
    changed.spec.mode = 'Replicated';
    expect(await invalidCauses('PUT', `${clusters()}/transition`, changed)).toEqual(sortedCauses([
      { reason: 'FieldValueInvalid', field: 'spec.storageClassName', message: 'Invalid value: "string": storageClassName is immutable' },
      { reason: 'FieldValueInvalid', field: 'spec.mode', message: 'Invalid value: "string": a Sharded cluster cannot change mode' },
    ]));
    const patched = await invalidCauses('PATCH', `${clusters()}/transition`, JSON.stringify({ spec: { storageClassName: 'slow-hdd' } }), { 'content-type': 'application/merge-patch+json' });
    expect(patched).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.storageClassName', message: 'Invalid value: "string": storageClassName is immutable' }]);
    // A change the transition rules allow.
    const allowed = structuredClone(created);
    allowed.spec.replicas = 5;
    partitionsOf(allowed, 1, 1, 1, 1, 2)[2]!['sizeGiB'] = 500;
    const updated = await harness.request('PUT', `${clusters()}/transition`, allowed);
    expect(updated.statusCode, updated.body.slice(0, 2000)).toBe(200);
    expect(updated.json().metadata.generation).toBe(2);
    expect(partitionsOf(updated.json(), 1, 1, 1, 1, 2)[2]).toEqual({ index: 3, sizeGiB: 500 });
  });

  it('read through the deprecated version carries its deprecation warning, and the served apiVersion', async () => {
    await create(largeResource('old-version', options));
    const alpha = await harness.request('GET', `${clusters('v1alpha1')}/old-version`);
    expect(alpha.statusCode).toBe(200);
    expect(alpha.json().apiVersion).toBe(`${options.group}/v1alpha1`);
    expect(warnings(alpha.headers)).toEqual([`299 - "${options.group}/v1alpha1 ${largeKind} is deprecated; use ${options.group}/v1"`]);
    const beta = await harness.request('GET', `${clusters('v1beta1')}/old-version`);
    expect(warnings(beta.headers)).toEqual([]);
  });

  const applier = (name: string) => {
    const url = `${clusters()}/${name}`;
    return {
      url,
      header: { apiVersion: `${options.group}/v1`, kind: largeKind, metadata: { name } },
      apply: (manager: string, body: Json, force = false) =>
        harness.request('PATCH', `${url}?fieldManager=${manager}${force ? '&force=true' : ''}`, JSON.stringify(body), applyPatch),
    };
  };
  const byManager = (body: Json): Json[] => [...body.metadata.managedFields].sort((a: Json, b: Json) => (a.manager < b.manager ? -1 : 1));
  const listenerList = (body: Json): string[] => body.spec.listeners.map((listener: Json) => `${listener.name}:${listener.port}`);

  it('is server-side applied by two managers: the list-map merges by key, a conflict is kube\'s 409, force takes the field over', async () => {
    const { url, header, apply } = applier('applied');
    // spec.config (an island with declared properties) is another test's; maxReplicas is left to its default here.
    const config = largeResource('applied', options);
    delete (config['spec'] as Json).config.experimental;
    delete (config['spec'] as Json).maxReplicas;
    const byAlice = await apply('alice', config);
    expect(byAlice.statusCode, byAlice.body.slice(0, 2000)).toBe(201);
    const byBob = await apply('bob', { ...header, spec: { listeners: [{ name: 'admin', port: 9443 }] } });
    expect(byBob.statusCode, byBob.body.slice(0, 2000)).toBe(200);
    expect(listenerList(byBob.json())).toEqual(['client:9000', 'peer:9001', 'metrics:9090', 'admin:9443']);
    // Everything else of alice's object is untouched.
    expect(byBob.json().spec.topology).toEqual(byAlice.json().spec.topology);

    const conflict = await apply('bob', { ...header, spec: { listeners: [{ name: 'admin', port: 9443 }, { name: 'peer', port: 9101 }] } });
    expect(conflict.statusCode, conflict.body).toBe(409);
    expect(conflict.json()).toMatchObject({
      kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409,
      message: 'Apply failed with 1 conflict: conflict with "alice": .spec.listeners[name="peer"].port',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.listeners[name="peer"].port' }] },
    });

    const [alice, bob] = byManager((await harness.request('GET', url)).json());
    expect(alice).toMatchObject({ manager: 'alice', operation: 'Apply', apiVersion: `${options.group}/v1`, fieldsType: 'FieldsV1' });
    expect(bob).toMatchObject({ manager: 'bob', operation: 'Apply', apiVersion: `${options.group}/v1`, fieldsType: 'FieldsV1' });
    expect(Object.keys(alice!.fieldsV1['f:spec']['f:listeners'])).toEqual(['k:{"name":"client"}', 'k:{"name":"metrics"}', 'k:{"name":"peer"}']);
    expect(alice!.fieldsV1['f:spec']['f:listeners']['k:{"name":"peer"}']).toMatchObject({ '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} });
    const rack = alice!.fieldsV1['f:spec']['f:topology']['f:regions']['k:{"name":"region-1"}']['f:zones']['k:{"name":"zone-1b"}']['f:racks']['k:{"id":"r1z1k1"}'];
    const deepest = rack['f:hosts']['k:{"hostname":"node-1-1-1-1"}']['f:disks']['k:{"device":"/dev/sdc"}']['f:layout']['f:partitions'];
    expect(Object.keys(deepest)).toEqual(['k:{"index":1}', 'k:{"index":2}', 'k:{"index":3}']);
    expect(deepest['k:{"index":3}']).toEqual({ '.': {}, 'f:index': {}, 'f:sizeGiB': {} });
    expect(Object.keys(bob!.fieldsV1['f:spec']['f:listeners'])).toEqual(['k:{"name":"admin"}']);

    const forced = await apply('bob', { ...header, spec: { listeners: [{ name: 'admin', port: 9443 }, { name: 'peer', port: 9101 }] } }, true);
    expect(forced.statusCode, forced.body.slice(0, 2000)).toBe(200);
    // structured-merge-diff's list merge: items shared with the configuration follow the configuration's order.
    expect(listenerList(forced.json())).toEqual(['client:9000', 'metrics:9090', 'admin:9443', 'peer:9101']);
    const [aliceAfter, bobAfter] = byManager(forced.json());
    expect(aliceAfter!.fieldsV1['f:spec']['f:listeners']['k:{"name":"peer"}']).not.toHaveProperty('f:port');
    expect(aliceAfter!.fieldsV1['f:spec']['f:listeners']['k:{"name":"peer"}']).toMatchObject({ 'f:name': {}, 'f:targetPort': {} });
    expect(Object.keys(bobAfter!.fieldsV1['f:spec']['f:listeners'])).toEqual(['k:{"name":"admin"}', 'k:{"name":"peer"}']);
    expect(bobAfter!.fieldsV1['f:spec']['f:listeners']['k:{"name":"peer"}']).toMatchObject({ 'f:name': {}, 'f:port': {} });
  });

  it('is server-side applied without defaulting the applied configuration: each manager owns exactly what it sent, and a default is no conflict', async () => {
    const { header, apply } = applier('sparse');
    const byDave = await apply('dave', { ...header, spec: { version: 'v1.0.0', maxReplicas: 9, topology: { regions: [{ name: 'r' }] } } });
    expect(byDave.statusCode, byDave.body.slice(0, 2000)).toBe(201);
    // The object has its defaults; the applier owns none of them (structured-merge-diff types the configuration as sent).
    expect(byDave.json().spec).toMatchObject({ replicas: 3, maxReplicas: 9, mode: 'Replicated', paused: false });
    expect(byManager(byDave.json())).toEqual([{
      manager: 'dave', operation: 'Apply', apiVersion: `${options.group}/v1`, fieldsType: 'FieldsV1', time: expect.any(String),
      fieldsV1: { 'f:spec': { 'f:maxReplicas': {}, 'f:topology': { 'f:regions': { 'k:{"name":"r"}': { '.': {}, 'f:name': {} } } }, 'f:version': {} } },
    }]);
    // erin's configuration says nothing of maxReplicas: its default (100) is not erin's value, so no conflict with dave's 9.
    const byErin = await apply('erin', { ...header, spec: { listeners: [{ name: 'admin', port: 9443 }] } });
    expect(byErin.statusCode, byErin.body.slice(0, 2000)).toBe(200);
    expect(byErin.json().spec).toMatchObject({ maxReplicas: 9, listeners: [{ name: 'admin', port: 9443, protocol: 'TCP' }] });
    expect(byManager(byErin.json())[1]).toEqual({
      manager: 'erin', operation: 'Apply', apiVersion: `${options.group}/v1`, fieldsType: 'FieldsV1', time: expect.any(String),
      fieldsV1: { 'f:spec': { 'f:listeners': { 'k:{"name":"admin"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } },
    });
  });

  it('is server-side applied with its preserve-unknown islands, which are owned field by field (structured-merge-diff\'s deduced type)', async () => {
    const url = `${clusters()}/islands?fieldManager=carol`;
    const applied = await harness.request('PATCH', url, JSON.stringify(largeResource('islands', options)), applyPatch);
    expect(applied.statusCode, applied.body.slice(0, 2000)).toBe(201);
    const [entry] = applied.json().metadata.managedFields as Json[];
    const spec = entry!.fieldsV1['f:spec'];
    // An island with declared properties: they are typed, the rest deduced (maps granular, lists
    // atomic). As structured-merge-diff's ToFieldSet, a key a map does not declare is itself in
    // the set ("."), besides its children.
    expect(spec['f:config']).toEqual({
      'f:logLevel': {}, 'f:tuning': { 'f:cacheSizeMiB': {} }, 'f:experimental': { '.': {}, 'f:raftTick': {}, 'f:features': { '.': {}, 'f:compression': {} } },
    });
    // An island without properties.
    const host = spec['f:topology']['f:regions']['k:{"name":"region-0"}']['f:zones']['k:{"name":"zone-0a"}']['f:racks']['k:{"id":"r0z0k0"}']['f:hosts']['k:{"hostname":"node-0-0-0-0"}'];
    expect(host['f:extra']).toEqual({ 'f:vendor': { '.': {}, 'f:model': {}, 'f:firmware': { '.': {}, 'f:bios': {}, 'f:bmc': {} } } });
  });
});
