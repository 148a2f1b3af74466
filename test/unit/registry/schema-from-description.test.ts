// Owns: the check of the schemas built from the generated kind descriptions
// (api/registry/schema-from-description.ts): the served kinds use them; the spot checks a kubectl
// user cares about, kube's required-field rule, recursion, every generated kind building into valid
// ajv and OpenAPI schemas, and the descriptions table naming only real types and fields.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { definitionsFor, toOpenApiSchema } from '../../../api/openapi.ts';
import type { OpenApiObject } from '../../../api/openapi.ts';
import { apiPackages, messageDescriptions } from '../../../api/registry/generated/index.ts';
import type { FieldDescription, MessageDescription, MessageName } from '../../../api/registry/kind-description.ts';
import { servedKinds } from '../../../api/registry/kinds.ts';
import type { ResourceKind } from '../../../api/registry/kinds.ts';
import { fieldDescriptions, typeDescriptions } from '../../../api/registry/schema-descriptions.ts';
import { SchemaBuilder, definitionNameOf, isRequiredField, jsonFieldsOf } from '../../../api/registry/schema-from-description.ts';
import type { JsonSchema } from '../../../api/registry/schemas.ts';
import { at } from '../../../api/registry/schemas.ts';

/** The generated message of a served kind: its group/version's package, its kind name. */
function kindMessage(kind: Pick<ResourceKind, 'group' | 'version' | 'kind'>): MessageName {
  const description = apiPackages
    .filter((entry) => entry.groupVersion?.group === kind.group && entry.groupVersion.version === kind.version)
    .flatMap((entry) => entry.kinds)
    .find((entry) => entry.kind === kind.kind);
  if (description === undefined) throw new Error(`no generated kind ${kind.group}/${kind.version} ${kind.kind}`);
  return description.message;
}

const core = 'io.k8s.api.core.v1';
const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const builder = new SchemaBuilder();
const builtSchemas = new Map(servedKinds.map((kind) => [kind, builder.kindSchema(kindMessage(kind))]));

describe('the served kinds', () => {
  it('are served with the schemas built from their generated descriptions', () => {
    for (const [kind, built] of builtSchemas) expect(kind.schema, `${kind.group}/${kind.version} ${kind.kind}`).toEqual(built);
  });
});

describe('spot checks a kubectl user cares about', () => {
  const deployment = builder.kindSchema('k8s.io.api.apps.v1.Deployment');
  const service = builder.kindSchema('k8s.io.api.core.v1.Service');
  const podSpec = builder.messageSchema('k8s.io.api.core.v1.PodSpec');

  it('Deployment.spec.template.spec.containers[].resources: ResourceRequirements, quantities by resource name, claims keyed by name', () => {
    const containers = at(deployment, 'spec', 'template', 'spec', 'containers');
    expect(containers?.definition).toBe(`${core}.Container`);
    const resources = at(deployment, 'spec', 'template', 'spec', 'containers', 'resources');
    expect(resources?.definition).toBe(`${core}.ResourceRequirements`);
    expect(resources?.additionalProperties).toBe(false);
    for (const name of ['limits', 'requests']) {
      const map = resources?.properties?.[name];
      expect(map?.type).toBe('object');
      expect(typeof map?.additionalProperties === 'object' ? map.additionalProperties : undefined)
        .toEqual({ type: ['number', 'string'], definition: 'io.k8s.apimachinery.pkg.api.resource.Quantity' });
    }
    expect(resources?.properties?.['claims']).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    expect(at(deployment, 'spec')?.requiredFields).toEqual(['selector', 'template']);
    expect(at(deployment, 'spec', 'replicas')).toMatchObject({ type: 'integer', format: 'int32', description: expect.any(String) });
    expect(at(deployment, 'spec', 'strategy')).toMatchObject({ 'x-kubernetes-patch-strategy': 'retainKeys' });
  });

  it('Service.spec.ports[].targetPort is an int-or-string, published as kube does', () => {
    const ports = service.properties?.['spec']?.properties?.['ports'];
    expect(ports).toMatchObject({
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'],
      'x-kubernetes-patch-merge-key': 'port', 'x-kubernetes-patch-strategy': 'merge',
    });
    const targetPort = at(service, 'spec', 'ports', 'targetPort');
    expect(targetPort).toEqual({ type: ['integer', 'string'], definition: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString' });
    expect(toOpenApiSchema({ ...targetPort, definition: undefined }, 'v3')).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(toOpenApiSchema({ ...targetPort, definition: undefined }, 'v2')).toEqual({ type: 'string', format: 'int-or-string' });
    expect(at(service, 'spec', 'ports')?.requiredFields).toEqual(['port']);
    expect(at(service, 'spec', 'type')?.enumValues).toEqual(['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']);
  });

  it('PodSpec.containers: a list map keyed by name, merged by name, required; Container.name required; ObjectMeta requires nothing', () => {
    expect(podSpec.properties?.['containers']).toMatchObject({
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
    });
    expect(podSpec.requiredFields).toEqual(['containers']);
    expect(at(podSpec, 'containers')?.requiredFields).toEqual(['name']);
    expect(at(podSpec, 'ephemeralContainers')?.requiredFields).toEqual(['name']);
    expect(builder.messageSchema('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta').requiredFields).toBeUndefined();
    expect(at(podSpec, 'containers', 'livenessProbe', 'httpGet')?.requiredFields).toEqual(['port']);
    // Volume inlines VolumeSource: its members sit in the volume itself.
    expect(Object.keys(at(podSpec, 'volumes')?.properties ?? {})).toEqual(expect.arrayContaining(['name', 'emptyDir', 'configMap', 'projected', 'csi']));
    expect(at(podSpec, 'volumes', 'volumeSource')).toBeUndefined();
  });

  it('the special JSON forms: times, durations, raw extensions, managed fields, metav1.Verbs', () => {
    const meta = builder.messageSchema('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(at(meta, 'creationTimestamp')).toEqual({ type: ['string', 'null'], format: 'date-time-or-empty', definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time' });
    expect(at(meta, 'managedFields', 'fieldsV1')).toEqual({ type: 'object', definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1' });
    expect(at(builder.kindSchema('k8s.io.api.apps.v1.ControllerRevision'), 'data'))
      .toEqual({ type: 'object', definition: 'io.k8s.apimachinery.pkg.runtime.RawExtension' });
    const resource = builder.messageSchema('k8s.io.apimachinery.pkg.apis.meta.v1.APIResource');
    expect(resource.properties?.['verbs']).toEqual({ type: 'array', items: { type: 'string' } });
    expect(at(builder.kindSchema('k8s.io.api.events.v1.Event'), 'eventTime')?.definition).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime');
    expect(at(builder.kindSchema('k8s.io.api.core.v1.Secret'), 'data')).toEqual({ type: 'object', additionalProperties: { type: 'string', format: 'byte' } });
    expect(at(builder.messageSchema('k8s.io.api.core.v1.PodSpec'), 'nodeSelector')).toMatchObject({ 'x-kubernetes-map-type': 'atomic' });
  });

  it('a field merged otherwise than its type is an unnamed copy with the field\'s own map type (PersistentVolumeSpec.claimRef)', () => {
    const claimRef = at(builder.kindSchema('k8s.io.api.core.v1.PersistentVolume'), 'spec', 'claimRef');
    expect(claimRef?.definition).toBeUndefined();
    expect(claimRef?.['x-kubernetes-map-type']).toBe('granular');
    expect(builder.messageSchema('k8s.io.api.core.v1.ObjectReference')['x-kubernetes-map-type']).toBe('atomic');
  });
});

describe('kube\'s required-field rule', () => {
  const field = (facts: Partial<FieldDescription>): FieldDescription => ({ json: 'f', type: 'string', ...facts });
  it('required unless +optional or omitempty; +required wins over omitempty; +optional wins over all', () => {
    expect(isRequiredField(field({}))).toBe(true);
    expect(isRequiredField(field({ omitEmpty: true }))).toBe(false);
    expect(isRequiredField(field({ optional: true }))).toBe(false);
    expect(isRequiredField(field({ omitEmpty: true, required: true }))).toBe(true);
    expect(isRequiredField(field({ omitEmpty: true, optional: true, required: true }))).toBe(false);
  });

  it('inline members bring their required fields along', () => {
    const ephemeral = messageDescriptions.get('k8s.io.api.core.v1.EphemeralContainer')!;
    expect(jsonFieldsOf(ephemeral).filter(({ field: member }) => isRequiredField(member)).map(({ json }) => json)).toEqual(['name']);
  });
});

describe('every generated kind', () => {
  const sharedNames = new Map<string, OpenApiObject>();
  it('builds, compiles with ajv, and converts to OpenAPI v2 and v3 with one schema per definition name', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const format of ['byte', 'date-time-or-empty', 'int32', 'int64', 'double', 'float']) ajv.addFormat(format, () => true);
    const kinds = apiPackages.flatMap((entry) => entry.kinds);
    expect(kinds.length).toBeGreaterThan(60);
    for (const kind of kinds) {
      const schema = builder.kindSchema(kind.message);
      expect(() => ajv.compile(schema), kind.message).not.toThrow();
      // One map of named definitions for all: two different schemas under one name would throw.
      expect(() => toOpenApiSchema(schema, 'v3', sharedNames)).not.toThrow();
    }
  });

  it('served with the built schemas, the 15 kinds\' OpenAPI documents build and keep kube\'s names', () => {
    const kinds = servedKinds.map((kind) => ({ ...kind, schema: builtSchemas.get(kind)! }));
    const definitions = definitionsFor(kinds, 'v3');
    expect(Object.keys(definitions)).toEqual(expect.arrayContaining([`${core}.Container`, `${core}.Probe`, `${core}.PodSpec`, `${meta}.LabelSelector`]));
    expect(definitionsFor(kinds, 'v2')[`${core}.Container`]).toMatchObject({ required: ['name'] });
  });
});

describe('recursion', () => {
  it('a message that holds itself becomes an open object where it recurs, built once', () => {
    const name = 'k8s.io.example.v1.Node' as MessageName;
    const node: MessageDescription = {
      name,
      fields: [
        { json: 'value', type: 'string', omitEmpty: true },
        { json: 'children', type: name, repeated: true, omitEmpty: true },
        { json: 'parent', type: name, pointer: true, omitEmpty: true },
      ],
    };
    const recursive = new SchemaBuilder(new Map([[name, node]]));
    const schema = recursive.messageSchema(name);
    expect(schema.properties?.['children']).toEqual({ type: 'array', items: { type: 'object' } });
    expect(schema.properties?.['parent']).toEqual({ type: 'object' });
    expect(recursive.messageSchema(name)).toBe(schema);
  });
});

describe('kstore\'s descriptions', () => {
  const definitions = new Set([...messageDescriptions.keys()].map(definitionNameOf));
  const messagesByDefinition = new Map([...messageDescriptions.values()].map((message) => [definitionNameOf(message.name), message]));

  it('name only real types, and real fields whose value is not a named type', () => {
    expect(Object.keys(typeDescriptions).filter((name) => !definitions.has(name))).toEqual([]);
    const misplaced = Object.keys(fieldDescriptions).filter((key) => {
      const dot = key.lastIndexOf('.');
      const message = messagesByDefinition.get(key.slice(0, dot));
      const member = message === undefined ? undefined : jsonFieldsOf(message).find(({ json }) => json === key.slice(dot + 1));
      if (member === undefined) return true;
      const named = messageDescriptions.get(member.field.type as MessageName)?.jsonForm === undefined && !/^[a-z0-9]+$/.test(member.field.type);
      return named && !member.field.repeated && member.field.mapKey === undefined;
    });
    expect(misplaced).toEqual([]);
  });

  it('describe every 1.33 type the hand schemas describe, and every served kind', () => {
    const described = new Set<string>();
    const visit = (schema: JsonSchema | undefined, seen: Set<JsonSchema>): void => {
      if (schema === undefined || seen.has(schema)) return;
      seen.add(schema);
      if (schema.definition !== undefined && schema.description !== undefined) described.add(schema.definition);
      for (const property of Object.values(schema.properties ?? {})) visit(property, seen);
      visit(schema.items, seen);
      if (typeof schema.additionalProperties === 'object') visit(schema.additionalProperties, seen);
    };
    const seen = new Set<JsonSchema>();
    for (const kind of servedKinds) visit(kind.schema, seen);
    const undescribed = [...described].filter((name) => definitions.has(name) && typeDescriptions[name] === undefined);
    expect(undescribed).toEqual([]);
    for (const [kind, built] of builtSchemas) expect(built.description, kind.kind).toBeTruthy();
  });
});

describe('string enums', () => {
  it('are published as the OpenAPI enum and not enforced by ajv (kube rejects a wrong value in validation, 422)', () => {
    const restartPolicy = at(builder.messageSchema('k8s.io.api.core.v1.PodSpec'), 'restartPolicy')!;
    expect(toOpenApiSchema(restartPolicy, 'v3')).toMatchObject({ type: 'string', enum: ['Always', 'Never', 'OnFailure'] });
    expect(new Ajv({ strict: false }).compile(restartPolicy)('Sometimes')).toBe(true);
  });
});
