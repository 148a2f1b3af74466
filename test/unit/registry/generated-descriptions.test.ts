// Owns: spot checks of the generated kind descriptions (api/registry/generated/, made by
// `npm run generate:kinds`) against facts a Kubernetes user knows, and the shape of the generated
// index. The protobuf codec is built from these descriptions; that its wire format and JSON rules
// (numbers, types, zero values kept, inline structs) are those of the hand-written tables it
// replaced is checked against golden bytes in test/unit/api/protobuf-codec-golden.test.ts.
import { describe, expect, it } from 'vitest';
import { apiPackages, messageDescriptions } from '../../../api/registry/generated/index.ts';
import type { FieldDescription, MessageDescription, MessageName } from '../../../api/registry/kind-description.ts';

function generatedMessage(name: string): MessageDescription | undefined {
  return messageDescriptions.get(name as MessageName);
}

/** The generated field with this JSON name. */
function jsonField(messageName: string, json: string): FieldDescription {
  const message = generatedMessage(messageName);
  if (!message) throw new Error(`no generated message ${messageName}`);
  const field = message.fields.find((candidate) => candidate.json === json);
  if (!field) throw new Error(`no field ${json} in ${messageName}`);
  return field;
}

describe('generated descriptions: facts a Kubernetes user knows', () => {
  const core = 'k8s.io.api.core.v1';
  const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';

  it('PodSpec.containers is a list map keyed by name, merged by name', () => {
    expect(jsonField(`${core}.PodSpec`, 'containers')).toMatchObject({
      number: 2, type: `${core}.Container`, repeated: true, listType: 'map', listMapKeys: ['name'], patchStrategy: 'merge', patchMergeKey: 'name',
    });
    expect(jsonField(`${core}.Container`, 'ports')).toMatchObject({ listMapKeys: ['containerPort', 'protocol'], patchMergeKey: 'containerPort' });
    expect(jsonField(`${core}.PodSpec`, 'volumes')).toMatchObject({ patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' });
  });

  it('DeploymentSpec.replicas is an optional pointer int32, number 1; strategy retains keys', () => {
    expect(jsonField('k8s.io.api.apps.v1.DeploymentSpec', 'replicas')).toEqual({
      json: 'replicas', number: 1, type: 'int32', pointer: true, omitEmpty: true, optional: true,
    });
    expect(jsonField('k8s.io.api.apps.v1.DeploymentSpec', 'template')).toMatchObject({ number: 3, type: `${core}.PodTemplateSpec` });
    expect(jsonField('k8s.io.api.apps.v1.DeploymentSpec', 'strategy')).toMatchObject({ patchStrategy: 'retainKeys' });
  });

  it('ServicePort.targetPort is an int-or-string; protocol is an enum defaulting to TCP', () => {
    expect(jsonField(`${core}.ServicePort`, 'targetPort')).toMatchObject({
      number: 4, type: 'k8s.io.apimachinery.pkg.util.intstr.IntOrString', jsonForm: 'intOrString',
    });
    expect(jsonField(`${core}.ServicePort`, 'protocol')).toMatchObject({ enum: ['SCTP', 'TCP', 'UDP'], default: '"TCP"' });
  });

  it('Container.resources is ResourceRequirements, whose limits are a map of quantities', () => {
    expect(jsonField(`${core}.Container`, 'resources')).toMatchObject({ number: 8, type: `${core}.ResourceRequirements` });
    expect(jsonField(`${core}.ResourceRequirements`, 'limits')).toMatchObject({
      number: 1, mapKey: 'string', type: 'k8s.io.apimachinery.pkg.api.resource.Quantity', jsonForm: 'quantity',
    });
  });

  it('ObjectMeta.labels is map<string, string>; creationTimestamp is a Time', () => {
    expect(jsonField(`${meta}.ObjectMeta`, 'labels')).toMatchObject({ number: 11, type: 'string', mapKey: 'string' });
    expect(jsonField(`${meta}.ObjectMeta`, 'creationTimestamp')).toMatchObject({ number: 8, type: `${meta}.Time`, jsonForm: 'time' });
  });

  it('kinds carry scope, list kinds and subresource methods', () => {
    const kindOf = (goPackage: string, kind: string) => apiPackages.find((pkg) => pkg.goPackage === goPackage)?.kinds.find((entry) => entry.kind === kind);
    expect(kindOf('k8s.io/api/apps/v1', 'Deployment')).toMatchObject({ message: 'k8s.io.api.apps.v1.Deployment', listKind: 'DeploymentList' });
    expect(kindOf('k8s.io/api/apps/v1', 'Deployment')?.clusterScoped).toBeUndefined();
    expect(kindOf('k8s.io/api/apps/v1', 'Deployment')?.client?.methods?.map((method) => `${method.verb} ${method.subresource ?? ''}`))
      .toEqual(['get scale', 'update scale', 'apply scale']);
    expect(kindOf('k8s.io/api/core/v1', 'Namespace')).toMatchObject({ clusterScoped: true, listKind: 'NamespaceList' });
    expect(kindOf('k8s.io/api/scheduling/v1', 'PriorityClass')).toMatchObject({ clusterScoped: true });
    expect(kindOf('k8s.io/api/authorization/v1', 'SelfSubjectAccessReview')?.client?.onlyVerbs).toEqual(['create']);
  });

  it('is one package per served group/version, each message once, every referenced message described', () => {
    const groupVersions = apiPackages.flatMap((pkg) => (pkg.groupVersion ? [`${pkg.groupVersion.group}/${pkg.groupVersion.version}`] : []));
    for (const expected of ['/v1', 'apps/v1', 'batch/v1', 'autoscaling/v2', 'networking.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1', 'meta.k8s.io/v1']) {
      expect(groupVersions).toContain(expected);
    }
    expect(new Set(groupVersions).size).toBe(groupVersions.length);
    const names = apiPackages.flatMap((pkg) => pkg.messages.map((message) => message.name));
    expect(new Set(names).size).toBe(names.length);
    expect(messageDescriptions.size).toBe(names.length);
    const dangling = apiPackages.flatMap((pkg) => pkg.messages.flatMap((message) => message.fields
      .filter((field) => field.type.includes('.') && !messageDescriptions.has(field.type as MessageName))
      .map((field) => `${message.name}.${field.protoName ?? field.json ?? '?'} → ${field.type}`)));
    expect(dangling).toEqual([]);
  });
});
