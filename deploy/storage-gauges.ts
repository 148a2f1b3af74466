// Owns: the /metrics gauges of the store members' data dir space (storage-quota.ts), labelled by
// member: `kstore server` reports its one member, an API replica every member it heard from.
// The names follow etcd's where one exists (etcd_server_quota_backend_bytes, etcd's NOSPACE
// alarm), so dashboards that watch etcd's quota have a counterpart.
import type { LabeledGaugeSource } from '../api/index.ts';
import type { StorageUsage } from './storage-quota.ts';

export interface MemberStorage {
  readonly member: string;
  readonly storage: StorageUsage;
}

export function storageGauges(read: () => readonly MemberStorage[]): readonly LabeledGaugeSource[] {
  const perMember = (value: (storage: StorageUsage) => number) => () => read().map((entry) => ({ labels: { member: entry.member }, value: value(entry.storage) }));
  return [
    { name: 'kstore_storage_used_bytes', help: 'Bytes the store member\'s data dir holds (WAL segments and snapshots).', labelNames: ['member'], readAll: perMember((storage) => storage.usedBytes) },
    { name: 'kstore_storage_quota_bytes', help: 'The store member\'s data dir quota (--quota-backend-bytes).', labelNames: ['member'], readAll: perMember((storage) => storage.quotaBytes) },
    { name: 'kstore_storage_free_bytes', help: 'Free bytes on the filesystem of the store member\'s data dir.', labelNames: ['member'], readAll: perMember((storage) => storage.freeBytes) },
    { name: 'kstore_storage_reserve_bytes', help: 'Free bytes the store member keeps (--storage-reserve-bytes).', labelNames: ['member'], readAll: perMember((storage) => storage.reserveBytes) },
    { name: 'kstore_storage_alarm', help: '1 while the store member\'s space alarm is raised (writes other than deletes refused).', labelNames: ['member'], readAll: perMember((storage) => (storage.alarm === undefined ? 0 : 1)) },
  ];
}
