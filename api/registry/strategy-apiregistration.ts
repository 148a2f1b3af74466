// Owns: apiregistration.k8s.io/v1 APIServices as kube-aggregator 1.33 has them: the create and
// update rules (status reset on create, where a local APIService — no spec.service — gets the
// condition Available=True reason Local; status kept on writes to the main resource; service
// port defaulted to 443; no generation, as kube's strategy keeps none), kube's validation
// messages, and the APIServices kube-apiserver registers for the group/versions it serves
// itself (name `<version>.<group>`, `v1.` for core, the group and version priorities of kube's
// aggregator table; a group/version missing from the table gets none, as in kube). kstore
// proxies to no aggregated server: an APIService naming a service is stored, not served.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, nameProblems } from './validation.ts';
import { fields, isFields, text } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

/**
 * kube-apiserver 1.33's APIService priorities for the group/versions it serves (the generic
 * table of pkg/controlplane/apiserver/aggregator.go merged with cmd/kube-apiserver's), GA
 * versions only.
 */
export const apiServicePriorities: ReadonlyMap<string, { readonly group: number; readonly version: number }> = new Map([
  ['/v1', { group: 18000, version: 1 }],
  ['apps/v1', { group: 17800, version: 15 }],
  ['events.k8s.io/v1', { group: 17750, version: 15 }],
  ['authentication.k8s.io/v1', { group: 17700, version: 15 }],
  ['authorization.k8s.io/v1', { group: 17600, version: 15 }],
  ['autoscaling/v1', { group: 17500, version: 15 }],
  ['autoscaling/v2', { group: 17500, version: 30 }],
  ['batch/v1', { group: 17400, version: 15 }],
  ['certificates.k8s.io/v1', { group: 17300, version: 15 }],
  ['networking.k8s.io/v1', { group: 17200, version: 15 }],
  ['policy/v1', { group: 17100, version: 15 }],
  ['rbac.authorization.k8s.io/v1', { group: 17000, version: 15 }],
  ['storage.k8s.io/v1', { group: 16800, version: 15 }],
  ['apiextensions.k8s.io/v1', { group: 16700, version: 15 }],
  ['admissionregistration.k8s.io/v1', { group: 16700, version: 15 }],
  ['scheduling.k8s.io/v1', { group: 16600, version: 15 }],
  ['coordination.k8s.io/v1', { group: 16500, version: 15 }],
  ['node.k8s.io/v1', { group: 16300, version: 15 }],
  ['discovery.k8s.io/v1', { group: 16200, version: 15 }],
  ['flowcontrol.apiserver.k8s.io/v1', { group: 16100, version: 21 }],
]);

/** The label kube's autoregistration controller marks the APIServices it keeps with. */
export const autoRegisterManagedLabel = 'kube-aggregator.kubernetes.io/automanaged';

/** An APIService kube-apiserver registers for a group/version it serves: its name and spec. */
export interface LocalApiService {
  readonly name: string;
  readonly spec: Fields;
}

/** The local APIServices for these served group/versions (kube's apiServicesToRegister/makeAPIService). */
export function localApiServices(groups: readonly { readonly group: string; readonly versions: readonly string[] }[]): LocalApiService[] {
  return groups.flatMap(({ group, versions }) => versions.flatMap((version) => {
    const priority = apiServicePriorities.get(`${group}/${version}`);
    if (priority === undefined) return [];
    return [{ name: `${version}.${group}`, spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version } }];
  }));
}

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** NewLocalAvailableAPIServiceCondition. */
function localAvailableCondition(): Fields {
  return { type: 'Available', status: 'True', lastTransitionTime: now(), reason: 'Local', message: 'Local APIServices are always available' };
}

/** SetDefaults_ServiceReference: port 443. */
function defaultSpec(spec: Fields): Fields {
  if (!isFields(spec['service'])) return spec;
  const service = spec['service'];
  return service['port'] === undefined || service['port'] === null ? { ...spec, service: { ...service, port: 443 } } : spec;
}

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035LabelMessage = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail === '' ? 'Required value' : `Required value: ${detail}`, field };
}

/** The bytes a base64 caBundle holds. */
function base64Bytes(value: string): number {
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  return Math.floor((value.length * 3) / 4) - padding;
}

/** ValidateAPIService (the name rule beyond the path-segment one, and the spec). */
export function apiServiceCauses(object: KubeObject): StatusCause[] {
  const spec = fields(object['spec'] as JsonValue | undefined);
  const group = text(spec['group']);
  const version = text(spec['version']);
  const causes: StatusCause[] = [];
  const name = object.metadata.name ?? '';
  const requiredName = `${version}.${group}`;
  if (name !== '' && nameProblems(name, 'pathSegment').length === 0 && name !== requiredName) {
    causes.push(invalidValue('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  if (group === '' && version !== 'v1') causes.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const problem of nameProblems(group, 'dns1123Subdomain')) causes.push(invalidValue('spec.group', group, problem));
  if (version.length > 63) causes.push(invalidValue('spec.version', version, 'must be no more than 63 characters'));
  if (!dns1035Label.test(version)) causes.push(invalidValue('spec.version', version, dns1035LabelMessage));
  const groupPriority = typeof spec['groupPriorityMinimum'] === 'number' ? spec['groupPriorityMinimum'] : 0;
  if (groupPriority <= 0 || groupPriority > 20000) causes.push(invalidValue('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = typeof spec['versionPriority'] === 'number' ? spec['versionPriority'] : 0;
  if (versionPriority <= 0 || versionPriority > 1000) causes.push(invalidValue('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = text(spec['caBundle']);
  const insecure = spec['insecureSkipTLSVerify'] === true;
  if (!isFields(spec['service'])) {
    if (caBundle !== '') causes.push(invalidValue('spec.caBundle', `${base64Bytes(caBundle)} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) causes.push(invalidValue('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return causes;
  }
  const service = spec['service'];
  if (text(service['namespace']) === '') causes.push(required('spec.service.namespace'));
  if (text(service['name']) === '') causes.push(required('spec.service.name'));
  const port = typeof service['port'] === 'number' ? service['port'] : 0;
  if (port < 1 || port > 65535) causes.push(invalidValue('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (insecure && caBundle !== '') causes.push(invalidValue('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return causes;
}

export const apiServiceStrategy: Strategy = {
  // kube-aggregator: PUT of an absent APIService is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    const spec = defaultSpec(fields(object['spec'] as JsonValue | undefined));
    object['spec'] = spec;
    object['status'] = isFields(spec['service']) ? {} : { conditions: [localAvailableCondition()] };
  },
  prepareForUpdate(object, old) {
    object['spec'] = defaultSpec(fields(object['spec'] as JsonValue | undefined));
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
  },
  validate: apiServiceCauses,
};
