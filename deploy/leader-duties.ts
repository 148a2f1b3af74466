// Owns: the cluster's leader-only work in a multi-member store (what `kstore server` does
// for its single member): while this member leads, it makes sure the system namespaces exist
// (and carries events of an earlier version's separate events.k8s.io collection over,
// legacy-events.ts) and runs the leader-only controllers of actors/controllers (the token expirer, then those
// --controllers enables: the legacy service account token controller when given a private key,
// namespace lifecycle, garbage collector, and when asked tokencleaner and bootstrapsigner); when
// it stops leading, they stop. Commands are proposed through the local
// RaftNode (a leader's proposals need no NATS round trip); a proposal that fails because
// leadership moved is the new leader's to redo (its controllers reconcile everything at start).
// Leadership is followed through onLeadershipChange (RaftNode.onRoleChange): no timer runs while
// nothing changes but the retry of the system namespaces; without it (tests) it is polled every
// pollMs. Two members may briefly both run the controllers around a leader change, which is
// safe: every update they propose carries a resourceVersion precondition, and a delete a uid
// precondition or none (idempotent).
import { commandVersion, encodeCommand } from '../actors/index.ts';
import type { ClusterState, Command, CommandResult } from '../actors/index.ts';
import { createControllers } from '../actors/controllers/index.ts';
import type { Controller, ControllerContext } from '../actors/controllers/index.ts';
import type { ProposalOutcome } from '../raft/index.ts';
import { ensureSystemNamespaces } from './system-namespaces.ts';
import { migrateLegacyEvents } from './legacy-events.ts';

/** Namespaces kube-apiserver's system namespace controller keeps present. */
export { systemNamespaceNames } from './system-namespaces.ts';
/** How often a member checks whether it leads, when it has no onLeadershipChange to wait on. */
export const leaderDutiesPollMs = 100;
/** Back-off between attempts to create the system namespaces while leading. */
const ensureRetryMs = 500;

export type DutiesLog = (message: string, fields?: Record<string, unknown>) => void;

export interface LeaderDutiesOptions {
  readonly state: ClusterState;
  readonly isLeader: () => boolean;
  /**
   * Subscribes to changes of isLeader()'s answer (RaftNode.onRoleChange); returns the
   * unsubscribe function. Absent: isLeader() is polled every pollMs.
   */
  readonly onLeadershipChange?: (listener: () => void) => () => void;
  readonly propose: (data: Uint8Array) => Promise<ProposalOutcome<CommandResult>>;
  readonly log?: DutiesLog;
  readonly pollMs?: number;
  /** Parsed --controllers entries (parseControllersFlag); default ['*'], kube-controller-manager's default set. */
  readonly controllers?: readonly string[];
  /** The cluster CA (PEM) the root CA publisher puts in every namespace (--root-ca-file). */
  readonly rootCertificate?: string;
  /** The CA csrsigning signs with (--cluster-signing-cert-file/-key-file/-duration); absent: csrsigning does not run. */
  readonly clusterSigning?: ControllerContext['clusterSigning'];
  /** The legacy service account token minter (--service-account-private-key-file); absent: serviceaccount-token-controller does not run. */
  readonly legacyServiceAccountTokens?: ControllerContext['legacyServiceAccountTokens'];
}

export interface LeaderDuties {
  /** Whether the duties run here now. */
  readonly running: boolean;
  stop(): Promise<void>;
}

/** RFC 3339 in whole seconds, as metav1.Time serialises. */
function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function startLeaderDuties(options: LeaderDutiesOptions): LeaderDuties {
  const log = options.log ?? (() => {});
  const propose = async (command: Command): Promise<CommandResult> =>
    (await options.propose(encodeCommand({ version: commandVersion, command }))).result;
  const context: ControllerContext = {
    state: options.state, propose, now: () => formatTime(new Date()), log,
    ...(options.rootCertificate === undefined ? {} : { rootCertificate: options.rootCertificate }),
    ...(options.clusterSigning === undefined ? {} : { clusterSigning: options.clusterSigning }),
    ...(options.legacyServiceAccountTokens === undefined ? {} : { legacyServiceAccountTokens: options.legacyServiceAccountTokens }),
  };
  let controllers: Controller[] = [];
  let running = false;
  let stopped = false;
  let transition: Promise<void> = Promise.resolve();
  let ensured = false;
  /** The retry of ensureNamespaces after a failure, while leading. */
  let ensureRetry: ReturnType<typeof setTimeout> | undefined;

  const ensureNamespaces = async (): Promise<void> => {
    await ensureSystemNamespaces((key) => options.state.get(key), propose);
    const carried = await migrateLegacyEvents(options.state, propose);
    if (carried > 0) log('events.k8s.io events of an earlier version carried over to the events collection', { count: carried });
  };

  const begin = async (): Promise<void> => {
    running = true;
    ensured = false;
    clearTimeout(ensureRetry);
    ensureRetry = undefined;
    controllers = createControllers(context, options.controllers ?? ['*']);
    for (const controller of controllers) controller.start();
    log('leader duties started', { controllers: controllers.map((controller) => controller.name) });
  };

  const end = async (): Promise<void> => {
    running = false;
    const stopping = controllers;
    controllers = [];
    for (const controller of stopping) await controller.stop();
    log('leader duties stopped');
  };

  /** Starts or stops the duties to match isLeader(), and creates the system namespaces once while leading. */
  const poll = (): void => {
    transition = transition.then(async () => {
      if (stopped) return;
      const leads = options.isLeader();
      if (leads && !running) await begin();
      else if (!leads && running) await end();
      if (running && !ensured && ensureRetry === undefined) {
        try {
          await ensureNamespaces();
          ensured = true;
        } catch (error) {
          ensureRetry = setTimeout(() => {
            ensureRetry = undefined;
            request();
          }, ensureRetryMs);
          log('system namespaces not created yet; retrying', { error: errorMessage(error) });
        }
      }
    }).catch((error: unknown) => log('leader duties failed', { error: errorMessage(error) }));
  };

  // At most one poll queued behind the one running: requests while one is queued join it.
  let queued = false;
  const request = (): void => {
    if (queued) return;
    queued = true;
    void transition.finally(() => {
      queued = false;
      poll();
    });
  };
  const unsubscribe = options.onLeadershipChange?.(request);
  const timer = options.onLeadershipChange === undefined ? setInterval(request, options.pollMs ?? leaderDutiesPollMs) : undefined;
  poll();

  return {
    get running() {
      return running;
    },
    stop: async () => {
      stopped = true;
      unsubscribe?.();
      clearInterval(timer);
      clearTimeout(ensureRetry);
      await transition;
      if (running) await end();
    },
  };
}
