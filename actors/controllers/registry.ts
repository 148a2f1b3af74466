// Owns: which leader-only controllers run, chosen like kube-controller-manager's --controllers:
// a list of `*` (every controller on by default), `<name>` (enable) and `-<name>` (disable); the
// first entry naming a controller decides, otherwise `*` enables it unless it is off by default
// (tokencleaner and bootstrapsigner, as in kube-controller-manager). Names are kube's, with
// their short aliases (serviceaccount-token, namespace, garbagecollector, podgc, serviceaccount,
// root-ca-cert-publisher, clusterrole-aggregation, tokencleaner, bootstrapsigner, csrapproving,
// csrsigning, csrcleaner). csrsigning runs only with a cluster signing CA, as kube-controller-manager
// skips it without --cluster-signing-cert-file/--cluster-signing-key-file, and serviceaccount-token
// only with a legacy token minter (kube: without --service-account-private-key-file); it starts
// first, as kube-controller-manager starts it before the others. The token expirer is not in the
// list: it is the token lifecycle's clock and always runs.
import { BootstrapSigner } from './bootstrap-signer.ts';
import { ClusterRoleAggregationController } from './clusterrole-aggregation.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { CsrApprovingController } from './csr-approving.ts';
import { CsrCleaner } from './csr-cleaner.ts';
import { CsrSigningController } from './csr-signing.ts';
import { GarbageCollector } from './garbage-collector.ts';
import { NamespaceLifecycleController } from './namespace-lifecycle.ts';
import { PodGarbageCollector } from './pod-gc.ts';
import { rootCaPublisher, serviceAccountController } from './namespace-objects.ts';
import { ServiceAccountTokenController } from './service-account-token.ts';
import { realTimers, TokenCleaner, TokenExpirer } from './token-cleaner.ts';
import type { ControllerTimers } from './token-cleaner.ts';

type Factory = (context: ControllerContext, timers: ControllerTimers) => Controller;

function requireSigning(context: ControllerContext): NonNullable<ControllerContext['clusterSigning']> {
  if (context.clusterSigning === undefined) throw new Error('csrsigning needs the cluster signing CA');
  return context.clusterSigning;
}

function requireMinter(context: ControllerContext): NonNullable<ControllerContext['legacyServiceAccountTokens']> {
  if (context.legacyServiceAccountTokens === undefined) throw new Error('serviceaccount-token-controller needs the service account private key');
  return context.legacyServiceAccountTokens;
}

const factories = {
  'serviceaccount-token-controller': (context, timers) => new ServiceAccountTokenController(context, requireMinter(context), timers),
  'namespace-controller': (context) => new NamespaceLifecycleController(context),
  'garbage-collector-controller': (context) => new GarbageCollector(context),
  'pod-garbage-collector-controller': (context, timers) => new PodGarbageCollector(context, { timers }),
  'serviceaccount-controller': (context) => serviceAccountController(context),
  'root-ca-certificate-publisher-controller': (context) => rootCaPublisher(context, context.rootCertificate ?? ''),
  'clusterrole-aggregation-controller': (context) => new ClusterRoleAggregationController(context),
  'certificatesigningrequest-signing-controller': (context) => new CsrSigningController(context, requireSigning(context)),
  'certificatesigningrequest-approving-controller': (context) => new CsrApprovingController(context),
  'certificatesigningrequest-cleaner-controller': (context, timers) => new CsrCleaner(context, timers),
  'token-cleaner-controller': (context) => new TokenCleaner(context),
  'bootstrap-signer-controller': (context) => new BootstrapSigner(context),
} as const satisfies Record<string, Factory>;

export type ControllerName = keyof typeof factories;

/** Every controller's canonical name, in start order. */
export const controllerNames: readonly ControllerName[] = Object.keys(factories) as ControllerName[];

/** kube-controller-manager's ControllersDisabledByDefault. */
export const controllersDisabledByDefault: ReadonlySet<ControllerName> = new Set<ControllerName>(['token-cleaner-controller', 'bootstrap-signer-controller']);

const aliases: Readonly<Record<string, ControllerName>> = {
  'serviceaccount-token': 'serviceaccount-token-controller',
  namespace: 'namespace-controller',
  garbagecollector: 'garbage-collector-controller',
  podgc: 'pod-garbage-collector-controller',
  serviceaccount: 'serviceaccount-controller',
  'root-ca-cert-publisher': 'root-ca-certificate-publisher-controller',
  tokencleaner: 'token-cleaner-controller',
  bootstrapsigner: 'bootstrap-signer-controller',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  csrsigning: 'certificatesigningrequest-signing-controller',
  csrapproving: 'certificatesigningrequest-approving-controller',
  csrcleaner: 'certificatesigningrequest-cleaner-controller',
};

function canonical(name: string): ControllerName | undefined {
  if (Object.hasOwn(factories, name)) return name as ControllerName;
  return aliases[name];
}

/**
 * Parses a --controllers value (comma list) into entries with canonical names: `*`, `name`,
 * `-name`. Throws on an unknown name, as kube-controller-manager refuses to start.
 */
export function parseControllersFlag(value: string): string[] {
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.map((entry) => {
    if (entry === '*') return entry;
    const disabled = entry.startsWith('-');
    const name = canonical(disabled ? entry.slice(1) : entry);
    if (name === undefined) {
      throw new Error(`--controllers: ${JSON.stringify(disabled ? entry.slice(1) : entry)} is not in the list of known controllers (${[...Object.keys(aliases), ...controllerNames].join(', ')})`);
    }
    return disabled ? `-${name}` : name;
  });
}

/** The enabled controllers for parsed entries (kube's IsControllerEnabled), in start order. */
export function enabledControllers(entries: readonly string[] = ['*']): ControllerName[] {
  return controllerNames.filter((name) => {
    let star = false;
    for (const entry of entries) {
      if (entry === name) return true;
      if (entry === `-${name}`) return false;
      if (entry === '*') star = true;
    }
    return star && !controllersDisabledByDefault.has(name);
  });
}

/** The token expirer, then each enabled controller (not started). */
export function createControllers(context: ControllerContext, entries: readonly string[] = ['*'], timers: ControllerTimers = realTimers): Controller[] {
  // Without a CA there is nothing to publish (kube-controller-manager then uses its own serving CA; we have none),
  // without a signing CA nothing to sign with (kube-controller-manager skips csrsigning), and without
  // the service account private key no legacy token to mint (it skips serviceaccount-token).
  const enabled = enabledControllers(entries).filter((name) => (name !== 'root-ca-certificate-publisher-controller' || context.rootCertificate !== undefined)
    && (name !== 'certificatesigningrequest-signing-controller' || context.clusterSigning !== undefined)
    && (name !== 'serviceaccount-token-controller' || context.legacyServiceAccountTokens !== undefined));
  return [new TokenExpirer(context, timers), ...enabled.map((name) => factories[name](context, timers))];
}
