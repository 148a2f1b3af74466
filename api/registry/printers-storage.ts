// Owns: the Table cells of the storage, quota, scheduling and node kinds, computed as
// kube-apiserver's built-in printers compute them (pkg/printers/internalversion/printers.go:
// printPersistentVolume, printPersistentVolumeClaim, printStorageClass, printResourceQuota,
// printComponentStatus, printCSIDriver, printVolumeAttachment, …). Pure functions of the object.
import { nested, stringOf } from './printers.ts';
import { formatQuantity, parseQuantity } from './strategy-quota.ts';

type Fields = Record<string, unknown>;

const storageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** Quantity.String() of a stored quantity; Go's zero Quantity (absent) prints "0". */
export function quantityText(value: unknown): string {
  if (value === undefined || value === null) return '0';
  const quantity = parseQuantity(value as string | number);
  return quantity === undefined ? stringOf(value) : formatQuantity(quantity);
}

const accessModeShort: readonly (readonly [string, string])[] = [
  ['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP'],
];

/** helper.GetAccessModesAsString: the modes present, short, in kube's fixed order. */
export function accessModesText(modes: unknown): string {
  const present = Array.isArray(modes) ? modes.map(String) : [];
  return accessModeShort.filter(([mode]) => present.includes(mode)).map(([, short]) => short).join(',');
}

function annotation(object: Fields, key: string): string | undefined {
  const annotations = nested(object, 'metadata', 'annotations');
  if (annotations === null || typeof annotations !== 'object') return undefined;
  const value = (annotations as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

function terminatingOr(object: Fields, phase: string): string {
  return nested(object, 'metadata', 'deletionTimestamp') !== undefined ? 'Terminating' : phase;
}

function unsetOr(value: unknown): string {
  return typeof value === 'string' ? value : '<unset>';
}

/** printPersistentVolume's cells after Name. */
export const persistentVolumeCells = {
  capacity: (o: Fields): string => quantityText(nested(o, 'spec', 'capacity', 'storage')),
  accessModes: (o: Fields): string => accessModesText(nested(o, 'spec', 'accessModes')),
  reclaimPolicy: (o: Fields): string => stringOf(nested(o, 'spec', 'persistentVolumeReclaimPolicy')),
  status: (o: Fields): string => terminatingOr(o, stringOf(nested(o, 'status', 'phase'))),
  claim: (o: Fields): string => {
    const claim = nested(o, 'spec', 'claimRef');
    return claim === undefined || claim === null ? '' : `${stringOf(nested(claim, 'namespace'))}/${stringOf(nested(claim, 'name'))}`;
  },
  /** helper.GetPersistentVolumeClass: the beta annotation wins over spec.storageClassName. */
  storageClass: (o: Fields): string => annotation(o, storageClassAnnotation) ?? stringOf(nested(o, 'spec', 'storageClassName')),
  volumeAttributesClass: (o: Fields): string => unsetOr(nested(o, 'spec', 'volumeAttributesClassName')),
  reason: (o: Fields): string => stringOf(nested(o, 'status', 'reason')),
  volumeMode: (o: Fields): string => unsetOr(nested(o, 'spec', 'volumeMode')),
};

/** printPersistentVolumeClaim's cells after Name: capacity and access modes only once a volume is named. */
export const persistentVolumeClaimCells = {
  status: (o: Fields): string => terminatingOr(o, stringOf(nested(o, 'status', 'phase'))),
  volume: (o: Fields): string => stringOf(nested(o, 'spec', 'volumeName')),
  capacity: (o: Fields): string => (stringOf(nested(o, 'spec', 'volumeName')) === '' ? '' : quantityText(nested(o, 'status', 'capacity', 'storage'))),
  accessModes: (o: Fields): string => (stringOf(nested(o, 'spec', 'volumeName')) === '' ? '' : accessModesText(nested(o, 'status', 'accessModes'))),
  storageClass: (o: Fields): string => annotation(o, storageClassAnnotation) ?? stringOf(nested(o, 'spec', 'storageClassName')),
  volumeAttributesClass: (o: Fields): string => unsetOr(nested(o, 'spec', 'volumeAttributesClassName')),
  volumeMode: (o: Fields): string => unsetOr(nested(o, 'spec', 'volumeMode')),
};

/** printStorageClass's Name: " (default)" after the default class (either is-default-class annotation). */
export function storageClassName(o: Fields): string {
  const name = stringOf(nested(o, 'metadata', 'name'));
  const isDefault = annotation(o, 'storageclass.kubernetes.io/is-default-class') === 'true' || annotation(o, 'storageclass.beta.kubernetes.io/is-default-class') === 'true';
  return isDefault ? `${name} (default)` : name;
}

/** printResourceQuota's Request and Limit cells: "name: used/hard" over spec.hard's names, sorted; limits.* go to Limit. */
export function resourceQuotaCell(o: Fields, column: 'request' | 'limit'): string {
  const hard = nested(o, 'spec', 'hard');
  const names = hard !== null && typeof hard === 'object' ? Object.keys(hard).sort() : [];
  return names
    .filter((name) => (name.split('.').length > 1 && name.split('.')[0] === 'limits') === (column === 'limit'))
    .map((name) => `${name}: ${quantityText(nested(o, 'status', 'used', name))}/${quantityText(nested(o, 'status', 'hard', name))}`)
    .join(', ');
}

/** printComponentStatus: the Healthy condition's status, message and error. */
export function componentCondition(o: Fields): { readonly status: string; readonly message: string; readonly error: string } {
  const conditions = Array.isArray(o['conditions']) ? (o['conditions'] as Fields[]) : [];
  const healthy = conditions.find((condition) => condition !== null && typeof condition === 'object' && condition['type'] === 'Healthy');
  if (healthy === undefined) return { status: 'Unknown', message: '', error: '' };
  return { status: healthy['status'] === 'True' ? 'Healthy' : 'Unhealthy', message: stringOf(healthy['message']), error: stringOf(healthy['error']) };
}

function flag(value: unknown, unset: boolean): boolean {
  return typeof value === 'boolean' ? value : unset;
}

/** printCSIDriver's cells after Name. */
export const csiDriverCells = {
  attachRequired: (o: Fields): boolean => flag(nested(o, 'spec', 'attachRequired'), true),
  podInfoOnMount: (o: Fields): boolean => flag(nested(o, 'spec', 'podInfoOnMount'), false),
  storageCapacity: (o: Fields): boolean => flag(nested(o, 'spec', 'storageCapacity'), false),
  tokenRequests: (o: Fields): string => {
    const requests = nested(o, 'spec', 'tokenRequests');
    return Array.isArray(requests) && requests.length > 0 ? requests.map((request) => stringOf(nested(request, 'audience'))).join(',') : '<unset>';
  },
  requiresRepublish: (o: Fields): boolean => flag(nested(o, 'spec', 'requiresRepublish'), false),
  modes: (o: Fields): string => {
    const modes = nested(o, 'spec', 'volumeLifecycleModes');
    return Array.isArray(modes) && modes.length > 0 ? modes.map(String).join(',') : '<none>';
  },
};

/** printCSINode's Drivers cell. */
export function csiNodeDrivers(o: Fields): number {
  const drivers = nested(o, 'spec', 'drivers');
  return Array.isArray(drivers) ? drivers.length : 0;
}

/** printCSIStorageCapacity's Capacity cell. */
export function storageCapacityText(o: Fields): string {
  return o['capacity'] === undefined || o['capacity'] === null ? '<unset>' : quantityText(o['capacity']);
}
