// Owns: the JSON schemas of core/v1 Volume and every VolumeSource variant (hostPath, emptyDir,
// secret, configMap, projected with all its projections, downwardAPI, persistentVolumeClaim,
// ephemeral claim templates, csi, image, and the in-tree cloud and network volume types), with
// kube's field names, types, required fields and list extensions (k8s.io/api core/v1 types.go).
// Also the selectors volumes share with env (ObjectFieldSelector, ResourceFieldSelector).
import {
  at, atomicList, boolean as bool, coreV1, int32, int64, labelSelector, localObjectReference, localObjectReferenceFields, mapOf,
  nameDefinitions, object, objectMetaSchema, quantity, quantityMap, string as str,
} from './schemas.ts';
import type { JsonSchema } from './schemas.ts';

const stringMap = mapOf(str);

export const objectFieldSelector: JsonSchema = {
  ...object({ apiVersion: str, fieldPath: str }, 'ObjectFieldSelector selects an APIVersioned field of an object.', ['fieldPath']),
  'x-kubernetes-map-type': 'atomic',
};

export const resourceFieldSelector: JsonSchema = {
  ...object({ containerName: str, resource: str, divisor: quantity },
    'ResourceFieldSelector represents container resources (cpu, memory) and their output format', ['resource']),
  'x-kubernetes-map-type': 'atomic',
};

const keyToPath = object({ key: str, path: str, mode: int32, user: int64 }, 'Maps a string key to a path within a volume.', ['key', 'path']);

const downwardAPIVolumeFile = object({
  path: str, fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, mode: int32, user: int64,
}, 'DownwardAPIVolumeFile represents information to create the file containing the pod field', ['path']);

const persistentVolumeClaimSpec = object({
  accessModes: atomicList(str), selector: labelSelector,
  resources: object({ limits: quantityMap, requests: quantityMap }, 'VolumeResourceRequirements describes the storage resource requirements for a volume.'),
  volumeName: str, storageClassName: str, volumeMode: str,
  dataSource: { ...object({ apiGroup: str, kind: str, name: str }, 'TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.', ['kind', 'name']), 'x-kubernetes-map-type': 'atomic' },
  dataSourceRef: object({ apiGroup: str, kind: str, name: str, namespace: str }, 'TypedObjectReference contains enough information to let you locate the typed referenced object', ['kind', 'name']),
  volumeAttributesClassName: str,
}, 'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes');

/** Every VolumeSource member, inlined into Volume (Go's embedded VolumeSource). */
export const volumeSourceFields = {
  hostPath: object({ path: str, type: str }, 'Represents a host path mapped into a pod. Host path volumes do not support ownership management or SELinux relabeling.', ['path']),
  emptyDir: object({ medium: str, sizeLimit: quantity, mode: int32 }, 'Represents an empty directory for a pod. Empty directory volumes support ownership management and SELinux relabeling.'),
  gcePersistentDisk: object({ pdName: str, fsType: str, partition: int32, readOnly: bool }, 'Represents a Persistent Disk resource in Google Compute Engine.', ['pdName']),
  awsElasticBlockStore: object({ volumeID: str, fsType: str, partition: int32, readOnly: bool }, 'Represents a Persistent Disk resource in AWS.', ['volumeID']),
  gitRepo: object({ repository: str, revision: str, directory: str }, 'Represents a volume that is populated with the contents of a git repository.', ['repository']),
  secret: object({ secretName: str, items: atomicList(keyToPath), defaultMode: int32, optional: bool, defaultUser: int64 },
    'Adapts a Secret into a volume.'),
  nfs: object({ server: str, path: str, readOnly: bool }, 'Represents an NFS mount that lasts the lifetime of a pod.', ['server', 'path']),
  iscsi: object({
    targetPortal: str, iqn: str, lun: int32, iscsiInterface: str, fsType: str, readOnly: bool, portals: atomicList(str),
    chapAuthDiscovery: bool, chapAuthSession: bool, secretRef: localObjectReference, initiatorName: str,
  }, 'Represents an ISCSI disk.', ['targetPortal', 'iqn', 'lun']),
  glusterfs: object({ endpoints: str, path: str, readOnly: bool }, 'Represents a Glusterfs mount that lasts the lifetime of a pod.', ['endpoints', 'path']),
  persistentVolumeClaim: object({ claimName: str, readOnly: bool },
    'PersistentVolumeClaimVolumeSource references the user\'s PVC in the same namespace.', ['claimName']),
  rbd: object({
    monitors: atomicList(str), image: str, fsType: str, pool: str, user: str, keyring: str, secretRef: localObjectReference, readOnly: bool,
  }, 'Represents a Rados Block Device mount that lasts the lifetime of a pod.', ['monitors', 'image']),
  flexVolume: object({ driver: str, fsType: str, secretRef: localObjectReference, readOnly: bool, options: stringMap },
    'FlexVolume represents a generic volume resource that is provisioned/attached using an exec based plugin.', ['driver']),
  cinder: object({ volumeID: str, fsType: str, readOnly: bool, secretRef: localObjectReference }, 'Represents a cinder volume resource in Openstack.', ['volumeID']),
  cephfs: object({
    monitors: atomicList(str), path: str, user: str, secretFile: str, secretRef: localObjectReference, readOnly: bool,
  }, 'Represents a Ceph Filesystem mount that lasts the lifetime of a pod', ['monitors']),
  flocker: object({ datasetName: str, datasetUUID: str }, 'Represents a Flocker volume mounted by the Flocker agent.'),
  downwardAPI: object({ items: atomicList(downwardAPIVolumeFile), defaultMode: int32, defaultUser: int64 },
    'DownwardAPIVolumeSource represents a volume containing downward API info.'),
  fc: object({ targetWWNs: atomicList(str), lun: int32, fsType: str, readOnly: bool, wwids: atomicList(str) },
    'Represents a Fibre Channel volume.'),
  azureFile: object({ secretName: str, shareName: str, readOnly: bool }, 'AzureFile represents an Azure File Service mount on the host and bind mount to the pod.', ['secretName', 'shareName']),
  configMap: object({ ...localObjectReferenceFields, items: atomicList(keyToPath), defaultMode: int32, optional: bool, defaultUser: int64 },
    'Adapts a ConfigMap into a volume.'),
  vsphereVolume: object({ volumePath: str, fsType: str, storagePolicyName: str, storagePolicyID: str },
    'Represents a vSphere volume resource.', ['volumePath']),
  quobyte: object({ registry: str, volume: str, readOnly: bool, user: str, group: str, tenant: str },
    'Represents a Quobyte mount that lasts the lifetime of a pod.', ['registry', 'volume']),
  azureDisk: object({ diskName: str, diskURI: str, cachingMode: str, fsType: str, readOnly: bool, kind: str },
    'AzureDisk represents an Azure Data Disk mount on the host and bind mount to the pod.', ['diskName', 'diskURI']),
  photonPersistentDisk: object({ pdID: str, fsType: str }, 'Represents a Photon Controller persistent disk resource.', ['pdID']),
  projected: object({
    sources: atomicList(object({
      secret: object({ ...localObjectReferenceFields, items: atomicList(keyToPath), optional: bool },
        'Adapts a secret into a projected volume.'),
      downwardAPI: object({ items: atomicList(downwardAPIVolumeFile) }, 'Represents downward API info for projecting into a projected volume.'),
      configMap: object({ ...localObjectReferenceFields, items: atomicList(keyToPath), optional: bool },
        'Adapts a ConfigMap into a projected volume.'),
      serviceAccountToken: object({ audience: str, expirationSeconds: int64, path: str, user: int64 },
        'ServiceAccountTokenProjection represents a projected service account token volume.', ['path']),
      clusterTrustBundle: object({ name: str, signerName: str, labelSelector, optional: bool, path: str, user: int64 },
        'ClusterTrustBundleProjection describes how to select a set of ClusterTrustBundle objects and project their contents into the pod filesystem.', ['path']),
      podCertificate: object({
        signerName: str, keyType: str, maxExpirationSeconds: int32, credentialBundlePath: str, keyPath: str,
        certificateChainPath: str, userAnnotations: stringMap, user: int64,
      }, 'PodCertificateProjection provides a private key and X.509 certificate in the pod filesystem.', ['signerName', 'keyType']),
    }, 'Projection that may be projected along with other supported volume types. Exactly one of these fields must be set.')),
    defaultMode: int32, defaultUser: int64,
  }, 'Represents a projected volume source', ['sources']),
  portworxVolume: object({ volumeID: str, fsType: str, readOnly: bool }, 'PortworxVolumeSource represents a Portworx volume resource.', ['volumeID']),
  scaleIO: object({
    gateway: str, system: str, secretRef: localObjectReference, sslEnabled: bool, protectionDomain: str, storagePool: str,
    storageMode: str, volumeName: str, fsType: str, readOnly: bool,
  }, 'ScaleIOVolumeSource represents a persistent ScaleIO volume', ['gateway', 'system', 'secretRef']),
  storageos: object({ volumeName: str, volumeNamespace: str, fsType: str, readOnly: bool, secretRef: localObjectReference },
    'Represents a StorageOS persistent volume resource.'),
  csi: object({ driver: str, readOnly: bool, fsType: str, volumeAttributes: stringMap, nodePublishSecretRef: localObjectReference },
    'Represents a source location of a volume to mount, managed by an external CSI driver', ['driver']),
  ephemeral: object({
    volumeClaimTemplate: object({ metadata: objectMetaSchema, spec: persistentVolumeClaimSpec },
      'PersistentVolumeClaimTemplate is used to produce PersistentVolumeClaim objects as part of an EphemeralVolumeSource.', ['spec']),
  }, 'Represents an ephemeral volume that is handled by a normal storage driver.'),
  image: object({ reference: str, pullPolicy: str },
    'ImageVolumeSource represents a image volume resource.'),
} as const satisfies Record<string, JsonSchema>;

export const volumeSchema: JsonSchema = object({ name: str, ...volumeSourceFields },
  'Volume represents a named volume in a pod that may be accessed by any container in the pod.', ['name']);

const sources = volumeSourceFields;
nameDefinitions(coreV1, {
  ObjectFieldSelector: objectFieldSelector, ResourceFieldSelector: resourceFieldSelector, KeyToPath: keyToPath,
  DownwardAPIVolumeFile: downwardAPIVolumeFile, PersistentVolumeClaimSpec: persistentVolumeClaimSpec,
  VolumeResourceRequirements: at(persistentVolumeClaimSpec, 'resources'),
  TypedLocalObjectReference: at(persistentVolumeClaimSpec, 'dataSource'), TypedObjectReference: at(persistentVolumeClaimSpec, 'dataSourceRef'),
  HostPathVolumeSource: sources.hostPath, EmptyDirVolumeSource: sources.emptyDir, GCEPersistentDiskVolumeSource: sources.gcePersistentDisk,
  AWSElasticBlockStoreVolumeSource: sources.awsElasticBlockStore, GitRepoVolumeSource: sources.gitRepo, SecretVolumeSource: sources.secret,
  NFSVolumeSource: sources.nfs, ISCSIVolumeSource: sources.iscsi, GlusterfsVolumeSource: sources.glusterfs,
  PersistentVolumeClaimVolumeSource: sources.persistentVolumeClaim, RBDVolumeSource: sources.rbd, FlexVolumeSource: sources.flexVolume,
  CinderVolumeSource: sources.cinder, CephFSVolumeSource: sources.cephfs, FlockerVolumeSource: sources.flocker,
  DownwardAPIVolumeSource: sources.downwardAPI, FCVolumeSource: sources.fc, AzureFileVolumeSource: sources.azureFile,
  ConfigMapVolumeSource: sources.configMap, VsphereVirtualDiskVolumeSource: sources.vsphereVolume, QuobyteVolumeSource: sources.quobyte,
  AzureDiskVolumeSource: sources.azureDisk, PhotonPersistentDiskVolumeSource: sources.photonPersistentDisk,
  ProjectedVolumeSource: sources.projected, PortworxVolumeSource: sources.portworxVolume, ScaleIOVolumeSource: sources.scaleIO,
  StorageOSVolumeSource: sources.storageos, CSIVolumeSource: sources.csi, EphemeralVolumeSource: sources.ephemeral,
  ImageVolumeSource: sources.image,
  VolumeProjection: at(sources.projected, 'sources'), SecretProjection: at(sources.projected, 'sources', 'secret'),
  DownwardAPIProjection: at(sources.projected, 'sources', 'downwardAPI'), ConfigMapProjection: at(sources.projected, 'sources', 'configMap'),
  ServiceAccountTokenProjection: at(sources.projected, 'sources', 'serviceAccountToken'),
  ClusterTrustBundleProjection: at(sources.projected, 'sources', 'clusterTrustBundle'),
  PodCertificateProjection: at(sources.projected, 'sources', 'podCertificate'),
  PersistentVolumeClaimTemplate: at(sources.ephemeral, 'volumeClaimTemplate'),
  Volume: volumeSchema,
});
