// Owns: the `kstore` command line: parsing the role and its flags, printing help, and handing
// over to the role. Roles are wired in deploy/roles/*; nothing here does work itself.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runServer } from './roles/server.ts';
import { runStore } from './roles/store.ts';
import { parseByteSize, storageReserveBytesDefault } from './storage-quota.ts';
import { runCluster } from './roles/cluster.ts';
import { runInspect } from './roles/inspect.ts';
import { runSuperviseCommand } from './roles/supervise.ts';
import { parseApiFlags, runApi } from './roles/api.ts';
import { kubeconfigUsage, parseKubeconfigFlags, runKubeconfig } from './roles/kubeconfig.ts';
import type { StoreFlags } from './roles/store.ts';
import { parseDuration, parseEventsStorage } from './event-stream/index.ts';
import { checkAdvertiseAddress } from './advertise-address.ts';
import { parseControllersFlag } from '../actors/controllers/index.ts';
import { legacyTokenMinter } from './legacy-token-minter.ts';
import { parseFeatureGates, parseGoDuration } from '../api/index.ts';
import type { FeatureGates } from '../api/index.ts';
import { authFlagOptions, authFlagsUsage, parseAuthFlags } from './auth-flags.ts';
import type { AuthFlags } from './auth-flags.ts';
import type { EventsReplicas } from './event-stream/index.ts';

const usage = `Usage: kstore <command> [flags]

Commands:
  server    Run an all-in-one single-node kstore (API over HTTPS + a one-member Raft store).
  store     Run one member of a multi-member Raft store over NATS.
  api       Run a stateless API replica over NATS (a store cluster must be running).
  cluster   up|down|status: a local HA cluster (nats-servers, stores, API replicas) as processes;
            see kstore cluster --help.
  inspect   <resource> <name> [-n ns]: an object's lifecycle machines, state, waits and history;
            see kstore inspect --help.
  kubeconfig --user <name> [--group <g>]... [--expiration <d>]: a kubeconfig with a client
            certificate signed by the data dir's cluster CA; see kstore kubeconfig --help.
  supervise [flags] -- <command> [args...]: run a command and restart it when it exits 75 (a store
            whose Raft storage failed), with a back-off; see kstore supervise --help.

Flags for server:
  --port <n>              HTTPS port to serve on (default 6443)
  --bind-address <ip>     address to listen on (default 127.0.0.1)
  --advertise-address <ip>
                          the address the kubernetes Endpoints in default name (default: the bind
                          address; with 0.0.0.0 the host's first non-loopback address; none when
                          bound to loopback only)
  --data-dir <dir>        where the Raft log, certificates and admin.kubeconfig live (default .kstore)
  --tls-san <name|ip>     extra subject alternative name for the serving certificate (repeatable)
  --controllers <list>    leader-only controllers, as kube-controller-manager's flag: '*' (the
                          default set: serviceaccount-token, namespace, garbagecollector,
                          serviceaccount, root-ca-cert-publisher, podgc, clusterrole-aggregation,
                          csrapproving, csrsigning, csrcleaner), 'name' enables, '-name'
                          disables; tokencleaner and bootstrapsigner are off unless named, e.g.
                          --controllers '*,tokencleaner,bootstrapsigner' (default '*'); expired
                          bootstrap tokens are always marked expired, tokencleaner deletes them
  --feature-gates <list>  alpha features, kube style: AllowUnsafeMalformedObjectDeletion=true lets a
                          DELETE with ignoreStoreReadErrorWithClusterBreakingPotential remove an
                          object that cannot be decoded (default: all off)
  --watch-bookmark-interval <d>
                          how often a watch with allowWatchBookmarks=true gets a BOOKMARK, e.g. 1m,
                          5s (default 1m, as kube-apiserver's watch cache)
  --cluster-signing-duration <d>
                          the longest certificate csrsigning issues with the data dir's CA, a Go
                          duration (default 8760h)
  --quota-backend-bytes <n>
                          space quota of the Raft data dir, as etcd's flag: bytes, or with a Ki, Mi,
                          Gi suffix (default 2Gi; 0 means the default). Over it the storage alarm is
                          raised and writes other than deletes are refused ("database space
                          exceeded") until it is back under, without a restart
  --storage-reserve-bytes <n>
                          free space kept on the data dir's filesystem: below it the same alarm is
                          raised, before a write could fail for lack of space (default 64Mi; 0 off)
  -h, --help              show this help

Flags for store:
  --id <id>               this member's id (letters, digits, '-' and '_')
  --peers <id,id,...>     every voter of the group, including this member
  --nats <url[,url...]>   NATS server URLs (reconnects forever; any server of the NATS cluster will do)
  --data-dir <dir>        where this member's Raft log lives
  --cluster <name>        cluster name in NATS subjects (default kstore)
  --group <name>          Raft group name in NATS subjects (default main)
  --tick-ms <n>           Raft tick interval in ms (default 100; elections after 10-20 ticks)
  --events-max-age <d>    max age of the change-event stream's messages, e.g. 5m, 300s (default 5m)
  --events-replicas <n>   replicas of the change-event stream (default auto: 3 on a NATS cluster of 3+ servers, else 1)
  --events-storage <s>    where the nats-servers keep the change-event stream: memory, file or auto
                          (default auto: memory, else file when the servers refuse memory); it is
                          set when the stream is created
  --controllers <list>    leader-only controllers the member runs while it leads, as for server (default '*')
  --cluster-signing-cert-file <f>
  --cluster-signing-key-file <f>
                          the CA (PEM) csrsigning signs approved kubelet and kube-apiserver-client
                          CertificateSigningRequests with (kube-controller-manager's flags); without
                          them csrsigning does not run
  --cluster-signing-duration <d>
                          the longest certificate csrsigning issues (default 8760h)
  --root-ca-file <f>      the cluster CA (PEM) the root CA publisher puts in every namespace as the
                          kube-root-ca.crt ConfigMap (kube-controller-manager's flag); without it
                          root-ca-cert-publisher does not run
  --service-account-private-key-file <f>
                          the PEM private key (RSA or ECDSA) serviceaccount-token signs the legacy
                          tokens of kubernetes.io/service-account-token Secrets with; the API
                          replicas must verify with its public key (kube-controller-manager's flag);
                          without it serviceaccount-token does not run
  --quota-backend-bytes <n>
                          space quota of the Raft data dir, as etcd's flag: bytes, or with a Ki, Mi,
                          Gi suffix (default 2Gi; 0 means the default). Over it the storage alarm is
                          raised and writes other than deletes are refused ("database space
                          exceeded", on every API replica) until it is back under, without a restart
  --storage-reserve-bytes <n>
                          free space kept on the data dir's filesystem: below it the same alarm is
                          raised, before a write could fail for lack of space (default 64Mi; 0 off)

Flags for api:
  --nats <url[,url...]>   NATS server URLs (required; any server of the NATS cluster will do)
  --port <n>              HTTPS port (default 6443)
  --bind-address <ip>     address to listen on (default 127.0.0.1)
  --advertise-address <ip>
                          the address the kubernetes Endpoints name for this replica, as for server
  --cluster <name>        cluster name in NATS subjects (default kstore)
  --group <name>          Raft group name in NATS subjects (default main)
  --tls-cert-file <f>     serving certificate, PEM (required)
  --tls-private-key-file <f>  serving certificate's private key, PEM (required)
  --client-ca-file <f>    CA that signs client certificates, PEM (required)
  --watch-cache-events <n>  change events each watch cache keeps for resumption (older starts get 410 Gone)
  --name <name>           this replica's name on the console's cluster page (default host:port)
  --feature-gates <list>  alpha features, as for server
  and the authentication and authorization flags below
  --watch-bookmark-interval <d>
                          BOOKMARK period of watches that allow them, as for server (default 1m)
  -h, --help              show this help

Authentication and authorization flags for server and api:
${authFlagsUsage}`;

export interface ServerFlags {
  readonly port: number;
  readonly bindAddress: string;
  /** --advertise-address, or undefined for the default (deploy/advertise-address.ts). */
  readonly advertiseAddress?: string;
  readonly dataDir: string;
  readonly tlsSans: readonly string[];
  /** Authentication, authorization and admission flags (deploy/auth-flags.ts). */
  readonly auth: AuthFlags;
  /** --feature-gates, parsed. */
  readonly featureGates: FeatureGates;
  /** --controllers, parsed (parseControllersFlag): '*', '<name>', '-<name>' with canonical names. */
  readonly controllers: readonly string[];
  /** --watch-bookmark-interval in ms. */
  readonly bookmarkIntervalMs: number;
  /** --cluster-signing-duration in seconds: the longest certificate csrsigning issues with the data dir's CA. */
  readonly clusterSigningDurationSeconds: number;
  /** --quota-backend-bytes (0: the default). */
  readonly quotaBackendBytes: number;
  /** --storage-reserve-bytes. */
  readonly storageReserveBytes: number;
}

function parseServerFlags(args: readonly string[]): ServerFlags | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '6443' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'advertise-address': { type: 'string' },
      'data-dir': { type: 'string', default: '.kstore' },
      'tls-san': { type: 'string', multiple: true, default: [] },
      ...authFlagOptions,
      'feature-gates': { type: 'string' },
      controllers: { type: 'string', default: '*' },
      'watch-bookmark-interval': { type: 'string', default: '1m' },
      'cluster-signing-duration': { type: 'string', default: '8760h' },
      'quota-backend-bytes': { type: 'string', default: '0' },
      'storage-reserve-bytes': { type: 'string', default: String(storageReserveBytesDefault) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535, got ${values.port}`);
  return {
    port, bindAddress: values['bind-address'], dataDir: values['data-dir'], tlsSans: values['tls-san'],
    ...(values['advertise-address'] === undefined ? {} : { advertiseAddress: checkAdvertiseAddress(values['advertise-address']) }),
    auth: parseAuthFlags(values), controllers: parseControllersFlag(values.controllers),
    featureGates: parseFeatureGates(values['feature-gates']),
    bookmarkIntervalMs: parseDuration(values['watch-bookmark-interval']),
    clusterSigningDurationSeconds: signingDurationSeconds(values['cluster-signing-duration']),
    quotaBackendBytes: parseByteSize(values['quota-backend-bytes'], '--quota-backend-bytes'),
    storageReserveBytes: parseByteSize(values['storage-reserve-bytes'], '--storage-reserve-bytes'),
  };
}


/** --cluster-signing-duration, a Go duration, in whole seconds. */
function signingDurationSeconds(value: string): number {
  const seconds = Math.floor(parseGoDuration(value) / 1000);
  if (seconds <= 0) throw new Error(`--cluster-signing-duration must be positive, got ${value}`);
  return seconds;
}

/** The store's csrsigning CA: both files or neither. */
function clusterSigningOf(certFile: string | undefined, keyFile: string | undefined, duration: string): Pick<StoreFlags, 'clusterSigning'> {
  if (certFile === undefined && keyFile === undefined) return {};
  if (certFile === undefined || keyFile === undefined) throw new Error('--cluster-signing-cert-file and --cluster-signing-key-file go together');
  return { clusterSigning: { certificate: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), durationSeconds: signingDurationSeconds(duration) } };
}

const memberIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

function commaList(value: string | undefined, flag: string): string[] {
  const items = (value ?? '').split(',').map((item) => item.trim()).filter((item) => item.length > 0);
  if (items.length === 0) throw new Error(`${flag} is required`);
  return items;
}

function parseEventsReplicas(value: string): EventsReplicas {
  if (value === 'auto') return 'auto';
  const replicas = Number(value);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) throw new Error(`--events-replicas must be auto or an integer 1..5, got ${value}`);
  return replicas;
}

function parseStoreFlags(args: readonly string[]): StoreFlags | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: {
      id: { type: 'string' },
      peers: { type: 'string' },
      nats: { type: 'string' },
      'data-dir': { type: 'string' },
      cluster: { type: 'string', default: 'kstore' },
      group: { type: 'string', default: 'main' },
      'tick-ms': { type: 'string' },
      'events-max-age': { type: 'string', default: '5m' },
      'events-replicas': { type: 'string', default: 'auto' },
      'events-storage': { type: 'string', default: 'auto' },
      controllers: { type: 'string', default: '*' },
      'root-ca-file': { type: 'string' },
      'cluster-signing-cert-file': { type: 'string' },
      'cluster-signing-key-file': { type: 'string' },
      'cluster-signing-duration': { type: 'string', default: '8760h' },
      'service-account-private-key-file': { type: 'string' },
      'quota-backend-bytes': { type: 'string', default: '0' },
      'storage-reserve-bytes': { type: 'string', default: String(storageReserveBytesDefault) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const id = values.id ?? '';
  const peers = commaList(values.peers, '--peers');
  for (const name of [id, ...peers, values.cluster, values.group]) {
    if (!memberIdPattern.test(name)) throw new Error(`${JSON.stringify(name)} is not a valid id or name (${memberIdPattern})`);
  }
  if (!peers.includes(id)) throw new Error(`--peers must include --id ${id}`);
  if (new Set(peers).size !== peers.length) throw new Error('--peers must not repeat an id');
  if (values['data-dir'] === undefined) throw new Error('--data-dir is required');
  let tickIntervalMs: number | undefined;
  if (values['tick-ms'] !== undefined) {
    tickIntervalMs = Number(values['tick-ms']);
    if (!Number.isInteger(tickIntervalMs) || tickIntervalMs < 1) throw new Error(`--tick-ms must be a positive integer, got ${values['tick-ms']}`);
  }
  return {
    id, peers, natsServers: commaList(values.nats, '--nats'), dataDir: values['data-dir'],
    cluster: values.cluster, group: values.group, ...(tickIntervalMs === undefined ? {} : { tickIntervalMs }),
    eventsMaxAgeMs: parseDuration(values['events-max-age']), eventsReplicas: parseEventsReplicas(values['events-replicas']),
    eventsStorage: parseEventsStorage(values['events-storage']),
    controllers: parseControllersFlag(values.controllers),
    ...(values['root-ca-file'] === undefined ? {} : { rootCertificate: readFileSync(values['root-ca-file'], 'utf8') }),
    ...clusterSigningOf(values['cluster-signing-cert-file'], values['cluster-signing-key-file'], values['cluster-signing-duration']),
    // An empty value is no key, as kube-controller-manager reads it.
    ...(values['service-account-private-key-file'] === undefined || values['service-account-private-key-file'] === '' ? {} : { legacyServiceAccountTokens: legacyTokenMinter(values['service-account-private-key-file']) }),
    quotaBackendBytes: parseByteSize(values['quota-backend-bytes'], '--quota-backend-bytes'),
    storageReserveBytes: parseByteSize(values['storage-reserve-bytes'], '--storage-reserve-bytes'),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
      process.stdout.write(usage);
      return command === undefined ? 1 : 0;
    }
    if (command === 'server') {
      const flags = parseServerFlags(rest);
      if (!flags) {
        process.stdout.write(usage);
        return 0;
      }
      await runServer(flags);
      return 0;
    }
    if (command === 'kubeconfig') {
      const flags = parseKubeconfigFlags(rest);
      if (!flags) {
        process.stdout.write(kubeconfigUsage);
        return 0;
      }
      await runKubeconfig(flags);
      return 0;
    }
    if (command === 'store') {
      const flags = parseStoreFlags(rest);
      if (!flags) {
        process.stdout.write(usage);
        return 0;
      }
      return await runStore(flags);
    }
    if (command === 'api') {
      const flags = parseApiFlags(rest);
      if (!flags) {
        process.stdout.write(usage);
        return 0;
      }
      await runApi(flags);
      return 0;
    }
    if (command === 'cluster') return await runCluster(rest);
    if (command === 'inspect') return await runInspect(rest);
    if (command === 'supervise') return await runSuperviseCommand(rest);
    process.stderr.write(`kstore: unknown command ${JSON.stringify(command)}\n\n${usage}`);
    return 1;
  } catch (error) {
    process.stderr.write(`kstore: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
