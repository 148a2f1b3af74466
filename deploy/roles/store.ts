// Owns: wiring of the `kstore store` role: one Raft member of a multi-member store, with the
// actors/ ClusterState as its state machine, the NATS transport for Raft messages and the
// proposal service for clients, the change-event publisher (deploy/event-stream, active while
// this member leads), the leader-only duties (deploy/leader-duties.ts: system namespaces and
// controllers, while it leads), a ready line, and a clean stop on SIGTERM/SIGINT (a leader
// first hands leadership to a peer). A storage failure of the Raft member (ENOSPC, EIO, a
// failed fsync) is fail-stop: the member already claims no role (RaftNode status 'failed'), so
// the leader duties and the event publisher stand down at once; everything is stopped and the
// process exits with storeFailedExitCode, for its supervisor to restart it — it then replays
// its log from disk, as after kill -9. Nothing is retried on the failed file descriptors.
// Before that point, the data dir's space alarm (deploy/storage-quota.ts) keeps the member from
// proposing commands that grow the store, from clients and from its own leader duties, and its
// status replies carry the data dir's usage for API replicas and `kstore cluster status`.
// Wiring only: no logic of its own (openNatsStore is also used by in-process tests).
import path from 'node:path';
import { ClusterState, decodeCommand } from '../../actors/index.ts';
import { CompressedSnapshots } from '../compressed-snapshots.ts';
import { snapshotPrefetchFor } from '../snapshot-prefetch.ts';
import { walPrefetchFor } from '../wal-prefetch.ts';
import type { CommandResult } from '../../actors/index.ts';
import { connectNats, NatsTransport, ProposalService, RaftNode, snapshotAtStopThreshold } from '../../raft/index.ts';
import { EventPublisher } from '../event-stream/index.ts';
import type { EventsReplicas, EventsStorage } from '../event-stream/index.ts';
import { startLeaderDuties } from '../leader-duties.ts';
import { StorageAlarmError, StorageQuota } from '../storage-quota.ts';
import { startStateService } from '../state-service.ts';
import type { LeaderDuties } from '../leader-duties.ts';
import type { LegacyServiceAccountTokens } from '../../actors/controllers/index.ts';
import type { NatsConnection } from '@nats-io/transport-node';
import { startAllocatorTrim } from '../allocator-trim.ts';
import { untilStopSignal } from './stop-signal.ts';

export interface StoreFlags {
  readonly id: string;
  /** Every voter id, including this member's. */
  readonly peers: readonly string[];
  readonly natsServers: readonly string[];
  readonly dataDir: string;
  readonly cluster: string;
  readonly group: string;
  /** Raft tick in ms (tests shorten it); default RaftNode's 100 ms. */
  readonly tickIntervalMs?: number;
  /** Max age of the change-event stream's messages; default 5 minutes. */
  readonly eventsMaxAgeMs?: number;
  /** Replicas of the change-event stream; default 'auto' (deploy/event-stream/publisher.ts). */
  readonly eventsReplicas?: EventsReplicas;
  /** Storage of the change-event stream, when this member creates it; default 'auto'. */
  readonly eventsStorage?: EventsStorage;
  /** Run the leader-only duties while leading (default true; tests of the bare log turn it off). */
  readonly leaderDuties?: boolean;
  /** --controllers, parsed: which leader-only controllers run (default '*'). */
  readonly controllers?: readonly string[];
  /** --root-ca-file's content: the cluster CA the root CA publisher puts in every namespace. */
  readonly rootCertificate?: string;
  /** --cluster-signing-cert-file, --cluster-signing-key-file (contents) and --cluster-signing-duration: csrsigning's CA. */
  readonly clusterSigning?: { readonly certificate: string; readonly key: string; readonly durationSeconds: number };
  /** --service-account-private-key-file, read: the minter of the legacy token controller (absent: it does not run). */
  readonly legacyServiceAccountTokens?: LegacyServiceAccountTokens;
  /** --quota-backend-bytes (0 or absent: the default). */
  readonly quotaBackendBytes?: number;
  /** --storage-reserve-bytes (absent: the default). */
  readonly storageReserveBytes?: number;
  /** How often the data dir's space is measured (tests shorten it). */
  readonly storageCheckIntervalMs?: number;
}

export type StoreLog = (message: string, fields?: Record<string, unknown>) => void;

/**
 * How long a stopping leader waits for one peer to take over (Raft thesis §3.10) before trying
 * the next: a caught-up peer wins within a round trip or two; a peer that is down or behind is
 * not worth more than a second of shutdown time.
 */
export const handOffTimeoutMs = 1_000;

export interface NatsStore {
  readonly node: RaftNode<CommandResult>;
  readonly state: ClusterState;
  readonly transport: NatsTransport;
  readonly service: ProposalService<CommandResult>;
  readonly connection: NatsConnection;
  readonly events: EventPublisher;
  readonly duties: LeaderDuties | undefined;
  readonly quota: StorageQuota;
  close(): Promise<void>;
}

/**
 * How long a stopping leader waits for a peer's status answer before handing off to it. A peer
 * whose process is gone answers at once with NATS's "no responders" (its subscriptions went with
 * its connection); a live one answers within a round trip.
 */
const handOffProbeTimeoutMs = 250;

/** Whether `peer` still serves its status subject (its process runs and is connected). */
async function peerReachable(store: NatsStore, peer: string): Promise<boolean> {
  try {
    await store.connection.request(store.service.subjects.statusOf(peer), new Uint8Array(0), { timeout: handOffProbeTimeoutMs });
    return true;
  } catch {
    return false;
  }
}

/**
 * If this member leads, asks each other peer in turn to take over, so that clients see a new
 * leader at once instead of after an election timeout. A peer that does not answer its status
 * subject is skipped: a transfer to it could only wait out handOffTimeoutMs (the last member of
 * a group stopped one by one, `kstore cluster down`). Returns the new leader, if any.
 */
export async function handOffLeadership(store: NatsStore, peers: readonly string[], log: StoreLog): Promise<string | undefined> {
  const self = store.node.status().id;
  for (const peer of peers) {
    if (peer === self || store.node.status().role !== 'leader') continue;
    if (!await peerReachable(store, peer)) {
      log('leadership hand-off skipped: peer not reachable', { to: peer });
      continue;
    }
    try {
      await store.node.transferLeadership(peer, handOffTimeoutMs);
      log('leadership handed off', { to: peer });
      return peer;
    } catch (error) {
      log('leadership hand-off failed', { to: peer, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return undefined;
}

/** Connects to NATS, opens the member's log and state machine, and starts serving clients. */
export async function openNatsStore(flags: StoreFlags, log: StoreLog = () => {}): Promise<NatsStore> {
  const connection = await connectNats(flags.natsServers, `kstore-store-${flags.cluster}-${flags.group}-${flags.id}`);
  const transport = new NatsTransport({ connection, cluster: flags.cluster, group: flags.group, member: flags.id, log });
  const state = new ClusterState();
  // What deploy/kstore.mjs read ahead of this data dir at process start (as for kstore server).
  const snapshotPrefetch = snapshotPrefetchFor(flags.dataDir);
  const walPrefetch = walPrefetchFor(flags.dataDir);
  let node: RaftNode<CommandResult>;
  try {
    await snapshotPrefetch?.settled();
    node = await RaftNode.open<CommandResult>({
      // Snapshots gzip-compressed, as kstore server's (the newest stays in memory to send to a
      // follower); either form restores, so members written before read as they were.
      id: flags.id, peers: flags.peers, dataDir: flags.dataDir, stateMachine: new CompressedSnapshots(state, snapshotPrefetch), transport, log,
      ...(flags.tickIntervalMs === undefined ? {} : { tickIntervalMs: flags.tickIntervalMs }),
      ...(walPrefetch === undefined ? {} : { walSegmentSource: walPrefetch.segment }),
    });
  } catch (error) {
    transport.close();
    await connection.close();
    throw error;
  } finally {
    snapshotPrefetch?.release();
    walPrefetch?.release();
  }
  const quota = await StorageQuota.start({
    dataDir: flags.dataDir, member: flags.id, log, writes: () => node.storageWrites(),
    ...(flags.quotaBackendBytes === undefined ? {} : { quotaBytes: flags.quotaBackendBytes }),
    ...(flags.storageReserveBytes === undefined ? {} : { reserveBytes: flags.storageReserveBytes }),
    ...(flags.storageCheckIntervalMs === undefined ? {} : { intervalMs: flags.storageCheckIntervalMs }),
  });
  // While the space alarm is raised, only commands that free space are proposed (decoded only then).
  const admit = (data: Uint8Array): string | undefined => (quota.alarm() === undefined ? undefined : quota.refusal(decodeCommand(data).command)?.message);
  const service = ProposalService.start({ connection, cluster: flags.cluster, group: flags.group, member: flags.id, node, log, admit, storage: () => quota.usage() });
  const isLeader = (): boolean => node.status().role === 'leader';
  const onLeadershipChange = (listener: () => void): (() => void) => node.onRoleChange(listener);
  const stateService = startStateService({ connection, state, cluster: flags.cluster, group: flags.group, log });
  const events = EventPublisher.start({
    connection, state, isLeader, onLeadershipChange, cluster: flags.cluster, group: flags.group, log,
    ...(flags.eventsMaxAgeMs === undefined ? {} : { maxAgeMs: flags.eventsMaxAgeMs }),
    ...(flags.eventsReplicas === undefined ? {} : { replicas: flags.eventsReplicas }),
    ...(flags.eventsStorage === undefined ? {} : { storage: flags.eventsStorage }),
  });
  const duties = flags.leaderDuties === false ? undefined
    : startLeaderDuties({ state, isLeader, onLeadershipChange, propose: (data) => { const refusal = admit(data); return refusal === undefined ? node.propose(data) : Promise.reject(new StorageAlarmError(refusal)); }, log, ...(flags.controllers === undefined ? {} : { controllers: flags.controllers }),
      ...(flags.rootCertificate === undefined ? {} : { rootCertificate: flags.rootCertificate }),
      ...(flags.clusterSigning === undefined ? {} : { clusterSigning: flags.clusterSigning }),
      ...(flags.legacyServiceAccountTokens === undefined ? {} : { legacyServiceAccountTokens: flags.legacyServiceAccountTokens }) });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      quota.stop();
      await duties?.stop();
      await events.stop();
      await stateService.stop();
      await service.stop();
      // A clean stop: when the log's tail is long for the state, the next start restores a
      // snapshot taken now instead of replaying it.
      await node.close({ snapshotIfBehind: snapshotAtStopThreshold(state.objectCount()) });
      transport.close();
      await connection.drain().catch(() => connection.close());
    })();
    return closing;
  };
  return { node, state, transport, service, connection, events, duties, quota, close };
}

function stderrLog(id: string): StoreLog {
  return (message, fields) => {
    process.stderr.write(`kstore store ${id}: ${message}${fields === undefined ? '' : ` ${JSON.stringify(fields)}`}\n`);
  };
}

/**
 * The exit code of a member whose Raft storage failed (EX_TEMPFAIL of sysexits.h: the failure
 * may pass — space freed, a disk replaced — and a restart replays from disk). Any other
 * non-zero code is a start-up or configuration error.
 */
export const storeFailedExitCode = 75;

/** How long a failed member may take to stop its services before the process exits regardless. */
const failStopGraceMs = 5_000;

/** Runs the member until a stop signal (exit code 0) or a storage failure (storeFailedExitCode). */
export async function runStore(flags: StoreFlags): Promise<number> {
  const allocatorTrim = startAllocatorTrim();
  const dataDir = path.resolve(flags.dataDir);
  const log = stderrLog(flags.id);
  const store = await openNatsStore({ ...flags, dataDir }, log);
  const status = store.node.status();
  process.stdout.write(`kstore store ready: member ${flags.id} of ${flags.peers.join(',')} (cluster ${flags.cluster}, group ${flags.group}, `
    + `nats ${flags.natsServers.join(',')}, data dir ${dataDir}, applied ${status.appliedIndex}, term ${status.term})\n`);
  const ended = await Promise.race([
    untilStopSignal().then(() => undefined),
    store.node.failed(),
  ]);
  if (ended !== undefined) {
    process.stderr.write(`kstore store ${flags.id}: raft storage failed (${ended.reason}); this member stopped serving and exits `
      + `with code ${storeFailedExitCode} to be restarted from its data dir ${dataDir}\n`);
    // Bounded: a stop that hangs on the failed disk must not keep a zombie alive.
    setTimeout(() => process.exit(storeFailedExitCode), failStopGraceMs).unref();
    await store.close().catch((error: unknown) => log('stopping after the storage failure', { error: error instanceof Error ? error.message : String(error) }));
    allocatorTrim.stop();
    return storeFailedExitCode;
  }
  await handOffLeadership(store, flags.peers, log);
  await store.close();
  allocatorTrim.stop();
  process.stdout.write('kstore store stopped\n');
  return 0;
}
