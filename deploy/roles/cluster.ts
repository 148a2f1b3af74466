// Owns: `kstore cluster up|down|status`: a local HA kstore as detached OS processes under one
// data directory D — a 3-node nats-server cluster with JetStream (D/nats), the `kstore store`
// members (D/stores/<id>, each under a `kstore supervise` that restarts it after a storage
// failure, exit 75), the `kstore api` replicas (one PKI in D/pki), their logs (D/logs),
// D/cluster.json (what runs where, with pids) and D/admin.kubeconfig (one cluster and context
// per API replica; current-context is the first replica).
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, openSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { stringify } from 'yaml';
import { ensurePki } from '../pki.ts';
import type { Pki } from '../pki.ts';
import { storeSubjects } from '../../raft/node/index.ts';
import type { MemberStatus, MemberStorageReport } from '../../raft/node/index.ts';
import { parseByteSize } from '../storage-quota.ts';
import { parseDuration, parseEventsStorage } from '../event-stream/index.ts';
import { authFlagArguments, authFlagOptions, parseAuthFlags } from '../auth-flags.ts';
import { ensureServiceAccountKey, serviceAccountIssuerDefault } from '../service-account-key.ts';
import type { ServiceAccountKeyPaths } from '../service-account-key.ts';
import { kstoreInstallRoot } from '../install-root.ts';
import { colocatedEnvironment, colocatedNatsEnvironment, colocatedNodeFlags, experimentNodeFlags } from '../node-flags.ts';
import { storeFailedExitCode } from './store.ts';

const installRoot = kstoreInstallRoot(import.meta.url);
const kstoreExecutable = path.join(installRoot, 'deploy', 'kstore.mjs');
/**
 * Node flags for the kstore processes `up` starts: colocatedNodeFlags (deploy/node-flags.ts: they
 * share this machine's cores); with KSTORE_CPU_PROFILE_DIR set (a developer knob, used by `npm run
 * bench:api -- --cpu-prof DIR`) each writes a V8 CPU profile there when it exits (`cluster down`
 * stops them with SIGTERM, so they do); then experimentNodeFlags (KSTORE_NODE_FLAGS).
 */
function kstoreNodeArgs(): string[] {
  const profileDir = process.env.KSTORE_CPU_PROFILE_DIR;
  return [...colocatedNodeFlags, ...(profileDir === undefined || profileDir === '' ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir]), ...experimentNodeFlags()];
}
/**
 * The environment of the kstore processes `up` starts (store supervisors pass theirs on to the
 * member): colocatedEnvironment (deploy/node-flags.ts: glibc's allocator settings for processes
 * that share a machine) under this process's own, so a variable the user set wins.
 */
function kstoreEnvironment(): NodeJS.ProcessEnv {
  return { ...colocatedEnvironment, ...process.env };
}

/** The environment of the nats-servers `up` starts: colocatedNatsEnvironment under this process's own. */
function natsEnvironment(): NodeJS.ProcessEnv {
  return { ...colocatedNatsEnvironment, ...process.env };
}
const natsServerExecutable = process.env.NATS_SERVER ?? 'nats-server';
const clusterName = 'kstore';
const groupName = 'main';
const natsMaxPayloadBytes = 8 * 1024 * 1024;
const natsReadyTimeoutMs = 30_000;
const storeReadyTimeoutMs = 60_000;
const apiReadyTimeoutMs = 90_000;
const stopTimeoutMs = 15_000;
const statusTimeoutMs = 1_500;

export const clusterUsage = `Usage: kstore cluster <up|down|status> --data-dir <dir> [flags]

  up       start a local HA cluster as detached processes (nats-server from PATH; each store
           under kstore supervise, which restarts it when it exits ${storeFailedExitCode}); on a cluster whose
           processes are partly running, start only the dead ones again, as they were
  status   print each member's role, term, commit/applied index (and store and supervisor pids)
           and each API replica's health
  down     stop API replicas, then stores, then nats-servers (SIGTERM, SIGKILL after 15 s); keeps data

Flags:
  --data-dir <dir>         the cluster's directory (required)
  --stores <n>             store members (default 3; up only, first up)
  --apis <n>               API replicas (default 2; up only)
  --nats-servers <n>       nats-servers in the NATS cluster (default 3; up only, first up)
  --events-max-age <d>     max age of the change-event stream (default 5m; up only)
  --events-storage <s>     the change-event stream's storage: auto, memory or file (default auto; up only)
  --port-base <n>          fixed ports: nats clients base+i, routes base+10+i, monitoring base+20+i,
                           API replicas base+30+i (default: free ports at every up)
  --controllers <list>     the store members' leader-only controllers (default '*'; up only), e.g.
                           '*,tokencleaner,bootstrapsigner'
  --feature-gates <list>   the API replicas' alpha features, e.g. AllowUnsafeMalformedObjectDeletion=true (up only)
  --watch-bookmark-interval <d>
                           the API replicas' BOOKMARK period for watches that allow them (default 1m; up only)
  the authentication and authorization flags of kstore api (--enable-bootstrap-token-auth,
  --authorization-mode, --token-auth-file, ...; see kstore --help)
                           given to every API replica (up only); file paths are made absolute
  --quota-backend-bytes <n>, --storage-reserve-bytes <n>
                           the store members' space quota and free-space reserve, as for kstore store
                           (defaults 2Gi and 64Mi; up only)
  --json                   machine-readable status (status only)
`;

export interface NatsServerEntry {
  readonly name: string;
  readonly url: string;
  readonly clusterPort: number;
  readonly monitorUrl: string;
  readonly configFile: string;
  readonly storeDir: string;
  readonly pid: number | undefined;
  readonly log: string;
}

export interface StoreEntry {
  readonly id: string;
  /** The `kstore supervise` running the store when `supervised`, else the store process itself. */
  readonly pid: number | undefined;
  /** Whether `pid` is a supervisor (absent in files of earlier versions, whose stores ran bare). */
  readonly supervised?: boolean;
  readonly dataDir: string;
  readonly log: string;
}

export interface ApiEntry {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly pid: number | undefined;
  readonly log: string;
}

export interface ClusterFile {
  readonly cluster: string;
  readonly group: string;
  readonly dataDir: string;
  readonly natsUrls: readonly string[];
  readonly nats: readonly NatsServerEntry[];
  readonly stores: readonly StoreEntry[];
  readonly apis: readonly ApiEntry[];
  readonly kubeconfig: string | undefined;
  readonly eventsMaxAge: string;
  /** --events-storage of the store members (absent in files of earlier versions: 'auto'). */
  readonly eventsStorage?: string;
  /** --controllers of the store members (absent in files of earlier versions: '*'). */
  readonly controllers?: string;
  /** Whether the API replicas accept bootstrap tokens (files of earlier versions; now in apiAuthArgs). */
  readonly bootstrapTokenAuth?: boolean;
  /** --feature-gates of the API replicas, as given ('' for none). */
  readonly featureGates?: string;
  /** --watch-bookmark-interval of the API replicas, as given ('' for their default). */
  readonly watchBookmarkInterval?: string;
  /** --authorization-mode of the API replicas (files of earlier versions; now in apiAuthArgs). */
  readonly authorizationMode?: string;
  /** The authentication and authorization flags every API replica gets (deploy/auth-flags.ts), file paths absolute. */
  readonly apiAuthArgs?: readonly string[];
  /** --quota-backend-bytes and --storage-reserve-bytes of the store members, as given ('' for their defaults). */
  readonly quotaBackendBytes?: string;
  readonly storageReserveBytes?: string;
  readonly versions: { readonly kstore: string; readonly node: string; readonly natsServer: string };
  readonly startedAt: string;
}

interface UpFlags {
  readonly dataDir: string;
  readonly stores: number;
  readonly apis: number;
  readonly natsServers: number;
  readonly eventsMaxAge: string;
  readonly eventsStorage: string;
  readonly portBase: number | undefined;
  readonly controllers: string;
  readonly featureGates: string;
  readonly watchBookmarkInterval: string;
  /** The auth flags given to up, as arguments for every API replica. */
  readonly apiAuthArgs: readonly string[];
  readonly quotaBackendBytes: string;
  readonly storageReserveBytes: string;
}

function positiveInt(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > 9) throw new Error(`${flag} must be an integer ${min}..9, got ${value}`);
  return n;
}

/** Parses `kstore cluster <sub> ...`; exported so tests can check command lines against it. */
export function parseClusterArgs(args: readonly string[]): { sub: 'up' | 'down' | 'status'; up: UpFlags; json: boolean } | undefined {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '-h' || sub === '--help') return undefined;
  if (sub !== 'up' && sub !== 'down' && sub !== 'status') throw new Error(`unknown cluster command ${JSON.stringify(sub)}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' },
      stores: { type: 'string', default: '3' },
      apis: { type: 'string', default: '2' },
      'nats-servers': { type: 'string', default: '3' },
      'events-max-age': { type: 'string', default: '5m' },
      'events-storage': { type: 'string', default: 'auto' },
      'port-base': { type: 'string' },
      controllers: { type: 'string', default: '*' },
      ...authFlagOptions,
      'feature-gates': { type: 'string', default: '' },
      'watch-bookmark-interval': { type: 'string', default: '' },
      'quota-backend-bytes': { type: 'string', default: '' },
      'storage-reserve-bytes': { type: 'string', default: '' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true, allowPositionals: false,
  });
  if (values.help) return undefined;
  if (values['data-dir'] === undefined) throw new Error('--data-dir is required');
  if (values['watch-bookmark-interval'] !== '') parseDuration(values['watch-bookmark-interval']);
  // Checked here so that up refuses what every replica would refuse.
  parseAuthFlags(values);
  if (values['quota-backend-bytes'] !== '') parseByteSize(values['quota-backend-bytes'], '--quota-backend-bytes');
  if (values['storage-reserve-bytes'] !== '') parseByteSize(values['storage-reserve-bytes'], '--storage-reserve-bytes');
  parseEventsStorage(values['events-storage']);
  const portBase = values['port-base'] === undefined ? undefined : Number(values['port-base']);
  if (portBase !== undefined && (!Number.isInteger(portBase) || portBase < 1024 || portBase > 65000)) throw new Error('--port-base must be an integer 1024..65000');
  return {
    sub, json: values.json,
    up: {
      dataDir: path.resolve(values['data-dir']), stores: positiveInt(values.stores, '--stores', 1), apis: positiveInt(values.apis, '--apis', 0),
      natsServers: positiveInt(values['nats-servers'], '--nats-servers', 1), eventsMaxAge: values['events-max-age'], portBase,
      eventsStorage: values['events-storage'],
      controllers: values.controllers, featureGates: values['feature-gates'],
      watchBookmarkInterval: values['watch-bookmark-interval'], apiAuthArgs: authFlagArguments(values),
      quotaBackendBytes: values['quota-backend-bytes'], storageReserveBytes: values['storage-reserve-bytes'],
    },
  };
}

export async function runCluster(args: readonly string[]): Promise<number> {
  const parsed = parseClusterArgs(args);
  if (parsed === undefined) {
    process.stdout.write(clusterUsage);
    return 0;
  }
  if (parsed.sub === 'up') return clusterUp(parsed.up);
  if (parsed.sub === 'down') return clusterDown(parsed.up.dataDir);
  return clusterStatus(parsed.up.dataDir, parsed.json);
}

// ---------------------------------------------------------------------------------------------
// processes

export function pidAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (exited, not yet reaped) counts as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
  } catch {
    // no /proc: trust kill(0)
  }
  return true;
}

/** True unless /proc shows that pid now runs something that is not ours (pid reuse). */
function pidIsOurs(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('nats-server') || cmdline.includes('kstore');
  } catch {
    return true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

class StartFailure extends Error {
  constructor(message: string, readonly log: string) {
    super(message);
  }
}

async function poll<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== undefined) return result;
    } catch (error) {
      // A start failure (the process died) ends the wait at once; anything else means "not yet".
      if (error instanceof StartFailure) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError instanceof Error ? ` (${lastError.message})` : ''}`);
    }
    await sleep(100);
  }
}

function startDetached(command: string, args: readonly string[], log: string, env: NodeJS.ProcessEnv = process.env): number {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(command, [...args], { detached: true, stdio: ['ignore', fd, fd], env });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Waits for a line starting with `prefix` written to `log` after byte `from`; fails when the pid dies. */
async function waitForLine(name: string, pid: number, log: string, from: number, prefix: string, timeoutMs: number): Promise<string> {
  try {
    return await poll(`${name}: "${prefix}"`, timeoutMs, () => {
      const text = readFileSync(log).subarray(from).toString('utf8');
      const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
      if (line !== undefined) return line;
      if (!pidAlive(pid)) throw new StartFailure(`${name} exited before it was ready`, log);
      return undefined;
    });
  } catch (error) {
    if (error instanceof StartFailure) throw error;
    throw new StartFailure(error instanceof Error ? error.message : String(error), log);
  }
}

/**
 * Waits for every member's ready line, started side by side, and fails with the first failure in
 * member order (s1's before s2's), as a start one after another did; each wait's failure is taken
 * at once, so none is left unhandled while an earlier member is still starting.
 */
async function inMemberOrder(readyLines: readonly Promise<string>[]): Promise<void> {
  const outcomes = readyLines.map((ready) => ready.then(() => undefined, (error: unknown) => ({ error })));
  for (const outcome of outcomes) {
    const failed = await outcome;
    if (failed !== undefined) throw failed.error;
  }
}

function logSize(log: string): number {
  try {
    return readFileSync(log).length;
  } catch {
    return 0;
  }
}

/**
 * The live processes of process group `pgid` other than `pgid` itself, from /proc (none without
 * /proc). Every process `up` starts is detached, so it leads its own group; a store's group also
 * holds the store its supervisor started, which outlives a SIGKILLed supervisor.
 */
function processGroupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === pgid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command name in parentheses: state, ppid, pgrp, ...
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(group) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return members;
}

/** A supervised store's process: the live member of its supervisor's process group, if any. */
function supervisedChildPid(supervisorPid: number | undefined): number | undefined {
  return supervisorPid === undefined ? undefined : processGroupMembers(supervisorPid).find((pid) => pidIsOurs(pid));
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/**
 * Stops each entry: SIGTERM to its pid (a supervisor forwards it to its store), or, when that pid
 * is gone but processes of its group are left (a store whose supervisor was SIGKILLed), to those;
 * after stopTimeoutMs, SIGKILL to whatever of them is left.
 */
async function stopPids(entries: readonly { readonly name: string; readonly pid: number | undefined }[]): Promise<void> {
  const targets: { name: string; pid: number }[] = [];
  for (const entry of entries) {
    if (entry.pid === undefined) continue;
    const leaderAlive = pidAlive(entry.pid) && pidIsOurs(entry.pid);
    if (leaderAlive) signal(entry.pid, 'SIGTERM');
    const leftovers = processGroupMembers(entry.pid).filter((pid) => pidIsOurs(pid));
    for (const pid of leftovers) if (!leaderAlive) signal(pid, 'SIGTERM');
    if (leaderAlive) targets.push({ name: entry.name, pid: entry.pid });
    targets.push(...leftovers.map((pid) => ({ name: `${entry.name} (left by pid ${entry.pid})`, pid })));
  }
  const deadline = Date.now() + stopTimeoutMs;
  while (targets.some((target) => pidAlive(target.pid)) && Date.now() < deadline) await sleep(100);
  for (const target of targets) {
    if (!pidAlive(target.pid)) continue;
    process.stderr.write(`kstore cluster: ${target.name} (pid ${target.pid}) did not exit within ${stopTimeoutMs} ms: SIGKILL\n`);
    signal(target.pid, 'SIGKILL');
  }
  await poll('killed processes to exit', stopTimeoutMs, () => (targets.every((target) => !pidAlive(target.pid)) ? true : undefined));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// cluster.json

export function clusterFilePath(dataDir: string): string {
  return path.join(dataDir, 'cluster.json');
}

export async function readClusterFile(dataDir: string): Promise<ClusterFile | undefined> {
  try {
    return JSON.parse(await readFile(clusterFilePath(dataDir), 'utf8')) as ClusterFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writeAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode });
  await rename(temporary, file);
}

function allPids(file: ClusterFile): { name: string; pid: number | undefined }[] {
  return [
    ...file.apis.map((api) => ({ name: `api ${api.name}`, pid: api.pid })),
    ...file.stores.map((store) => ({ name: `store ${store.id}`, pid: store.pid })),
    ...file.nats.map((server) => ({ name: `nats-server ${server.name}`, pid: server.pid })),
  ];
}

function natsServerVersion(): string {
  try {
    return execFileSync(natsServerExecutable, ['--version'], { encoding: 'utf8', timeout: 5_000 }).trim();
  } catch {
    return 'unknown';
  }
}

function kstoreVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(installRoot, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------
// up

export function natsConfigText(name: string, clientPort: number, clusterPort: number, monitorPort: number, storeDir: string, routePorts: readonly number[]): string {
  const lines = [
    `# Written by kstore cluster up; rewritten at every up (ports may change).`,
    `server_name: ${name}`,
    `listen: 127.0.0.1:${clientPort}`,
    `http: 127.0.0.1:${monitorPort}`,
    `max_payload: ${natsMaxPayloadBytes}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(storeDir)}`,
    `}`,
  ];
  if (routePorts.length > 0) {
    lines.push(
      `cluster {`,
      `  name: ${clusterName}`,
      `  listen: 127.0.0.1:${clusterPort}`,
      `  routes: [`,
      ...routePorts.map((port) => `    nats-route://127.0.0.1:${port}`),
      `  ]`,
      `}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Until JetStream's metadata group has a leader, `$JS.API.INFO` goes unanswered (no error, no
 * "no responders"): each probe waits out its timeout. A short one lets the poll notice the
 * election within one poll interval instead of a 2 s request timeout later.
 */
const jetStreamProbeTimeoutMs = 250;

async function jetStreamReady(urls: readonly string[]): Promise<true | undefined> {
  const connection = await connect({ servers: [...urls], reconnect: false, timeout: 1_000 });
  try {
    const reply = await connection.request('$JS.API.INFO', '', { timeout: jetStreamProbeTimeoutMs });
    const info = JSON.parse(reply.string()) as { error?: unknown };
    return info.error === undefined ? true : undefined;
  } finally {
    await connection.close();
  }
}

/** The store member that reports itself leader, if the cluster's NATS answers and one does. */
async function currentLeader(file: ClusterFile): Promise<string | undefined> {
  if (!file.nats.some((server) => pidAlive(server.pid))) return undefined;
  let connection: NatsConnection;
  try {
    connection = await connect({ servers: [...file.natsUrls], reconnect: false, timeout: 1_000 });
  } catch {
    return undefined;
  }
  try {
    return await leaderAmong(connection, file.stores.map((store) => store.id));
  } finally {
    await connection.close();
  }
}

/** The member of `ids` that reports itself leader (each asked its status at once), if one does. */
async function leaderAmong(connection: NatsConnection, ids: readonly string[]): Promise<string | undefined> {
  const statuses = await Promise.all(ids.map((id) => memberStatus(connection, id)));
  return ids.find((_, position) => statuses[position]?.role === 'leader');
}

async function memberStatus(connection: NatsConnection, id: string): Promise<MemberStatus | undefined> {
  try {
    const reply = await connection.request(storeSubjects(clusterName, groupName).statusOf(id), '', { timeout: statusTimeoutMs });
    return JSON.parse(reply.string()) as MemberStatus;
  } catch {
    return undefined;
  }
}

export function kubeconfigDocument(apis: readonly Pick<ApiEntry, 'name' | 'url'>[], pki: Pick<Pki, 'caCert' | 'adminCert' | 'adminKey'>): Record<string, unknown> {
  const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');
  return {
    apiVersion: 'v1', kind: 'Config',
    clusters: apis.map((api) => ({ name: `kstore-${api.name}`, cluster: { server: api.url, 'certificate-authority-data': b64(pki.caCert) } })),
    users: [{ name: 'kstore-admin', user: { 'client-certificate-data': b64(pki.adminCert), 'client-key-data': b64(pki.adminKey) } }],
    contexts: apis.map((api) => ({ name: `kstore-${api.name}`, context: { cluster: `kstore-${api.name}`, user: 'kstore-admin' } })),
    'current-context': apis[0] === undefined ? '' : `kstore-${apis[0].name}`,
    preferences: {},
  };
}

/** The command line of a store member `up` starts (also when it restarts a dead one). */
function storeCommand(member: { id: string; storeIds: readonly string[]; natsUrls: readonly string[]; dataDir: string; cluster: string; group: string; eventsMaxAge: string; eventsStorage: string; controllers: string; rootCaFile: string; caKeyFile: string; serviceAccountKeyFile: string; quotaBackendBytes: string; storageReserveBytes: string }): string[] {
  return [...kstoreNodeArgs(), kstoreExecutable, 'store', '--id', member.id, '--peers', member.storeIds.join(','), '--nats', member.natsUrls.join(','),
    '--data-dir', member.dataDir, '--cluster', member.cluster, '--group', member.group, '--events-max-age', member.eventsMaxAge, '--events-storage', member.eventsStorage, '--controllers', member.controllers,
    '--root-ca-file', member.rootCaFile, '--cluster-signing-cert-file', member.rootCaFile, '--cluster-signing-key-file', member.caKeyFile,
    '--service-account-private-key-file', member.serviceAccountKeyFile,
    ...(member.quotaBackendBytes === '' ? [] : ['--quota-backend-bytes', member.quotaBackendBytes]),
    ...(member.storageReserveBytes === '' ? [] : ['--storage-reserve-bytes', member.storageReserveBytes])];
}

/**
 * The command line that runs a store member under `kstore supervise`, which restarts it when its
 * Raft storage failed (exit storeFailedExitCode) and forwards `down`'s SIGTERM to it. Only the
 * store gets kstoreNodeArgs (a CPU profile of the supervisor is of no use).
 */
function supervisedStoreCommand(member: Parameters<typeof storeCommand>[0]): string[] {
  return [kstoreExecutable, 'supervise', '--restart-exit-code', String(storeFailedExitCode), '--', process.execPath, ...storeCommand(member)];
}

/** The command line of an API replica `up` starts (also when it restarts a dead one). */
function apiCommand(replica: { name: string; natsUrls: readonly string[]; port: number; pki: Pki; cluster: string; group: string; featureGates: string; watchBookmarkInterval: string; authArgs: readonly string[] }): string[] {
  return [...kstoreNodeArgs(), kstoreExecutable, 'api', '--nats', replica.natsUrls.join(','), '--port', String(replica.port), '--bind-address', '127.0.0.1',
    '--tls-cert-file', replica.pki.paths.serverCert, '--tls-private-key-file', replica.pki.paths.serverKey, '--client-ca-file', replica.pki.paths.caCert,
    '--cluster', replica.cluster, '--group', replica.group, '--name', replica.name, ...(replica.featureGates === '' ? [] : ['--feature-gates', replica.featureGates]),
    ...(replica.watchBookmarkInterval === '' ? [] : ['--watch-bookmark-interval', replica.watchBookmarkInterval]),
    ...replica.authArgs];
}

/**
 * The service account flags every replica needs to mint and check the same tokens, filled in
 * with kubeadm's issuer and the cluster dir's key pair where the operator named none.
 */
function withServiceAccountArguments(args: readonly string[], keys: ServiceAccountKeyPaths): string[] {
  const has = (flag: string): boolean => args.includes(flag) || args.some((arg) => arg.startsWith(`${flag}=`));
  return [
    ...args,
    ...(has('--service-account-issuer') ? [] : ['--service-account-issuer', serviceAccountIssuerDefault]),
    ...(has('--service-account-signing-key-file') ? [] : ['--service-account-signing-key-file', keys.privateKey, ...(has('--service-account-key-file') ? [] : ['--service-account-key-file', keys.publicKey])]),
  ];
}

/**
 * The private key the store members sign legacy service account tokens with: the one the API
 * replicas sign with (the operator's --service-account-signing-key-file, else the cluster dir's
 * key pair), so the replicas verify what the members mint.
 */
function serviceAccountSigningKeyFile(args: readonly string[], keys: ServiceAccountKeyPaths): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--service-account-signing-key-file' && args[i + 1] !== undefined) return args[i + 1]!;
    if (arg.startsWith('--service-account-signing-key-file=')) return arg.slice('--service-account-signing-key-file='.length);
  }
  return keys.privateKey;
}

/** The API replicas' auth flags a cluster file records (files of earlier versions kept two fields). */
function apiAuthArgsOf(file: ClusterFile): readonly string[] {
  if (file.apiAuthArgs !== undefined) return file.apiAuthArgs;
  return [...(file.bootstrapTokenAuth === true ? ['--enable-bootstrap-token-auth'] : []), ...(file.authorizationMode === undefined || file.authorizationMode === '' ? [] : ['--authorization-mode', file.authorizationMode])];
}

/** Reports why `up` failed (with the failing log's tail), stops what it started, exit code 1. */
async function failedUp(error: unknown, started: readonly { name: string; pid: number | undefined }[], stopping: string): Promise<number> {
  process.stderr.write(`kstore cluster up: ${error instanceof Error ? error.message : String(error)}\n`);
  if (error instanceof StartFailure && error.log !== '') process.stderr.write(`--- last lines of ${error.log} ---\n${tail(error.log)}\n`);
  process.stderr.write(`kstore cluster up: ${stopping}\n`);
  await stopPids([...started].reverse());
  return 1;
}

async function clusterUp(flags: UpFlags): Promise<number> {
  const dataDir = flags.dataDir;
  const previous = await readClusterFile(dataDir);
  if (previous !== undefined) {
    const alive = allPids(previous).filter((entry) => pidAlive(entry.pid) && pidIsOurs(entry.pid ?? 0));
    if (alive.length === allPids(previous).length) {
      process.stderr.write(`kstore cluster up: ${dataDir} has a running cluster (${alive.map((entry) => `${entry.name} pid ${entry.pid}`).join(', ')}); nothing to start (kstore cluster down stops it)\n`);
      return 1;
    }
    if (alive.length > 0) return repairCluster(previous);
  }
  // A restart keeps the ids, data dirs and sizes of the first up.
  const natsCount = previous?.nats.length ?? flags.natsServers;
  const storeIds = previous?.stores.map((store) => store.id) ?? Array.from({ length: flags.stores }, (_, i) => `s${i + 1}`);
  const apiCount = flags.apis;
  const logs = path.join(dataDir, 'logs');
  await mkdir(logs, { recursive: true });
  await mkdir(path.join(dataDir, 'nats'), { recursive: true });
  await mkdir(path.join(dataDir, 'stores'), { recursive: true });

  const taken = new Set<number>();
  const pick = async (fixed: number | undefined): Promise<number> => {
    if (fixed !== undefined) return fixed;
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const base = flags.portBase;
  const started: { name: string; pid: number | undefined }[] = [];
  const nats: NatsServerEntry[] = [];
  const stores: StoreEntry[] = [];
  const apis: ApiEntry[] = [];
  let kubeconfig: string | undefined;

  const versions = { kstore: kstoreVersion(), node: process.version, natsServer: natsServerVersion() };
  const write = async (): Promise<ClusterFile> => {
    const file: ClusterFile = {
      cluster: clusterName, group: groupName, dataDir, natsUrls: nats.map((server) => server.url), nats, stores, apis, kubeconfig,
      eventsMaxAge: flags.eventsMaxAge, eventsStorage: flags.eventsStorage, controllers: flags.controllers, featureGates: flags.featureGates,
      watchBookmarkInterval: flags.watchBookmarkInterval, apiAuthArgs: flags.apiAuthArgs,
      quotaBackendBytes: flags.quotaBackendBytes, storageReserveBytes: flags.storageReserveBytes, versions,
      startedAt: new Date().toISOString(),
    };
    await writeAtomic(clusterFilePath(dataDir), `${JSON.stringify(file, null, 2)}\n`);
    return file;
  };

  try {
    // nats-servers
    const ports = [];
    for (let i = 0; i < natsCount; i++) {
      ports.push({
        client: await pick(base === undefined ? undefined : base + i),
        cluster: await pick(base === undefined ? undefined : base + 10 + i),
        monitor: await pick(base === undefined ? undefined : base + 20 + i),
      });
    }
    for (const [i, port] of ports.entries()) {
      const name = `n${i + 1}`;
      const storeDir = path.join(dataDir, 'nats', name);
      // Every process of the cluster is stopped here, so JetStream starts afresh: its only
      // content is the event stream, a copy the store leader publishes again (a memory stream is
      // lost on a full restart anyway). Its metadata group then bootstraps (a leader in a
      // fraction of a second) instead of recovering, where nats-server waits out a 4-9 s
      // election timeout before the first vote.
      await rm(path.join(storeDir, 'jetstream'), { recursive: true, force: true });
      await mkdir(storeDir, { recursive: true });
      const configFile = path.join(dataDir, 'nats', `${name}.conf`);
      const routes = natsCount > 1 ? ports.filter((_, other) => other !== i).map((other) => other.cluster) : [];
      await writeFile(configFile, natsConfigText(name, port.client, port.cluster, port.monitor, storeDir, routes));
      const log = path.join(logs, `nats-${name}.log`);
      const pid = startDetached(natsServerExecutable, ['-c', configFile], log, natsEnvironment());
      started.push({ name: `nats-server ${name}`, pid });
      nats.push({ name, url: `nats://127.0.0.1:${port.client}`, clusterPort: port.cluster, monitorUrl: `http://127.0.0.1:${port.monitor}`, configFile, storeDir, pid, log });
    }
    await write();
    const natsUrls = nats.map((server) => server.url);
    for (const server of nats) {
      await poll(`nats-server ${server.name} to accept clients`, natsReadyTimeoutMs, async () => {
        if (!pidAlive(server.pid)) throw new StartFailure(`nats-server ${server.name} exited`, server.log);
        const connection = await connect({ servers: server.url, reconnect: false, timeout: 1_000 });
        await connection.close();
        return true;
      }).catch((error: unknown) => {
        throw error instanceof StartFailure ? error : new StartFailure(error instanceof Error ? error.message : String(error), server.log);
      });
    }
    await poll('JetStream (meta leader elected)', natsReadyTimeoutMs, () => jetStreamReady(natsUrls)).catch((error: unknown) => {
      throw new StartFailure(error instanceof Error ? error.message : String(error), nats[0]?.log ?? '');
    });

    // store members (their root CA publisher puts the cluster CA in every namespace)
    const { caCert: rootCaFile, caKey: caKeyFile } = (await ensurePki(dataDir, [])).paths;
    const serviceAccountKeyFile = serviceAccountSigningKeyFile(flags.apiAuthArgs, await ensureServiceAccountKey(dataDir));
    // All members start at once and restore their state side by side (with 100,000 objects, one
    // after another took three restores' time); then every ready line is awaited.
    const storeReadyLines: Promise<string>[] = [];
    for (const id of storeIds) {
      const memberDir = path.join(dataDir, 'stores', id);
      await mkdir(memberDir, { recursive: true });
      const log = path.join(logs, `store-${id}.log`);
      const from = logSize(log);
      const pid = startDetached(process.execPath, supervisedStoreCommand({ id, storeIds, natsUrls, dataDir: memberDir, cluster: clusterName, group: groupName, eventsMaxAge: flags.eventsMaxAge, eventsStorage: flags.eventsStorage, controllers: flags.controllers, rootCaFile, caKeyFile, serviceAccountKeyFile, quotaBackendBytes: flags.quotaBackendBytes, storageReserveBytes: flags.storageReserveBytes }), log, kstoreEnvironment());
      started.push({ name: `store ${id}`, pid });
      stores.push({ id, pid, supervised: true, dataDir: memberDir, log });
      await write();
      storeReadyLines.push(waitForLine(`store ${id}`, pid, log, from, 'kstore store ready:', storeReadyTimeoutMs));
    }
    await inMemberOrder(storeReadyLines);
    const connection = await connect({ servers: natsUrls, timeout: 2_000 });
    try {
      await poll('a Raft leader', storeReadyTimeoutMs, () => leaderAmong(connection, storeIds)).catch((error: unknown) => {
        throw new StartFailure(error instanceof Error ? error.message : String(error), stores[0]?.log ?? '');
      });
    } finally {
      await connection.close();
    }

    // API replicas
    if (apiCount > 0) {
      const pki = await ensurePki(dataDir, []);
      const apiLogStarts = new Map<string, number>();
      for (let i = 0; i < apiCount; i++) {
        const name = `a${i + 1}`;
        const port = await pick(base === undefined ? undefined : base + 30 + i);
        const log = path.join(logs, `api-${name}.log`);
        apiLogStarts.set(name, logSize(log));
        const pid = startDetached(process.execPath, apiCommand({ name, natsUrls, port, pki, cluster: clusterName, group: groupName, featureGates: flags.featureGates, watchBookmarkInterval: flags.watchBookmarkInterval, authArgs: withServiceAccountArguments(flags.apiAuthArgs, await ensureServiceAccountKey(dataDir)) }), log, kstoreEnvironment());
        started.push({ name: `api ${name}`, pid });
        apis.push({ name, url: `https://127.0.0.1:${port}`, port, pid, log });
        await write();
      }
      for (const api of apis) {
        await waitForLine(`api ${api.name}`, api.pid ?? 0, api.log, apiLogStarts.get(api.name) ?? 0, 'kstore api ready:', apiReadyTimeoutMs);
      }
      kubeconfig = path.join(dataDir, 'admin.kubeconfig');
      await writeAtomic(kubeconfig, stringify(kubeconfigDocument(apis, pki)), 0o600);
    }
    const file = await write();
    process.stdout.write(summary(file));
    return 0;
  } catch (error) {
    return failedUp(error, started, 'stopping what was started');
  }
}

function entryAlive(pid: number | undefined): boolean {
  return pid !== undefined && pidAlive(pid) && pidIsOurs(pid);
}

/**
 * `up` on a cluster whose processes are partly running (a member was killed or crashed):
 * starts only the dead ones again, each exactly as before (same config, ports, data dir, flags),
 * waits for their ready lines, and records their new pids. The kubeconfig does not change.
 */
async function repairCluster(file: ClusterFile): Promise<number> {
  const natsUrls = [...file.natsUrls];
  const started: { name: string; pid: number | undefined }[] = [];
  const restarted: string[] = [];
  try {
    const nats = file.nats.map((server) => {
      if (entryAlive(server.pid)) return server;
      const pid = startDetached(natsServerExecutable, ['-c', server.configFile], server.log, natsEnvironment());
      started.push({ name: `nats-server ${server.name}`, pid });
      restarted.push(`nats-server ${server.name} (pid ${pid})`);
      return { ...server, pid };
    });
    const storeIds = file.stores.map((store) => store.id);
    const { caCert: rootCaFile, caKey: caKeyFile } = (await ensurePki(file.dataDir, [])).paths;
    const serviceAccountKeyFile = serviceAccountSigningKeyFile(apiAuthArgsOf(file), await ensureServiceAccountKey(file.dataDir));
    const stores: StoreEntry[] = [];
    const storeReadyLines: Promise<string>[] = [];
    for (const store of file.stores) {
      if (entryAlive(store.pid)) {
        stores.push(store);
        continue;
      }
      // A store whose supervisor was SIGKILLed may still run: two processes on one Raft log must never be.
      await stopPids([{ name: `store ${store.id}`, pid: store.pid }]);
      const from = logSize(store.log);
      const pid = startDetached(process.execPath, supervisedStoreCommand({ id: store.id, storeIds, natsUrls, dataDir: store.dataDir, cluster: file.cluster, group: file.group, eventsMaxAge: file.eventsMaxAge, eventsStorage: file.eventsStorage ?? 'auto', controllers: file.controllers ?? '*', rootCaFile, caKeyFile, serviceAccountKeyFile, quotaBackendBytes: file.quotaBackendBytes ?? '', storageReserveBytes: file.storageReserveBytes ?? '' }), store.log, kstoreEnvironment());
      started.push({ name: `store ${store.id}`, pid });
      storeReadyLines.push(waitForLine(`store ${store.id}`, pid, store.log, from, 'kstore store ready:', storeReadyTimeoutMs));
      restarted.push(`store ${store.id} (supervisor pid ${pid})`);
      stores.push({ ...store, pid, supervised: true });
    }
    await inMemberOrder(storeReadyLines);
    const apis: ApiEntry[] = [];
    for (const api of file.apis) {
      if (entryAlive(api.pid)) {
        apis.push(api);
        continue;
      }
      const pki = await ensurePki(file.dataDir, []);
      const from = logSize(api.log);
      const pid = startDetached(process.execPath, apiCommand({ name: api.name, natsUrls, port: api.port, pki, cluster: file.cluster, group: file.group, featureGates: file.featureGates ?? '', watchBookmarkInterval: file.watchBookmarkInterval ?? '', authArgs: withServiceAccountArguments(apiAuthArgsOf(file), await ensureServiceAccountKey(file.dataDir)) }), api.log, kstoreEnvironment());
      started.push({ name: `api ${api.name}`, pid });
      await waitForLine(`api ${api.name}`, pid, api.log, from, 'kstore api ready:', apiReadyTimeoutMs);
      restarted.push(`api ${api.name} (pid ${pid})`);
      apis.push({ ...api, pid });
    }
    const repaired: ClusterFile = { ...file, nats, stores, apis };
    await writeAtomic(clusterFilePath(file.dataDir), `${JSON.stringify(repaired, null, 2)}\n`);
    process.stdout.write(`kstore cluster up: restarted ${restarted.join(', ')}\n${summary(repaired)}`);
    return 0;
  } catch (error) {
    return failedUp(error, started, 'stopping what this up started');
  }
}

function summary(file: ClusterFile): string {
  const lines = [
    `kstore cluster up: ${file.dataDir}`,
    `  nats:   ${file.natsUrls.join(',')}`,
    ...file.stores.map((store) => `  store ${store.id}: ${store.supervised === true ? 'supervisor ' : ''}pid ${store.pid ?? '-'} data ${store.dataDir}`),
    ...file.apis.map((api) => `  api ${api.name}: ${api.url} pid ${api.pid ?? '-'}`),
    file.kubeconfig === undefined ? '  (no API replicas: no kubeconfig)' : `  export KUBECONFIG=${file.kubeconfig}`,
  ];
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// down

async function clusterDown(dataDir: string): Promise<number> {
  const file = await readClusterFile(dataDir);
  if (file === undefined) {
    process.stdout.write(`kstore cluster down: no cluster.json in ${dataDir}; nothing to stop\n`);
    return 0;
  }
  await stopPids(file.apis.map((api) => ({ name: `api ${api.name}`, pid: api.pid })));
  // The Raft leader last: a stopping leader hands off to a peer, which is futile (and waits out
  // a timeout) when the peer is stopping too; once the others are gone, it finds none to ask.
  const leaderId = await currentLeader(file);
  const stores = file.stores.map((store) => ({ id: store.id, name: `store ${store.id}`, pid: store.pid }));
  await stopPids(stores.filter((store) => store.id !== leaderId));
  await stopPids(stores.filter((store) => store.id === leaderId));
  await stopPids(file.nats.map((server) => ({ name: `nats-server ${server.name}`, pid: server.pid })));
  process.stdout.write(`kstore cluster down: stopped (data kept in ${dataDir})\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// status

export interface StoreStatusRow {
  readonly id: string;
  /** The store process (for a supervised store: its supervisor's live child; none during a back-off). */
  readonly pid: number | undefined;
  /** The `kstore supervise` around the store (undefined for a store of an earlier version, run bare). */
  readonly supervisorPid: number | undefined;
  /** Whether the store process runs. */
  readonly alive: boolean;
  readonly reachable: boolean;
  readonly role: string;
  readonly term: number | undefined;
  readonly commitIndex: number | undefined;
  readonly appliedIndex: number | undefined;
  readonly leader: string | undefined;
  /** Why the member's Raft storage failed, if it did (it then exits 75 and is restarted). */
  readonly failure: string | undefined;
  /** Its data dir's usage and space alarm, as it reports them. */
  readonly storage: MemberStorageReport | undefined;
}

export interface ApiStatusRow {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly alive: boolean;
  readonly ready: boolean;
  readonly detail: string;
}

export interface NatsStatusRow {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly alive: boolean;
  readonly jetstream: string;
}

export interface ClusterStatus {
  readonly dataDir: string;
  readonly healthy: boolean;
  readonly leader: string | undefined;
  readonly stores: readonly StoreStatusRow[];
  readonly apis: readonly ApiStatusRow[];
  readonly nats: readonly NatsStatusRow[];
}

function httpGet(url: string, options: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const handler = (response: http.IncomingMessage): void => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    };
    const request = url.startsWith('https:')
      ? https.get(url, { ...options, timeout: statusTimeoutMs }, handler)
      : http.get(url, { timeout: statusTimeoutMs }, handler);
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

export async function collectStatus(dataDir: string): Promise<ClusterStatus> {
  const file = await readClusterFile(dataDir);
  if (file === undefined) throw new Error(`no cluster.json in ${dataDir}: run kstore cluster up first`);
  let connection: NatsConnection | undefined;
  try {
    connection = await connect({ servers: [...file.natsUrls], reconnect: false, timeout: statusTimeoutMs });
  } catch {
    connection = undefined;
  }
  const stores: StoreStatusRow[] = [];
  try {
    const statuses = await Promise.all(file.stores.map((store) => (connection === undefined ? Promise.resolve(undefined) : memberStatus(connection, store.id))));
    for (const [i, store] of file.stores.entries()) {
      const status = statuses[i];
      const supervisorPid = store.supervised === true ? store.pid : undefined;
      const pid = store.supervised === true ? supervisedChildPid(store.pid) : store.pid;
      stores.push({
        id: store.id, pid, supervisorPid, alive: pidAlive(pid), reachable: status !== undefined,
        role: status?.role ?? 'unreachable', term: status?.term, commitIndex: status?.commitIndex, appliedIndex: status?.appliedIndex, leader: status?.leaderId,
        failure: status?.failure, storage: status?.storage,
      });
    }
  } finally {
    await connection?.close();
  }
  const pkiDir = path.join(dataDir, 'pki');
  const tls = file.apis.length > 0 && existsSync(pkiDir)
    ? await ensurePki(dataDir, []).then((pki) => ({ ca: pki.caCert, cert: pki.adminCert, key: pki.adminKey }))
    : {};
  const apis: ApiStatusRow[] = await Promise.all(file.apis.map(async (api) => {
    try {
      const response = await httpGet(`${api.url}/readyz?verbose`, tls);
      return { name: api.name, url: api.url, pid: api.pid, alive: pidAlive(api.pid), ready: response.status === 200, detail: response.status === 200 ? 'ok' : `${response.status}: ${response.body.trim().split('\n').filter((line) => line.includes('failed')).join('; ') || response.body.trim().slice(0, 200)}` };
    } catch (error) {
      return { name: api.name, url: api.url, pid: api.pid, alive: pidAlive(api.pid), ready: false, detail: error instanceof Error ? error.message : String(error) };
    }
  }));
  const nats: NatsStatusRow[] = await Promise.all(file.nats.map(async (server) => {
    let jetstream: string;
    try {
      const response = await httpGet(`${server.monitorUrl}/healthz`);
      jetstream = response.status === 200 ? 'ok' : `${response.status} ${response.body.trim().slice(0, 120)}`;
    } catch (error) {
      jetstream = `unreachable (${error instanceof Error ? error.message : String(error)})`;
    }
    return { name: server.name, url: server.url, pid: server.pid, alive: pidAlive(server.pid), jetstream };
  }));
  const leaders = stores.filter((store) => store.role === 'leader');
  const leader = leaders.length === 1 ? leaders[0]?.id : undefined;
  const healthy = leader !== undefined && apis.every((api) => api.ready) && stores.every((store) => store.storage?.alarm === undefined && store.failure === undefined);
  return { dataDir, healthy, leader, stores, apis, nats };
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}

const dash = (value: number | string | undefined): string => (value === undefined ? '-' : String(value));

/** "12.0MiB/2.0GiB 40.1GiB free", with ALARM while the member's space alarm is raised. */
export function storageCell(storage: MemberStorageReport | undefined): string {
  if (storage === undefined) return '-';
  const size = (bytes: number): string => (bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)}GiB` : `${(bytes / 1024 ** 2).toFixed(1)}MiB`);
  return `${size(storage.usedBytes)}/${size(storage.quotaBytes)} ${size(storage.freeBytes)} free${storage.alarm === undefined ? '' : ' ALARM'}`;
}

async function clusterStatus(dataDir: string, json: boolean): Promise<number> {
  const status = await collectStatus(dataDir);
  if (json) {
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  } else {
    const out = [
      `cluster ${dataDir}: ${status.healthy ? 'healthy' : 'UNHEALTHY'} (leader ${status.leader ?? 'none'})`, '',
      table([['STORE', 'PID', 'ALIVE', 'ROLE', 'TERM', 'COMMIT', 'APPLIED', 'LEADER', 'SUPERVISOR', 'STORAGE'],
        ...status.stores.map((s) => [s.id, dash(s.pid), s.alive ? 'yes' : 'no', s.role, dash(s.term), dash(s.commitIndex), dash(s.appliedIndex), dash(s.leader),
          s.supervisorPid === undefined ? '-' : `${s.supervisorPid}${pidAlive(s.supervisorPid) ? '' : ' (gone)'}`, storageCell(s.storage)])]), '',
    ];
    // The reasons, which do not fit a cell.
    for (const s of status.stores) {
      if (s.failure !== undefined) out.push(`store ${s.id}: raft storage failed: ${s.failure}`);
      if (s.storage?.alarm !== undefined) out.push(`store ${s.id}: storage alarm: ${s.storage.alarm}`);
    }
    if (status.stores.some((s) => s.failure !== undefined || s.storage?.alarm !== undefined)) out.push('');
    if (status.apis.length > 0) {
      out.push(table([['API', 'URL', 'PID', 'ALIVE', 'READY', 'DETAIL'],
        ...status.apis.map((a) => [a.name, a.url, dash(a.pid), a.alive ? 'yes' : 'no', a.ready ? 'yes' : 'no', a.detail])]), '');
    }
    out.push(table([['NATS', 'URL', 'PID', 'ALIVE', 'JETSTREAM'], ...status.nats.map((n) => [n.name, n.url, dash(n.pid), n.alive ? 'yes' : 'no', n.jetstream])]), '');
    process.stdout.write(out.join('\n'));
  }
  return status.healthy ? 0 : 1;
}
