// Owns: wiring of the all-in-one `kstore server` role: certificates and the admin kubeconfig,
// the single-member store, the API tier over HTTPS, the system namespaces that exist from the
// first start, and graceful shutdown on SIGTERM/SIGINT. Wiring only: no logic of its own.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { ApiMetrics, buildServer, clusterView, formatTime, StoreClient } from '../../api/index.ts';
import { clusterSigningDurationDefaultSeconds } from '../../actors/controllers/index.ts';
import { ensureServiceAccountKey, withServiceAccountDefaults } from '../service-account-key.ts';
import { legacyTokenMinter } from '../legacy-token-minter.ts';
import { keepKubeadmBootstrapRbac } from '../kubeadm-bootstrap-rbac.ts';
import { keepClusterInfo } from '../cluster-info.ts';
import { wireAuth } from '../auth-wiring.ts';
import type { ServerFlags } from '../cli.ts';
import { createControllers } from '../../actors/controllers/index.ts';
import type { ControllerContext } from '../../actors/controllers/index.ts';
import type { Controller } from '../../actors/controllers/index.ts';
import { openLocalStore } from '../local-store.ts';
import { storageGauges } from '../storage-gauges.ts';
import { writeAdminKubeconfig } from '../kubeconfig.ts';
import { ensurePki } from '../pki.ts';
import { advertiseAddress } from '../advertise-address.ts';
import { untilStopSignal } from './stop-signal.ts';
import { ensureKubernetesService, keepKubernetesService } from '../kubernetes-service.ts';
import { ensureSystemNamespaces } from '../system-namespaces.ts';
import { migrateLegacyEvents } from '../legacy-events.ts';
import { ensureRbacBootstrap, keepRbacBootstrap } from '../rbac-bootstrap.ts';
import { ensurePriorityClassBootstrap } from '../priority-class-bootstrap.ts';
import { ensureDefaultServiceCidr, keepDefaultServiceCidr } from '../service-cidr-bootstrap.ts';
import { startControlPlaneConfiguration } from '../flowcontrol-bootstrap.ts';
import { allocatorTrimGauges, startAllocatorTrim } from '../allocator-trim.ts';

const leaderWaitMs = 10_000;

function urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

export async function runServer(flags: ServerFlags): Promise<void> {
  const allocatorTrim = startAllocatorTrim();
  const dataDir = path.resolve(flags.dataDir);
  const pki = await ensurePki(dataDir, flags.tlsSans);
  const logFields = (message: string, fields?: Record<string, unknown>): void => { process.stderr.write(`${JSON.stringify({ message, ...fields })}\n`); };
  const store = await openLocalStore({
    id: 'kstore-0', dataDir: path.join(dataDir, 'raft'), quotaBytes: flags.quotaBackendBytes, reserveBytes: flags.storageReserveBytes, log: logFields,
  });
  await store.waitForLeader(leaderWaitMs);
  const client = new StoreClient(store.backend);
  await ensureSystemNamespaces((key) => store.state.get(key), (command) => client.propose(command));
  const carried = await migrateLegacyEvents(store.state, (command) => client.propose(command));
  if (carried > 0) process.stderr.write(`${JSON.stringify({ message: 'events.k8s.io events of an earlier version carried over to the events collection', count: carried })}\n`);
  // kubeadm's defaults for what the operator did not name: its issuer and a key pair in the data dir.
  const serviceAccountKeys = await ensureServiceAccountKey(dataDir);
  const authFlags = withServiceAccountDefaults(flags.auth, serviceAccountKeys);
  // A single member is always the leader, so its leader-only controllers run from the start.
  const controllerContext: ControllerContext = {
    state: store.state,
    propose: (command) => client.propose(command),
    now: () => formatTime(new Date()),
    log: (message, fields) => process.stderr.write(`${JSON.stringify({ message, ...fields })}\n`),
    rootCertificate: pki.caCert,
    // kube-controller-manager's --cluster-signing-cert-file/--cluster-signing-key-file: the cluster CA.
    clusterSigning: { certificate: pki.caCert, key: await readFile(pki.paths.caKey, 'utf8'), durationSeconds: flags.clusterSigningDurationSeconds ?? clusterSigningDurationDefaultSeconds },
    // kube-controller-manager's --service-account-private-key-file: the key the API tier signs and verifies service account tokens with.
    legacyServiceAccountTokens: legacyTokenMinter(authFlags.serviceAccount.signingKeyFile ?? serviceAccountKeys.privateKey),
  };
  // The token expirer, then what --controllers enables (kube-controller-manager's defaults).
  const controllers: Controller[] = createControllers(controllerContext, flags.controllers);
  for (const controller of controllers) controller.start();
  let serverUrl = '';
  const metrics = new ApiMetrics();
  const connectHost = flags.bindAddress === '0.0.0.0' || flags.bindAddress === '::' ? '127.0.0.1' : flags.bindAddress;
  const auth = await wireAuth({
    flags: authFlags, store: client, clientCa: pki.caCert, metrics, serverId: `kstore-server-${flags.port}`, servingKeyFile: pki.paths.serverKey,
    externalAddress: `${urlHost(flags.advertiseAddress ?? connectHost)}:${flags.port}`, log: (message) => logFields(message),
  });
  const { app } = await buildServer({
    store: client,
    // One member, and this server as the one API replica.
    clusterView: () => {
      const status = store.status();
      return clusterView(
        [{ id: status.id, role: status.role, term: status.term, leaderId: status.leaderId, commitIndex: status.commitIndex, appliedIndex: status.appliedIndex, failure: status.failure, storage: store.storage() }],
        [{ name: 'kstore server', url: serverUrl, revision: client.currentRevision(), ready: client.ready(), self: true }],
      );
    },
    tls: { key: pki.serverKey, cert: pki.serverCert, clientCa: auth.tlsClientCa },
    ...auth.serverOptions,
    metrics,
    featureGates: flags.featureGates,
    bookmarkIntervalMs: flags.bookmarkIntervalMs,
    gauges: [
      { name: 'kstore_raft_term', help: 'Current Raft term of this member.', read: () => store.status().term },
      { name: 'kstore_raft_commit_index', help: 'Highest Raft index known committed.', read: () => store.status().commitIndex },
      { name: 'kstore_raft_applied_index', help: 'Highest Raft index applied to the state machine.', read: () => store.status().appliedIndex },
      { name: 'kstore_raft_is_leader', help: '1 when this member is the Raft leader.', read: () => (store.status().role === 'leader' ? 1 : 0) },
      { name: 'kstore_raft_storage_failed', help: '1 while the Raft storage has failed (reads served, writes refused, recovering).', read: () => (store.status().role === 'failed' ? 1 : 0) },
      { name: 'kstore_raft_storage_recoveries_total', help: 'Storage failures recovered from in process since start.', read: () => store.recoveries() },
      ...storageGauges(() => [{ member: store.status().id, storage: store.storage() }]),
      ...allocatorTrimGauges(allocatorTrim),
    ],
    // A storage failure is recovered in process (deploy/local-store.ts): the server stays live
    // (a restart would not help sooner) but is not ready while its storage is down or its space
    // alarm is raised.
    livez: [],
    readyz: [
      { name: 'raft-log', check: async () => {
        const failure = store.status().failure;
        if (failure !== undefined) throw new Error(`raft member failed: ${failure}`);
      } },
      { name: 'storage-quota', check: async () => {
        const alarm = store.storage().alarm;
        if (alarm !== undefined) throw new Error(`storage alarm: ${alarm}`);
      } },
      { name: 'raft-leader', check: async () => {
        if (!client.ready()) throw new Error('no raft leader');
      } },
    ],
  });
  // kube's rbac/bootstrap-roles post-start hook; done before serving, so the default policy is there for the first request.
  await ensureRbacBootstrap(client);
  await ensurePriorityClassBootstrap(client);
  await ensureDefaultServiceCidr(client);
  await startControlPlaneConfiguration(client, (message) => logFields(message));
  const address = await app.listen({ port: flags.port, host: flags.bindAddress });
  const port = new URL(address).port;
  serverUrl = `https://${urlHost(connectHost)}:${port}`;
  await ensureKubernetesService(client, Number(port));
  const advertised = advertiseAddress(flags.advertiseAddress, flags.bindAddress);
  const logLine = (message: string): void => { process.stderr.write(`${JSON.stringify({ message })}\n`); };
  if (advertised === undefined) logLine('kubernetes Endpoints: serving on loopback only, so no address is advertised (set --advertise-address or --bind-address)');
  const kubernetesService = keepKubernetesService(client, Number(port), logLine, () => (advertised === undefined ? [] : [{ ip: advertised, port: Number(port) }]));
  const rbacBootstrap = keepRbacBootstrap(client, logLine);
  const serviceCidr = keepDefaultServiceCidr(client, logLine);
  // kubeadm's bootstrap-token phase: what a joining node needs, while bootstrap tokens authenticate.
  const kubeadmRbac = flags.auth.enableBootstrapTokenAuth ? keepKubeadmBootstrapRbac(client, logLine) : undefined;
  if (flags.auth.enableBootstrapTokenAuth) keepClusterInfo(client, () => serverUrl, pki.caCert, logLine);
  const kubeconfig = await writeAdminKubeconfig(dataDir, serverUrl, pki);
  process.stdout.write(`kubeconfig: ${kubeconfig}\n`);
  process.stdout.write(`kstore ready: serving https://${urlHost(connectHost)}:${port} (data dir ${dataDir}, revision ${client.currentRevision()})\n`);
  await untilStopSignal();
  kubernetesService.stop();
  rbacBootstrap.stop();
  serviceCidr.stop();
  kubeadmRbac?.stop();
  for (const controller of controllers) await controller.stop();
  await app.close();
  auth.close();
  await store.close();
  allocatorTrim.stop();
  process.stdout.write('kstore stopped\n');
}
