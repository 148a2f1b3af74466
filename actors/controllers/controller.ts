// Owns: what a leader-only controller is given and how it is run. Controllers read the
// replicated state in the same process and change it only by proposing commands through the
// Raft log, like any other client, so every replica sees the same history: controllers act
// only by proposing commands. They may read the clock (for the `at` of
// their commands) and run timers; apply stays pure.
import type { ClusterState } from '../cluster-state.ts';
import type { Command } from '../commands.ts';
import type { CommandResult } from '../results.ts';
import type { ClusterSigning } from './csr-signing.ts';
import type { LegacyServiceAccountTokens } from './service-account-token.ts';

export interface ControllerContext {
  readonly state: ClusterState;
  /** Proposes a command and resolves with its result once applied. */
  readonly propose: (command: Command) => Promise<CommandResult>;
  /** The proposer's wall clock, RFC 3339 in whole seconds. */
  readonly now: () => string;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** The cluster CA certificate (PEM) the root CA publisher puts in every namespace (kube-controller-manager's --root-ca-file); absent: not published. */
  readonly rootCertificate?: string;
  /**
   * The CA csrsigning signs with (kube-controller-manager's --cluster-signing-cert-file,
   * --cluster-signing-key-file, --cluster-signing-duration, default 8760h); absent: no signing.
   */
  readonly clusterSigning?: ClusterSigning;
  /**
   * Mints legacy service account tokens with kube-controller-manager's
   * --service-account-private-key-file; absent: serviceaccount-token-controller does not run. The
   * tokens' secrets get `rootCertificate` as ca.crt (kube's --root-ca-file).
   */
  readonly legacyServiceAccountTokens?: LegacyServiceAccountTokens;
}

export interface Controller {
  readonly name: string;
  /** Starts watching; the controller reconciles everything that needs it at once. */
  start(): void;
  /** Stops watching and waits for the reconcile in progress to finish. */
  stop(): Promise<void>;
}
