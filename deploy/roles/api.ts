// Owns: the `kstore api` role: a stateless API replica. Connects to NATS, syncs an in-memory
// copy of the store (deploy/object-replica.ts: state service, then the JetStream event stream),
// serves the Kubernetes API over HTTPS with certificate authentication (buildServer, as
// `kstore server` does), proposes writes to the Raft leader over NATS (deploy/remote-store.ts),
// prints one ready line once synced and `kstore api stopped` after SIGTERM. Wiring only.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { hostname } from 'node:os';
import { ApiMetrics, buildServer, clusterView, parseFeatureGates, StoreClient } from '../../api/index.ts';
import { authFlagOptions, parseAuthFlags } from '../auth-flags.ts';
import type { AuthFlags } from '../auth-flags.ts';
import { wireAuth } from '../auth-wiring.ts';
import { keepKubeadmBootstrapRbac } from '../kubeadm-bootstrap-rbac.ts';
import { keepClusterInfo } from '../cluster-info.ts';
import type { FeatureGates } from '../../api/index.ts';
import { connectNats } from '../../raft/index.ts';
import { EventStreamReader, parseDuration } from '../event-stream/index.ts';
import { ObjectReplica } from '../object-replica.ts';
import { RaftStatusPoller } from '../raft-status-poller.ts';
import { storageGauges } from '../storage-gauges.ts';
import { ReplicaAnnouncer } from '../replica-announcer.ts';
import { RemoteStore } from '../remote-store.ts';
import { fetchStoreObjects } from '../state-service.ts';
import { allocatorTrimGauges, startAllocatorTrim } from '../allocator-trim.ts';
import { keepKubernetesService } from '../kubernetes-service.ts';
import { keepRbacBootstrap } from '../rbac-bootstrap.ts';
import { keepPriorityClassBootstrap } from '../priority-class-bootstrap.ts';
import { keepDefaultServiceCidr } from '../service-cidr-bootstrap.ts';
import { startControlPlaneConfiguration } from '../flowcontrol-bootstrap.ts';
import { advertiseAddress, checkAdvertiseAddress } from '../advertise-address.ts';
import { StoreClient as NatsStoreClient } from '../store-client.ts';
import { untilStopSignal } from './stop-signal.ts';

export interface ApiFlags {
  readonly natsServers: readonly string[];
  readonly port: number;
  readonly bindAddress: string;
  /** --advertise-address, or undefined for the default (deploy/advertise-address.ts). */
  readonly advertiseAddress?: string;
  readonly cluster: string;
  readonly group: string;
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly clientCaFile: string;
  readonly watchCacheEvents?: number;
  /** This replica's name among the replicas (console, /kstore/cluster); default host:port. */
  readonly name?: string;
  /** Authentication, authorization and admission flags (deploy/auth-flags.ts). */
  readonly auth: AuthFlags;
  /** --feature-gates, parsed. */
  readonly featureGates?: FeatureGates;
  /** --watch-bookmark-interval in ms. */
  readonly bookmarkIntervalMs?: number;
}

/** Parses `kstore api` flags; undefined for --help. */
export function parseApiFlags(argv: readonly string[]): ApiFlags | undefined {
  const { values } = parseArgs({
    args: [...argv], strict: true, allowPositionals: false,
    options: {
      nats: { type: 'string' }, port: { type: 'string', default: '6443' }, 'bind-address': { type: 'string', default: '127.0.0.1' }, 'advertise-address': { type: 'string' },
      cluster: { type: 'string', default: 'kstore' }, group: { type: 'string', default: 'main' },
      'tls-cert-file': { type: 'string' }, 'tls-private-key-file': { type: 'string' }, 'client-ca-file': { type: 'string' },
      'watch-cache-events': { type: 'string' }, name: { type: 'string' }, ...authFlagOptions, 'feature-gates': { type: 'string' }, 'watch-bookmark-interval': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) return undefined;
  if (values.nats === undefined) throw new Error('--nats is required');
  const natsServers = values.nats.split(',').map((url) => url.trim()).filter((url) => url !== '');
  if (natsServers.length === 0) throw new Error('--nats needs at least one URL');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got ${values.port}`);
  const cert = values['tls-cert-file'];
  const key = values['tls-private-key-file'];
  const ca = values['client-ca-file'];
  if (cert === undefined || key === undefined || ca === undefined) throw new Error('--tls-cert-file, --tls-private-key-file and --client-ca-file are required');
  let watchCacheEvents: number | undefined;
  if (values['watch-cache-events'] !== undefined) {
    watchCacheEvents = Number(values['watch-cache-events']);
    if (!Number.isInteger(watchCacheEvents) || watchCacheEvents < 1) throw new Error(`--watch-cache-events must be a positive integer, got ${values['watch-cache-events']}`);
  }
  return {
    natsServers, port, bindAddress: values['bind-address'], cluster: values.cluster, group: values.group,
    ...(values['advertise-address'] === undefined ? {} : { advertiseAddress: checkAdvertiseAddress(values['advertise-address']) }),
    tlsCertFile: cert, tlsPrivateKeyFile: key, clientCaFile: ca, ...(watchCacheEvents === undefined ? {} : { watchCacheEvents }),
    ...(values.name === undefined || values.name === '' ? {} : { name: values.name }), auth: parseAuthFlags(values),
    featureGates: parseFeatureGates(values['feature-gates']),
    ...(values['watch-bookmark-interval'] === undefined ? {} : { bookmarkIntervalMs: parseDuration(values['watch-bookmark-interval']) }),
  };
}

/** See runApi: shorter than storeRequestTimeoutMs (30 s). */
const natsCallDeadlineMs = 25_000;

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function runApi(flags: ApiFlags): Promise<void> {
  const allocatorTrim = startAllocatorTrim();
  const log = (line: string): void => { process.stderr.write(`${line}\n`); };
  const [cert, key, clientCa] = await Promise.all([readFile(flags.tlsCertFile, 'utf8'), readFile(flags.tlsPrivateKeyFile, 'utf8'), readFile(flags.clientCaFile, 'utf8')]);
  const connection = await connectNats([...flags.natsServers], `kstore-api-${flags.cluster}-${flags.group}`);
  // A call's NATS deadline ends before the HTTP layer's 30 s (api/store-client.ts), so a store
  // without a leader answers 503 (StoreDeadlineError) rather than racing the 504.
  const natsClient = new NatsStoreClient({ connection, cluster: flags.cluster, group: flags.group, deadlineMs: natsCallDeadlineMs });
  const reader = await EventStreamReader.open({ connection, cluster: flags.cluster, group: flags.group, log });
  const replica = new ObjectReplica({
    fetchState: () => fetchStoreObjects(connection, flags.cluster, flags.group),
    follow: (after, onBatch, onGap) => reader.follow(after, onBatch, onGap),
  }, log);
  for (;;) {
    try {
      await replica.start();
      break;
    } catch (error) {
      log(`kstore api: initial sync failed (${error instanceof Error ? error.message : String(error)}); retrying`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const raftStatus = new RaftStatusPoller({ source: natsClient });
  const storageAlarm = (): string | undefined => raftStatus.members().find((member) => member.storage?.alarm !== undefined)?.storage?.alarm;
  const remote = new RemoteStore(natsClient, replica, storageAlarm);
  const client = new StoreClient(remote);
  let lag = 0;
  raftStatus.start();
  let url = '';
  let port = '';
  const advertised = advertiseAddress(flags.advertiseAddress, flags.bindAddress);
  if (advertised === undefined) log('kubernetes Endpoints: this replica serves on loopback only, so it advertises no address (set --advertise-address)');
  const announcer = new ReplicaAnnouncer({
    connection, cluster: flags.cluster, group: flags.group,
    self: {
      // The default name needs the port, known once the server listens (announcing starts then).
      get name() { return flags.name ?? `${hostname()}:${port}`; },
      url: () => url, revision: () => replica.currentRevision(),
      // Synced, and a leader known (this replica's client learns it from its first call; the
      // status poller from the members at once).
      ready: () => replica.synced() && (natsClient.leaderId !== undefined || raftStatus.members().some((member) => member.role === 'leader')),
      endpoint: () => (advertised === undefined || port === '' ? undefined : { ip: advertised, port: Number(port) }),
    },
  });
  const metrics = new ApiMetrics();
  const externalHost = flags.advertiseAddress ?? (flags.bindAddress === '0.0.0.0' || flags.bindAddress === '::' ? '127.0.0.1' : flags.bindAddress);
  const auth = await wireAuth({
    flags: flags.auth, store: client, clientCa, metrics, serverId: flags.name ?? `${hostname()}:${flags.port}`, servingKeyFile: flags.tlsPrivateKeyFile,
    externalAddress: `${urlHost(externalHost)}:${flags.port}`, log,
  });
  const { app } = await buildServer({
    clusterView: () => clusterView(raftStatus.members(), announcer.replicas()),
    store: client,
    tls: { key, cert, clientCa: auth.tlsClientCa },
    ...auth.serverOptions,
    metrics,
    ...(flags.featureGates === undefined ? {} : { featureGates: flags.featureGates }),
    ...(flags.watchCacheEvents === undefined ? {} : { watchCacheEventsMax: flags.watchCacheEvents }),
    ...(flags.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: flags.bookmarkIntervalMs }),
    gauges: [
      { name: 'kstore_api_replica_revision', help: 'Revision the API replica\'s copy of the store reflects.', read: () => replica.currentRevision() },
      { name: 'kstore_api_stream_lag', help: 'Event stream tail minus the replica revision (revisions).', read: () => lag },
      { name: 'kstore_api_leader_known', help: '1 when the Raft leader is known.', read: () => (natsClient.leaderId === undefined ? 0 : 1) },
      ...raftStatus.gauges(),
      ...allocatorTrimGauges(allocatorTrim),
      ...storageGauges(() => raftStatus.members().flatMap((member) => (member.storage === undefined ? [] : [{ member: member.id, storage: member.storage }]))),
    ],
    readyz: [
      { name: 'nats', check: async () => { if (connection.isClosed()) throw new Error('nats connection closed'); } },
      { name: 'raft-leader', check: async () => { if (natsClient.leaderId === undefined) { await natsClient.readIndex(); } } },
      { name: 'watch-cache', check: async () => { if (!replica.synced()) throw new Error('replica not synced with the event stream'); } },
      { name: 'storage-quota', check: async () => { const alarm = storageAlarm(); if (alarm !== undefined) throw new Error(`storage alarm: ${alarm}`); } },
    ],
  });
  const lagTimer = setInterval(() => {
    // Keeping up (idle, or delivering as fast as the stream grows): the follow's own stream check
    // saw nothing undelivered, so no stream request here.
    if (reader.followCaughtUp()) {
      lag = 0;
      return;
    }
    reader.lastThrough().then((through) => { lag = Math.max(0, through - replica.currentRevision()); }, () => {});
  }, 2_000);
  lagTimer.unref();
  const address = await app.listen({ port: flags.port, host: flags.bindAddress });
  port = new URL(address).port;
  const connectHost = flags.bindAddress === '0.0.0.0' || flags.bindAddress === '::' ? '127.0.0.1' : flags.bindAddress;
  url = `https://${urlHost(connectHost)}:${port}`;
  announcer.start();
  const kubernetesService = keepKubernetesService(client, Number(port), log, () => announcer.apiServerEndpoints());
  const rbacBootstrap = keepRbacBootstrap(client, log);
  keepPriorityClassBootstrap(client, log);
  const serviceCidr = keepDefaultServiceCidr(client, log);
  // kubeadm's bootstrap-token phase, kept by every replica while bootstrap tokens authenticate.
  const kubeadmRbac = flags.auth.enableBootstrapTokenAuth ? keepKubeadmBootstrapRbac(client, log) : undefined;
  if (flags.auth.enableBootstrapTokenAuth) keepClusterInfo(client, () => url, clientCa, log);
  void startControlPlaneConfiguration(client, log);
  process.stdout.write(`kstore api ready: serving ${url} (cluster ${flags.cluster}, group ${flags.group}, revision ${replica.currentRevision()})\n`);
  await untilStopSignal();
  kubernetesService.stop();
  rbacBootstrap.stop();
  serviceCidr.stop();
  kubeadmRbac?.stop();
  announcer.stop();
  clearInterval(lagTimer);
  await raftStatus.stop();
  await app.close();
  auth.close();
  await replica.stop();
  natsClient.close();
  await connection.drain().catch(() => connection.close());
  allocatorTrim.stop();
  process.stdout.write('kstore api stopped\n');
}
