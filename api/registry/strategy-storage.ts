// Owns: the create/update strategies of the storage kinds: core/v1 PersistentVolumes and
// PersistentVolumeClaims, and storage.k8s.io/v1 StorageClasses, CSIDrivers, CSINodes,
// VolumeAttachments and CSIStorageCapacities — kube's defaults (pkg/apis/core/v1 and
// storage/v1 defaults.go), status resets (the registry strategies) and the validation a user
// meets, in kube's words.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, isQualifiedName, nameProblems } from './validation.ts';
import { forbidden, immutable, isFields, nonNegativeQuantityCauses, notSupported, parseQuantity, positiveQuantityCauses, quantityAt, required, sameJson } from './strategy-quota.ts';
import { fields, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const volumeModes = ['Block', 'Filesystem'];
const pvReclaimPolicies = ['Delete', 'Recycle', 'Retain'];

/** The PersistentVolumeSource members, in the order kube's ValidatePersistentVolumeSpec counts them (with the field name its Forbidden cause uses). */
const persistentVolumeSources: readonly (readonly [string, string])[] = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'], ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'], ['nfs', 'nfs'], ['rbd', 'rbd'], ['quobyte', 'quobyte'], ['cephfs', 'cephFS'], ['iscsi', 'iscsi'], ['cinder', 'cinder'],
  ['fc', 'fc'], ['flexVolume', 'flexVolume'], ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['scaleIO', 'scaleIO'],
  ['local', 'local'], ['storageos', 'storageos'], ['csi', 'csi'],
];

function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map((item) => String(item)) : [];
}

/** The access-mode rules PVs and PVCs share. */
function accessModeCauses(field: string, modes: readonly string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const mode of modes) if (!accessModes.includes(mode)) causes.push(notSupported(field, mode, accessModes));
  if (modes.includes('ReadWriteOncePod') && modes.some((mode) => mode !== 'ReadWriteOncePod' && accessModes.includes(mode))) {
    causes.push(forbidden(field, 'may not use ReadWriteOncePod with other access modes'));
  }
  return causes;
}

function classNameCauses(field: string, name: JsonValue | undefined): StatusCause[] {
  return typeof name === 'string' && name !== '' ? nameProblems(name, 'dns1123Subdomain').map((problem) => invalidValue(field, name, problem)) : [];
}

function volumeModeCauses(field: string, mode: JsonValue | undefined): StatusCause[] {
  return mode !== undefined && !volumeModes.includes(String(mode)) ? [notSupported(field, mode, volumeModes)] : [];
}

function backstepCauses(field: string, path: string): StatusCause[] {
  return path.split(/[/\\]/).includes('..') ? [invalidValue(field, path, "must not contain '..'")] : [];
}

const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** The rules of the sources kstore checks beyond their presence (the ones used without a cloud). */
function sourceCauses(name: string, source: Fields, at: string): StatusCause[] {
  const path = String(source['path'] ?? '');
  switch (name) {
    case 'hostPath': {
      const causes = path === '' ? [required(`${at}.path`)] : backstepCauses(`${at}.path`, path);
      const type = source['type'];
      if (type !== undefined && !hostPathTypes.includes(String(type))) causes.push(notSupported(`${at}.type`, type, hostPathTypes));
      return causes;
    }
    case 'local':
      return path === '' ? [required(`${at}.path`)] : backstepCauses(`${at}.path`, path);
    case 'nfs': {
      const causes = String(source['server'] ?? '') === '' ? [required(`${at}.server`)] : [];
      if (path === '') causes.push(required(`${at}.path`));
      else if (!path.startsWith('/')) causes.push(invalidValue(`${at}.path`, path, 'must be an absolute path'));
      return causes;
    }
    case 'csi': {
      const causes: StatusCause[] = [];
      const driver = String(source['driver'] ?? '');
      if (driver === '') causes.push(required(`${at}.driver`));
      else causes.push(...csiDriverNameCauses(`${at}.driver`, driver));
      if (String(source['volumeHandle'] ?? '') === '') causes.push(required(`${at}.volumeHandle`));
      return causes;
    }
    default:
      return [];
  }
}

/** ValidateCSIDriverName: at most 63 characters, lower-case DNS-style with dots. */
function csiDriverNameCauses(field: string, name: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (name.length > 63) causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than 63 bytes`, field });
  if (!/^[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?$/.test(name)) {
    causes.push(invalidValue(field, name, "a valid CSI driver name must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'csi.example.com', regex used for validation is '([a-zA-Z0-9][-a-zA-Z0-9.]*)?[a-zA-Z0-9]')"));
  }
  return causes;
}

// ---- PersistentVolume ----

function persistentVolumeCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes: StatusCause[] = [];
  const modes = stringList(spec['accessModes']);
  if (modes.length === 0) causes.push(required('spec.accessModes'));
  causes.push(...accessModeCauses('spec.accessModes', modes));
  const capacity = fields(spec['capacity']);
  if (Object.keys(capacity).length === 0) causes.push(required('spec.capacity'));
  if (!Object.hasOwn(capacity, 'storage') || Object.keys(capacity).length > 1) causes.push(notSupported('spec.capacity', capacity, ['storage']));
  for (const [name, raw] of Object.entries(capacity)) {
    const quantity = quantityAt(`spec.capacity[${name}]`, raw, causes);
    if (quantity === undefined) continue;
    // validateBasicResource reports Value() (kube's int64, rounded up) when it is negative.
    if (quantity.value() < 0n) causes.push(invalidValue(`spec.capacity[${name}]`, Number(quantity.value()), 'must be a valid resource quantity'));
    causes.push(...positiveQuantityCauses(`spec.capacity[${name}]`, quantity));
  }
  const policy = spec['persistentVolumeReclaimPolicy'];
  if (typeof policy === 'string' && policy !== '' && !pvReclaimPolicies.includes(policy)) causes.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, pvReclaimPolicies));
  const nodeAffinity = fields(spec['nodeAffinity']);
  const nodeAffinitySpecified = isFields(nodeAffinity['required']);
  let volumes = 0;
  for (const [name, forbiddenName] of persistentVolumeSources) {
    if (!isFields(spec[name])) continue;
    // kube counts flexVolume without the "more than one" check.
    if (volumes > 0 && name !== 'flexVolume') {
      causes.push(forbidden(`spec.${forbiddenName}`, 'may not specify more than 1 volume type'));
      continue;
    }
    volumes++;
    causes.push(...sourceCauses(name, fields(spec[name]), `spec.${name}`));
    if (name === 'local' && !nodeAffinitySpecified) causes.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (volumes === 0) causes.push(required('spec', 'must specify a volume type'));
  const hostPath = fields(spec['hostPath']);
  if (isFields(spec['hostPath']) && String(hostPath['path'] ?? '').replace(/\/+$/, '') === '' && String(hostPath['path'] ?? '').startsWith('/') && policy === 'Recycle') {
    causes.push(forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  causes.push(...classNameCauses('spec.storageClassName', spec['storageClassName']));
  causes.push(...volumeModeCauses('spec.volumeMode', spec['volumeMode']));
  return causes;
}

/** The PersistentVolumeSource part of a PV spec (every volume source member). */
function volumeSourceOf(spec: Fields): Fields {
  const source: Fields = {};
  for (const [name] of persistentVolumeSources) if (spec[name] !== undefined) source[name] = spec[name];
  return source;
}

function persistentVolumeUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const oldSpec = specOf(old);
  const source = volumeSourceOf(spec);
  const oldSource = volumeSourceOf(oldSpec);
  // A CSI volume's controllerExpandSecretRef may be set once.
  const oldCsi = fields(oldSource['csi']);
  if (isFields(source['csi']) && isFields(oldSource['csi']) && oldCsi['controllerExpandSecretRef'] === undefined) {
    const { controllerExpandSecretRef: _set, ...csi } = fields(source['csi']);
    source['csi'] = csi;
  }
  const causes: StatusCause[] = [];
  if (!sameJson(source, oldSource)) causes.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  causes.push(...immutable('volumeMode', spec['volumeMode'], oldSpec['volumeMode']));
  if (oldSpec['nodeAffinity'] !== undefined) causes.push(...immutable('nodeAffinity', spec['nodeAffinity'], oldSpec['nodeAffinity']));
  return causes;
}

/** VolumeAttributesClass is a beta API that kube 1.33 serves off: the field is dropped unless the stored object already uses it. */
function dropVolumeAttributesClass(spec: Fields, oldSpec: Fields | undefined): void {
  if (oldSpec?.['volumeAttributesClassName'] === undefined) delete spec['volumeAttributesClassName'];
}

function defaultPersistentVolumeSpec(object: KubeObject, oldSpec: Fields | undefined): void {
  const spec = { ...specOf(object) };
  if (spec['persistentVolumeReclaimPolicy'] === undefined || spec['persistentVolumeReclaimPolicy'] === '') spec['persistentVolumeReclaimPolicy'] = 'Retain';
  if (spec['volumeMode'] === undefined) spec['volumeMode'] = 'Filesystem';
  if (isFields(spec['hostPath']) && spec['hostPath']['type'] === undefined) spec['hostPath'] = { ...spec['hostPath'], type: '' };
  dropVolumeAttributesClass(spec, oldSpec);
  object['spec'] = spec;
}

export const persistentVolumeStrategy: Strategy = {
  // kube: PUT of an absent PersistentVolume is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    defaultPersistentVolumeSpec(object, undefined);
    // A new volume starts Pending, its phase transition stamped at creation.
    object['status'] = { phase: 'Pending', lastPhaseTransitionTime: object.metadata.creationTimestamp ?? '' };
  },
  prepareForUpdate(object, old) {
    defaultPersistentVolumeSpec(object, specOf(old));
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
  },
  validate: persistentVolumeCauses,
  validateUpdate: persistentVolumeUpdateCauses,
};

// ---- PersistentVolumeClaim ----

function dataSourceCauses(field: string, source: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  if (String(source['name'] ?? '') === '') causes.push(required(`${field}.name`));
  const kind = String(source['kind'] ?? '');
  if (kind === '') causes.push(required(`${field}.kind`));
  if (String(source['apiGroup'] ?? '') === '' && kind !== 'PersistentVolumeClaim') {
    causes.push(invalidValue(field, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  return causes;
}

function persistentVolumeClaimCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes: StatusCause[] = [];
  const modes = stringList(spec['accessModes']);
  if (modes.length === 0) causes.push(required('spec.accessModes', 'at least 1 access mode is required'));
  causes.push(...accessModeCauses('spec.accessModes', modes));
  const requests = fields(fields(spec['resources'])['requests']);
  if (!Object.hasOwn(requests, 'storage')) causes.push(required('spec.resources[storage]'));
  else {
    const quantity = quantityAt('spec.resources[storage]', requests['storage'], causes);
    if (quantity !== undefined) causes.push(...positiveQuantityCauses('spec.resources[storage]', quantity));
  }
  causes.push(...classNameCauses('spec.storageClassName', spec['storageClassName']));
  causes.push(...volumeModeCauses('spec.volumeMode', spec['volumeMode']));
  if (isFields(spec['dataSource'])) causes.push(...dataSourceCauses('spec.dataSource', spec['dataSource']));
  if (isFields(spec['dataSourceRef'])) causes.push(...dataSourceCauses('spec.dataSourceRef', spec['dataSourceRef']));
  if (isFields(spec['dataSource']) && isFields(spec['dataSourceRef'])) {
    const { namespace: _namespace, ...ref } = spec['dataSourceRef'];
    if (!sameJson(spec['dataSource'], ref)) causes.push(invalidValue('spec', 'spec.dataSource', 'must match dataSourceRef'));
  }
  return causes;
}

function storageRequest(spec: Fields): JsonValue | undefined {
  return fields(fields(spec['resources'])['requests'])['storage'];
}

const claimImmutableMessage = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

function persistentVolumeClaimUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = structuredClone(specOf(object));
  const oldSpec = structuredClone(specOf(old));
  const causes: StatusCause[] = [];
  // The volume binder sets volumeName once.
  if (String(oldSpec['volumeName'] ?? '') === '') {
    if (spec['volumeName'] === undefined) delete oldSpec['volumeName'];
    else oldSpec['volumeName'] = spec['volumeName'];
  }
  const annotation = 'volume.beta.kubernetes.io/storage-class';
  const oldAnnotations = old.metadata.annotations ?? {};
  const newAnnotations = object.metadata.annotations ?? {};
  // The upgrade path from the beta annotation to storageClassName.
  const upgrade = Object.hasOwn(oldAnnotations, annotation) && oldSpec['storageClassName'] === undefined
    && spec['storageClassName'] === oldAnnotations[annotation] && (!Object.hasOwn(newAnnotations, annotation) || newAnnotations[annotation] === oldAnnotations[annotation]);
  if (upgrade) delete spec['storageClassName'];
  else if ((newAnnotations[annotation] ?? '') !== (oldAnnotations[annotation] ?? '')) {
    causes.push(invalidValue(`metadata.annotations[${annotation}]`, newAnnotations[annotation] ?? '', 'field is immutable'));
  }
  const bound = fields(object['status'] as JsonValue | undefined)['phase'] === 'Bound';
  if (bound && isFields(fields(spec['resources'])['requests'])) {
    const resources = fields(spec['resources']);
    const requests = { ...fields(resources['requests']) };
    const oldStorage = storageRequest(oldSpec);
    if (oldStorage === undefined) delete requests['storage'];
    else requests['storage'] = oldStorage;
    spec['resources'] = { ...resources, requests };
  }
  if (!sameJson(spec, oldSpec)) causes.push(forbidden('spec', claimImmutableMessage));
  const newSize = parseQuantity(storageRequest(specOf(object)));
  const oldSize = parseQuantity(storageRequest(specOf(old)));
  if (newSize !== undefined && oldSize !== undefined && newSize.compare(oldSize) < 0) {
    // kube 1.33 lets a claim shrink back towards its capacity (RecoverVolumeExpansionFailure), never to it or below.
    const capacity = parseQuantity(fields(fields(old['status'] as JsonValue | undefined)['capacity'])['storage']);
    if (capacity === undefined ? newSize.sign() <= 0 : newSize.compare(capacity) <= 0) causes.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  causes.push(...immutable('volumeMode', specOf(object)['volumeMode'], specOf(old)['volumeMode']));
  return causes;
}

function defaultClaimSpec(object: KubeObject, oldSpec: Fields | undefined): void {
  const spec = { ...specOf(object) };
  if (spec['volumeMode'] === undefined) spec['volumeMode'] = 'Filesystem';
  dropVolumeAttributesClass(spec, oldSpec);
  object['spec'] = spec;
}

/** pvcutil.NormalizeDataSources: dataSource and dataSourceRef each filled from the other (a namespaced ref has no dataSource). */
function normalizeDataSources(object: KubeObject): void {
  const spec = specOf(object);
  const reference = (source: Fields): Fields => ({
    ...(source['apiGroup'] === undefined ? {} : { apiGroup: source['apiGroup'] }), kind: source['kind'] ?? '', name: source['name'] ?? '',
  });
  if (isFields(spec['dataSource']) && !isFields(spec['dataSourceRef'])) spec['dataSourceRef'] = reference(spec['dataSource']);
  else if (isFields(spec['dataSourceRef']) && !isFields(spec['dataSource']) && String(spec['dataSourceRef']['namespace'] ?? '') === '') {
    spec['dataSource'] = reference(spec['dataSourceRef']);
  }
}

export const persistentVolumeClaimStrategy: Strategy = {
  // kube: PUT of an absent PersistentVolumeClaim is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    defaultClaimSpec(object, undefined);
    normalizeDataSources(object);
    // kube clears the status; its defaulting reads an empty phase as Pending.
    object['status'] = { phase: 'Pending' };
  },
  prepareForUpdate(object, old) {
    defaultClaimSpec(object, specOf(old));
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
  },
  validate: persistentVolumeClaimCauses,
  validateUpdate: persistentVolumeClaimUpdateCauses,
};

// ---- StorageClass ----

const classReclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];
const parametersMax = 512;
const parametersBytesMax = 256 * 1024;

function storageClassCauses(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const provisioner = String(object['provisioner'] ?? '');
  if (provisioner === '') causes.push(required('provisioner'));
  else for (const problem of isQualifiedName(provisioner.toLowerCase())) causes.push(invalidValue('provisioner', provisioner, problem));
  const parameters = fields(object['parameters'] as JsonValue | undefined);
  if (Object.keys(parameters).length > parametersMax) {
    causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not have more than ${parametersMax} items`, field: 'parameters' });
  } else {
    let bytes = 0;
    for (const [key, value] of Object.entries(parameters)) {
      if (key === '') causes.push(invalidValue('parameters', key, 'field can not be empty.'));
      bytes += key.length + String(value).length;
    }
    if (bytes > parametersBytesMax) causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${parametersBytesMax} bytes`, field: 'parameters' });
  }
  const policy = object['reclaimPolicy'];
  if (typeof policy === 'string' && policy !== '' && !classReclaimPolicies.includes(policy)) causes.push(notSupported('reclaimPolicy', policy, classReclaimPolicies));
  const mode = object['volumeBindingMode'];
  if (mode === undefined) causes.push(required('volumeBindingMode'));
  else if (!bindingModes.includes(String(mode))) causes.push(notSupported('volumeBindingMode', mode as JsonValue, bindingModes));
  return causes;
}

function storageClassUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!sameJson(object['parameters'] as JsonValue | undefined, old['parameters'] as JsonValue | undefined)) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (object['provisioner'] !== old['provisioner']) causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (object['reclaimPolicy'] !== old['reclaimPolicy']) causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  causes.push(...immutable('volumeBindingMode', object['volumeBindingMode'] as JsonValue | undefined, old['volumeBindingMode'] as JsonValue | undefined));
  return causes;
}

function defaultStorageClass(object: KubeObject): void {
  if (object['reclaimPolicy'] === undefined) object['reclaimPolicy'] = 'Delete';
  if (object['volumeBindingMode'] === undefined) object['volumeBindingMode'] = 'Immediate';
}

export const storageClassStrategy: Strategy = {
  // kube: PUT of an absent StorageClass is 404.
  allowCreateOnUpdate: false,
  prepareForCreate: defaultStorageClass,
  prepareForUpdate: (object) => defaultStorageClass(object),
  validate: storageClassCauses,
  validateUpdate: storageClassUpdateCauses,
};

// ---- CSIDriver ----

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Ephemeral', 'Persistent'];

function defaultCsiDriver(object: KubeObject): void {
  const spec = { ...specOf(object) };
  if (spec['attachRequired'] === undefined) spec['attachRequired'] = true;
  if (spec['podInfoOnMount'] === undefined) spec['podInfoOnMount'] = false;
  if (spec['storageCapacity'] === undefined) spec['storageCapacity'] = false;
  if (spec['fsGroupPolicy'] === undefined) spec['fsGroupPolicy'] = 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec['volumeLifecycleModes']) || spec['volumeLifecycleModes'].length === 0) spec['volumeLifecycleModes'] = ['Persistent'];
  if (spec['requiresRepublish'] === undefined) spec['requiresRepublish'] = false;
  if (spec['seLinuxMount'] === undefined) spec['seLinuxMount'] = false;
  object['spec'] = spec;
}

function csiDriverCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes = csiDriverNameCauses('metadata.name', object.metadata.name ?? '').filter((cause) => cause.reason === 'FieldValueTooLong');
  const policy = spec['fsGroupPolicy'];
  if (policy !== undefined && !fsGroupPolicies.includes(String(policy))) causes.push(notSupported('spec.fsGroupPolicy', policy, fsGroupPolicies));
  stringList(spec['volumeLifecycleModes']).forEach((mode) => {
    if (!lifecycleModes.includes(mode)) causes.push(notSupported('spec.volumeLifecycleModes', mode, lifecycleModes));
  });
  const audiences = new Set<string>();
  (Array.isArray(spec['tokenRequests']) ? spec['tokenRequests'] : []).forEach((request, index) => {
    const audience = String(fields(request)['audience'] ?? '');
    if (audiences.has(audience)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(audience)}`, field: `spec.tokenRequests[${index}].audience` });
    audiences.add(audience);
    const expiration = fields(request)['expirationSeconds'];
    if (typeof expiration === 'number' && expiration < 600) causes.push(invalidValue(`spec.tokenRequests[${index}].expirationSeconds`, expiration, 'may not specify a duration less than 10 minutes'));
  });
  return causes;
}

function csiDriverUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const oldSpec = specOf(old);
  return [
    ...immutable('spec.attachRequired', spec['attachRequired'], oldSpec['attachRequired']),
    ...immutable('spec.fsGroupPolicy', spec['fsGroupPolicy'], oldSpec['fsGroupPolicy']),
    ...immutable('spec.volumeLifecycleModes', spec['volumeLifecycleModes'], oldSpec['volumeLifecycleModes']),
  ];
}

export const csiDriverStrategy: Strategy = {
  // kube: PUT of an absent CSIDriver is 404.
  allowCreateOnUpdate: false,
  prepareForCreate: defaultCsiDriver,
  prepareForUpdate: (object) => defaultCsiDriver(object),
  validate: csiDriverCauses,
  validateUpdate: csiDriverUpdateCauses,
};

// ---- CSINode ----

const nodeIdBytesMax = 192;

function csiNodeCauses(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  const drivers = specOf(object)['drivers'];
  (Array.isArray(drivers) ? drivers : []).forEach((raw, index) => {
    const driver = fields(raw);
    const at = `spec.drivers[${index}]`;
    const name = String(driver['name'] ?? '');
    if (name === '') causes.push(required(`${at}.name`));
    else causes.push(...csiDriverNameCauses(`${at}.name`, name));
    if (names.has(name)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `${at}.name` });
    names.add(name);
    const nodeId = String(driver['nodeID'] ?? '');
    if (nodeId === '') causes.push(required(`${at}.nodeID`));
    else if (nodeId.length > nodeIdBytesMax) causes.push(invalidValue(`${at}.nodeID`, nodeId, `must be ${nodeIdBytesMax} characters or less`));
    const count = fields(driver['allocatable'])['count'];
    if (typeof count === 'number' && count < 0) causes.push(invalidValue(`${at}.allocatable.count`, count, 'must be greater than or equal to 0'));
  });
  return causes;
}

function csiNodeUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const oldDrivers = new Map((Array.isArray(specOf(old)['drivers']) ? specOf(old)['drivers'] as JsonValue[] : []).map((raw) => [String(fields(raw)['name'] ?? ''), fields(raw)] as const));
  const drivers = specOf(object)['drivers'];
  (Array.isArray(drivers) ? drivers : []).forEach((raw, index) => {
    const driver = fields(raw);
    const previous = oldDrivers.get(String(driver['name'] ?? ''));
    if (previous === undefined) return;
    causes.push(...immutable(`spec.drivers[${index}].nodeID`, driver['nodeID'], previous['nodeID']));
    causes.push(...immutable(`spec.drivers[${index}].topologyKeys`, driver['topologyKeys'], previous['topologyKeys']));
  });
  return causes;
}

export const csiNodeStrategy: Strategy = {
  // kube: PUT of an absent CSINode is 404.
  allowCreateOnUpdate: false,
  validate: csiNodeCauses,
  validateUpdate: csiNodeUpdateCauses,
};

// ---- VolumeAttachment ----

function volumeAttachmentCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const causes: StatusCause[] = [];
  if (String(spec['attacher'] ?? '') === '') causes.push(required('spec.attacher'));
  const source = fields(spec['source']);
  const inline = isFields(source['inlineVolumeSpec']);
  const pvName = source['persistentVolumeName'];
  if (!inline && pvName === undefined) causes.push(required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (inline && pvName !== undefined) causes.push(forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (pvName !== undefined && String(pvName) === '') causes.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  const nodeName = String(spec['nodeName'] ?? '');
  for (const problem of nameProblems(nodeName, 'dns1123Subdomain')) causes.push(invalidValue('spec.nodeName', nodeName, problem));
  const status = fields(object['status'] as JsonValue | undefined);
  for (const part of ['attachError', 'detachError']) {
    const message = String(fields(status[part])['message'] ?? '');
    if (message.length > 1024) causes.push({ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1024 bytes', field: `status.${part}.message` });
  }
  return causes;
}

export const volumeAttachmentStrategy: Strategy = {
  // kube: PUT of an absent VolumeAttachment is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    delete object['status'];
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
  },
  validate: volumeAttachmentCauses,
  validateUpdate(object, old) {
    return sameJson(object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined) ? [] : [invalidValue('spec', object['spec'] ?? null, 'field is immutable')];
  },
};

// ---- CSIStorageCapacity ----

function capacityCauses(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const className = String(object['storageClassName'] ?? '');
  for (const problem of nameProblems(className, 'dns1123Subdomain')) causes.push(invalidValue('storageClassName', className, problem));
  for (const field of ['capacity', 'maximumVolumeSize']) {
    if (object[field] === undefined) continue;
    const quantity = quantityAt(field, object[field] as JsonValue, causes);
    if (quantity !== undefined) causes.push(...nonNegativeQuantityCauses(field, quantity));
  }
  return causes;
}

export const csiStorageCapacityStrategy: Strategy = {
  // kube: PUT of an absent CSIStorageCapacity is 404.
  allowCreateOnUpdate: false,
  validate: capacityCauses,
  validateUpdate: (object, old) => [
    ...immutable('nodeTopology', object['nodeTopology'] as JsonValue | undefined, old['nodeTopology'] as JsonValue | undefined),
    ...immutable('storageClassName', object['storageClassName'] as JsonValue | undefined, old['storageClassName'] as JsonValue | undefined),
  ],
};
