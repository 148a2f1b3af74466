// Owns: RaftNode's options, their defaults and their validation. Must not start anything.
import type { RaftStorage, SegmentSource } from '../storage/index.ts';
import type { Transport } from '../transport/index.ts';
import type { StateMachine } from './state-machine.ts';

export interface RaftNodeOptions<Result> {
  id: string;
  /**
   * The group's bootstrap voters: all voter ids including this member; a single member is [id].
   * With `join`, the bootstrap voters of the group being joined (without this member). Once
   * the log or a snapshot holds a configuration, that wins (see configuration()).
   */
  peers: readonly string[];
  /** This member joins an existing group: it waits to be added (as a learner) by the leader. */
  join?: boolean;
  dataDir: string;
  stateMachine: StateMachine<Result>;
  /** Absent (or a memory transport) for a single member. */
  transport?: Transport;
  /** Default 100. */
  tickIntervalMs?: number;
  /** Defaults 10 and 1: elections after 1–2 s without a leader, heartbeats every 100 ms. */
  electionTicks?: number;
  heartbeatTicks?: number;
  /** Take a state machine snapshot and compact the log every this many applied entries.
   *  Default defaultSnapshotEveryEntries. */
  snapshotEveryEntries?: number;
  /** Bytes per InstallSnapshot chunk; default the core's snapshotChunkBytesDefault. */
  snapshotChunkBytes?: number;
  /** WAL segment size; default the storage's segmentBytesMax (tests use small ones). */
  walSegmentBytes?: number;
  /** WAL segments read and checked ahead of open (deploy/wal-prefetch.ts); recovery reads the others itself. */
  walSegmentSource?: SegmentSource;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  /**
   * Wraps the opened disk storage; fault-injection tests use it to fail a write or an fsync
   * (EIO) at a chosen point. Production code never sets it.
   */
  wrapStorage?: (storage: RaftStorage) => RaftStorage;
}

export const defaultTickIntervalMs = 100;
export const defaultElectionTicks = 10;
export const defaultHeartbeatTicks = 1;
/**
 * Applied entries between snapshots (each member at its own phase: snapshot-schedule.ts).
 * A snapshot costs the whole state, and kstore's state is dominated by the watch history (up to
 * 50,000 events, bounded by actors/mvcc/history.ts) rather than by the entries since the last
 * snapshot: at 10,000 entries a snapshot wrote several times the log it let go. At 50,000
 * entries of ~1 KiB the in-memory log (and the WAL replayed after a restart) stays near 50 MiB
 * and a snapshot is comparable to the log it replaces; a longer log also lets a member that was
 * down for a while catch up from the log rather than by InstallSnapshot. etcd's default
 * --snapshot-count is 100,000 (since 3.2).
 */
export const defaultSnapshotEveryEntries = 50_000;

/**
 * What a clean stop of a store passes to RaftNode.close(): a snapshot at the stop when at least
 * this many applied entries, and at least as many as there are objects, came after the newest
 * snapshot (snapshotAtStopThreshold). Measured on a 2-vCPU VM at 100,000 objects: a snapshot at
 * the stop took 6.8 s (~68 µs per object, serialised and gzipped on the main thread), replaying
 * the WAL at the next start ~60 µs per entry; so the stop pays for itself in the next start only
 * when the tail is at least the size of the state (an update-heavy store: leases, status).
 */
export const snapshotAtStopEntries = 5_000;

/** The snapshotIfBehind of a clean stop of a store holding `objectCount` objects. */
export function snapshotAtStopThreshold(objectCount: number): number {
  return Math.max(snapshotAtStopEntries, objectCount);
}

export interface RaftStatus {
  readonly id: string;
  /**
   * 'failed' once storage or apply failed: the member has stopped and claims no role, and its
   * term, leader and indexes are what it last knew (stale; a supervisor restarts it from disk).
   */
  readonly role: 'leader' | 'follower' | 'candidate' | 'failed';
  readonly term: number;
  readonly leaderId: string | undefined;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly lastIndex: number;
  /** Why the member stopped working (storage or apply failed); undefined while healthy. */
  readonly failure: string | undefined;
  /**
   * Milliseconds since this member last received a message from `leaderId` (0 on the leader;
   * undefined while no leader is known). A follower that believes in a leader it has not heard
   * from lately may be following a dead one (it keeps believing until its own election).
   */
  readonly leaderContactMs?: number | undefined;
}

/** Throws a TypeError describing the first invalid option (a configuration error). */
export function validateOptions<Result>(options: RaftNodeOptions<Result>): void {
  if (options.id.length === 0) throw new TypeError('RaftNode id must not be empty');
  if (options.join !== true && !options.peers.includes(options.id)) throw new TypeError(`peers must include this member (${options.id})`);
  if (options.join === true && options.peers.includes(options.id)) throw new TypeError('a joining member is not among the bootstrap peers');
  if (options.peers.length === 0) throw new TypeError('peers must name at least one voter');
  if (new Set(options.peers).size !== options.peers.length) throw new TypeError('peers must be unique');
  if ((options.peers.length > 1 || options.join === true) && options.transport === undefined) throw new TypeError('a multi-member group needs a transport');
  const electionTicks = options.electionTicks ?? defaultElectionTicks;
  const heartbeatTicks = options.heartbeatTicks ?? defaultHeartbeatTicks;
  if (!Number.isSafeInteger(electionTicks) || electionTicks < 2) throw new TypeError('electionTicks must be an integer >= 2');
  if (!Number.isSafeInteger(heartbeatTicks) || heartbeatTicks < 1 || heartbeatTicks >= electionTicks) {
    throw new TypeError('heartbeatTicks must be an integer in [1, electionTicks)');
  }
  for (const name of ['snapshotEveryEntries', 'snapshotChunkBytes', 'walSegmentBytes'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) throw new TypeError(`${name} must be a positive integer`);
  }
}
