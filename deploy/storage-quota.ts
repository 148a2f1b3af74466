// Owns: the space alarm of one store member's data dir (etcd's NOSPACE alarm, adapted). Every
// `intervalMs` it measures the bytes the data dir holds (WAL segments, snapshots, everything
// under it) and the bytes still free on its filesystem, and raises the alarm while the data dir
// holds more than the quota (--quota-backend-bytes) or the filesystem has less free space than
// the reserve (--storage-reserve-bytes), so writes stop *before* a write or fsync fails with
// ENOSPC and takes the member down. The alarm clears by itself once both are back within
// bounds (a snapshot released old WAL segments, files were removed, the disk grew): recovery
// needs no restart and no operator command, unlike etcd's `alarm disarm`.
//
// While raised, `refusal(command)` refuses every command that can grow the store (create,
// update) and admits what frees space or is needed to (delete, token expiry, no-ops), as etcd
// admits deletes and compaction under NOSPACE. The refusal is a StorageAlarmError, which the
// API tier answers as kube-apiserver answers etcd's "mvcc: database space exceeded".
// Measuring is I/O outside the state machine; the alarm never enters the replicated log.
// Given `writes` (the member's count of completed storage writes, RaftNode.storageWrites), a
// measurement walks the data dir only when that count moved since the last walk, or the walk is
// usedBytesMaxAgeMs old (a file put there by something else); the free space is read every time.
// An idle member then reads one statfs per interval instead of listing and stating its files.
import { readdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from '../actors/index.ts';

/** etcd's default --quota-backend-bytes. */
export const quotaBackendBytesDefault = 2 * 1024 * 1024 * 1024;
/** Free bytes kept on the data dir's filesystem: room for a WAL segment's worth of writes. */
export const storageReserveBytesDefault = 64 * 1024 * 1024;
/** How often usage is measured: a few small directory reads. */
export const storageCheckIntervalMsDefault = 500;

export interface StorageQuotaOptions {
  /** The member's data dir (everything under it counts). */
  readonly dataDir: string;
  /** The member's id, named in refusals. */
  readonly member: string;
  readonly quotaBytes?: number;
  readonly reserveBytes?: number;
  readonly intervalMs?: number;
  /**
   * The member's count of completed writes to its data dir (RaftNode.storageWrites): while it
   * stays, the data dir's size is not walked again (for up to usedBytesMaxAgeMs). Absent: every
   * measurement walks it.
   */
  readonly writes?: () => number;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** The longest a data dir's size is taken from an earlier walk while the member wrote nothing. */
export const usedBytesMaxAgeMs = 10_000;

/** What the last measurement found; `alarm` is the reason while the alarm is raised. */
export interface StorageUsage {
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly freeBytes: number;
  readonly reserveBytes: number;
  readonly alarm: string | undefined;
}

/** A write refused while a member's space alarm is raised. */
export class StorageAlarmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageAlarmError';
  }
}

/** Commands that do not grow the store: deletes free space, token expiry deletes, no-ops are empty. */
export function admittedUnderAlarm(command: Command): boolean {
  return command.type === 'delete' || command.type === 'expireTokens' || command.type === 'noop';
}

const byteSuffixes: Readonly<Record<string, number>> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** A byte count (flag value): digits with an optional Ki, Mi, Gi or Ti suffix. */
export function parseByteSize(value: string, flag: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(value);
  const bytes = match === null ? Number.NaN : Number(match[1]) * byteSuffixes[match[2] ?? '']!;
  if (!Number.isSafeInteger(bytes)) throw new Error(`${flag} must be a byte count (digits, optionally with a Ki, Mi, Gi or Ti suffix), got ${JSON.stringify(value)}`);
  return bytes;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The alarm's reason for a measurement, or undefined when within bounds. */
export function alarmReason(member: string, usedBytes: number, quotaBytes: number, freeBytes: number, reserveBytes: number): string | undefined {
  if (usedBytes > quotaBytes) {
    return `the data dir of store member ${member} holds ${megabytes(usedBytes)}, over its quota of ${megabytes(quotaBytes)} (--quota-backend-bytes); `
      + 'only deletes are taken until it is back under the quota (old log segments are released at the next snapshot)';
  }
  if (freeBytes < reserveBytes) {
    return `the filesystem of store member ${member}'s data dir has ${megabytes(freeBytes)} free, under its reserve of ${megabytes(reserveBytes)} (--storage-reserve-bytes); `
      + 'only deletes are taken until space is freed';
  }
  return undefined;
}

async function directoryBytes(directory: string): Promise<number> {
  let total = 0;
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    // A file released (a WAL segment, an old snapshot) between the listing and its stat is gone.
    const size = await stat(path.join(entry.parentPath, entry.name)).then((stats) => stats.size, () => 0);
    total += size;
  }
  return total;
}

export class StorageQuota {
  readonly #options: StorageQuotaOptions;
  readonly #quotaBytes: number;
  readonly #reserveBytes: number;
  #usage: StorageUsage;
  #timer: ReturnType<typeof setInterval> | undefined;
  #measuring: Promise<StorageUsage> | undefined;
  /** The writes count and the time (performance.now()) of the last walk of the data dir. */
  #walked: { readonly writes: number; readonly atMs: number } | undefined;

  private constructor(options: StorageQuotaOptions) {
    this.#options = options;
    this.#quotaBytes = options.quotaBytes === undefined || options.quotaBytes === 0 ? quotaBackendBytesDefault : options.quotaBytes;
    this.#reserveBytes = options.reserveBytes ?? storageReserveBytesDefault;
    this.#usage = { usedBytes: 0, quotaBytes: this.#quotaBytes, freeBytes: Number.POSITIVE_INFINITY, reserveBytes: this.#reserveBytes, alarm: undefined };
  }

  /** Measures once (so the first answer is real), then every intervalMs until stop(). */
  static async start(options: StorageQuotaOptions): Promise<StorageQuota> {
    const quota = new StorageQuota(options);
    await quota.measure();
    quota.#timer = setInterval(() => { void quota.measure(); }, options.intervalMs ?? storageCheckIntervalMsDefault);
    quota.#timer.unref();
    return quota;
  }

  usage(): StorageUsage {
    return this.#usage;
  }

  /** The alarm's reason while raised. */
  alarm(): string | undefined {
    return this.#usage.alarm;
  }

  /** The error to refuse `command` with, or undefined to admit it. */
  refusal(command: Command): StorageAlarmError | undefined {
    const alarm = this.#usage.alarm;
    if (alarm === undefined || admittedUnderAlarm(command)) return undefined;
    return new StorageAlarmError(alarm);
  }

  /** Measures now (one measurement at a time; callers during one share it). */
  measure(): Promise<StorageUsage> {
    this.#measuring ??= this.#measure().finally(() => { this.#measuring = undefined; });
    return this.#measuring;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #measure(): Promise<StorageUsage> {
    try {
      const writes = this.#options.writes?.();
      const startedMs = performance.now();
      const walk = writes === undefined || this.#walked === undefined || this.#walked.writes !== writes || startedMs - this.#walked.atMs >= usedBytesMaxAgeMs;
      const [usedBytes, filesystem] = await Promise.all([walk ? directoryBytes(this.#options.dataDir) : this.#usage.usedBytes, statfs(this.#options.dataDir)]);
      // The count read before the walk: a write that completed during it moves the count, and the next measurement walks again.
      if (walk && writes !== undefined) this.#walked = { writes, atMs: startedMs };
      const freeBytes = Number(filesystem.bavail) * Number(filesystem.bsize);
      const alarm = alarmReason(this.#options.member, usedBytes, this.#quotaBytes, freeBytes, this.#reserveBytes);
      if (alarm !== this.#usage.alarm && (alarm === undefined) !== (this.#usage.alarm === undefined)) {
        this.#options.log?.(alarm === undefined ? 'storage alarm cleared' : 'storage alarm raised', { usedBytes, freeBytes, quotaBytes: this.#quotaBytes, reserveBytes: this.#reserveBytes, ...(alarm === undefined ? {} : { reason: alarm }) });
      }
      this.#usage = { usedBytes, quotaBytes: this.#quotaBytes, freeBytes, reserveBytes: this.#reserveBytes, alarm };
    } catch (error) {
      // A measurement that fails keeps the last one; the log and the node report real failures.
      this.#options.log?.('storage usage not measured', { error: error instanceof Error ? error.message : String(error) });
    }
    return this.#usage;
  }
}
