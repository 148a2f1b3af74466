// Owns: the --authorization-config authorizer as kube-apiserver runs it
// (pkg/kubeapiserver/authorizer/reload.go): the file is loaded at startup (an invalid file is a
// startup error), the built-in authorizers it names (Node, RBAC, ABAC) are built once and kept
// across reloads, and the file is re-read when it changes (fs.watch on its directory, so editors
// that replace the file are seen) and at least every 60 s. Changed bytes that decode, validate and
// build replace the chain at once; anything else keeps the previous chain, is logged and counted
// as a failure. A reload may not drop a built-in type the server started with ("missing required
// types") nor add Node/RBAC/ABAC it did not start with. Also the Prometheus series kube keeps for
// this: apiserver_authorization_config_controller_* (staging/src/k8s.io/apiserver/pkg/server/
// options/authorizationconfig/metrics), apiserver_authorization_decisions_total
// (pkg/authorization/metrics) and apiserver_authorization_match_condition_* (pkg/authorization/cel).
import { createHash } from 'node:crypto';
import { watch as watchFs } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from './authz.ts';
import { authorize } from './authz.ts';
import { buildAuthorizerChain, loadAuthorizationConfig } from './authorization-config.ts';
import type { AuthorizationConfig, AuthorizerFactories, DecisionMetrics } from './authorization-config.ts';
import type { MatchConditionMetrics } from './authorization-match-conditions.ts';

/** kube's reload interval: the file is checked at least this often even without a change event. */
export const defaultReloadIntervalMs = 60_000;

/** kube's apiserver_id_hash label: "sha256:<hex>" of the server's identity, empty for none. */
export function apiServerIdHash(apiServerId: string): string {
  return apiServerId === '' ? '' : `sha256:${createHash('sha256').update(apiServerId).digest('hex')}`;
}

/** The reload series' hook. */
export interface ReloadMetrics {
  recordReload(status: 'success' | 'failure', apiServerId: string): void;
}

/**
 * kube's authorization series, registered in one prom-client registry (the API tier's
 * ApiMetrics.registry): decisions, match conditions, automatic reloads. `now` (milliseconds) is
 * the clock of the last-reload gauge.
 */
export class AuthorizationMetrics implements DecisionMetrics, MatchConditionMetrics, ReloadMetrics {
  readonly #decisions: Counter<'type' | 'name' | 'decision'>;
  readonly #matchErrors: Counter<'type' | 'name'>;
  readonly #matchExclusions: Counter<'type' | 'name'>;
  readonly #matchSeconds: Histogram<'type' | 'name'>;
  readonly #reloads: Counter<'status' | 'apiserver_id_hash'>;
  readonly #lastReload: Gauge<'status' | 'apiserver_id_hash'>;
  readonly #now: () => number;

  constructor(readonly registry: Registry = new Registry(), now: () => number = Date.now) {
    const registers = [registry];
    this.#now = now;
    this.#decisions = new Counter({
      name: 'apiserver_authorization_decisions_total', registers, labelNames: ['type', 'name', 'decision'] as const,
      help: '[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    });
    this.#matchErrors = new Counter({
      name: 'apiserver_authorization_match_condition_evaluation_errors_total', registers, labelNames: ['type', 'name'] as const,
      help: '[ALPHA] Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    });
    this.#matchExclusions = new Counter({
      name: 'apiserver_authorization_match_condition_exclusions_total', registers, labelNames: ['type', 'name'] as const,
      help: '[ALPHA] Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.',
    });
    this.#matchSeconds = new Histogram({
      name: 'apiserver_authorization_match_condition_evaluation_seconds', registers, labelNames: ['type', 'name'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
      help: '[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer type and name.',
    });
    this.#reloads = new Counter({
      name: 'apiserver_authorization_config_controller_automatic_reloads_total', registers, labelNames: ['status', 'apiserver_id_hash'] as const,
      help: '[ALPHA] Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
    });
    this.#lastReload = new Gauge({
      name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds', registers,
      labelNames: ['status', 'apiserver_id_hash'] as const,
      help: '[ALPHA] Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
    });
  }

  recordDecision(authorizerType: string, authorizerName: string, decision: 'allowed' | 'denied'): void {
    this.#decisions.inc({ type: authorizerType, name: authorizerName, decision });
  }

  recordEvaluation(authorizerType: string, authorizerName: string, seconds: number): void {
    this.#matchSeconds.observe({ type: authorizerType, name: authorizerName }, seconds);
  }

  recordEvaluationFailure(authorizerType: string, authorizerName: string): void {
    this.#matchErrors.inc({ type: authorizerType, name: authorizerName });
  }

  recordExclusion(authorizerType: string, authorizerName: string): void {
    this.#matchExclusions.inc({ type: authorizerType, name: authorizerName });
  }

  recordReload(status: 'success' | 'failure', apiServerId: string): void {
    const labels = { status, apiserver_id_hash: apiServerIdHash(apiServerId) };
    this.#reloads.inc(labels);
    this.#lastReload.set(labels, this.#now() / 1000);
  }
}

/** Where the reloader reports (pino's logger fits). */
export interface ReloadLogger {
  info(message: string): void;
  error(message: string): void;
}

const stderrLogger: ReloadLogger = {
  info: () => undefined,
  error: (message) => {
    process.stderr.write(`${message}\n`);
  },
};

export interface AuthorizationConfigReloaderOptions {
  /** The --authorization-config path. */
  readonly file: string;
  readonly factories: AuthorizerFactories;
  readonly metrics?: AuthorizationMetrics;
  /** The server's identity (hashed into the reload series' apiserver_id_hash label). */
  readonly apiServerId?: string;
  /** How often the file is re-read without a change event; defaults to 60 s. */
  readonly intervalMs?: number;
  /** Watch the file for changes (default true); without, only the interval and reloadNow() reload. */
  readonly watch?: boolean;
  readonly logger?: ReloadLogger;
}

/** What one check of the file did. */
export type ReloadOutcome = 'unchanged' | 'reloaded' | 'failed';

/** Built-in authorizers are built once at startup and reused by every later chain. */
function persistentFactories(config: AuthorizationConfig, factories: AuthorizerFactories): AuthorizerFactories {
  const types = new Set(config.authorizers.map((authorizer) => authorizer.type));
  const once = (type: string, factory: (() => Authorizer) | undefined): (() => Authorizer) | undefined => {
    if (!types.has(type as AuthorizationConfig['authorizers'][number]['type']) || factory === undefined) return undefined;
    const built = factory();
    return () => built;
  };
  return {
    node: once('Node', factories.node), rbac: once('RBAC', factories.rbac), abac: once('ABAC', factories.abac), webhook: factories.webhook,
  };
}

/**
 * The authorizer of --authorization-config. Use `authorizer` as the whole chain (it starts with
 * system:masters); `reloadNow()` checks the file at once (what the watcher and the interval call).
 */
export class AuthorizationConfigReloader {
  readonly #options: AuthorizationConfigReloaderOptions;
  readonly #factories: AuthorizerFactories;
  readonly #requiredTypes: ReadonlySet<string>;
  readonly #logger: ReloadLogger;
  #chain: readonly Authorizer[];
  #lastData: string;
  #lastCanonical: string;
  #pending: Promise<ReloadOutcome> = Promise.resolve('unchanged');
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  /** The delegating authorizer: asks the current chain (first allow or deny wins). */
  readonly authorizer: Authorizer = {
    name: 'authorization-config',
    authorize: (attributes: AuthorizationAttributes): Promise<AuthorizationResult> => authorize(this.#chain, attributes),
  };

  private constructor(options: AuthorizationConfigReloaderOptions, data: string, config: AuthorizationConfig) {
    this.#options = options;
    this.#logger = options.logger ?? stderrLogger;
    this.#factories = persistentFactories(config, options.factories);
    // kube: every non-webhook type of the startup file must stay in the file.
    this.#requiredTypes = new Set(config.authorizers.map((authorizer) => authorizer.type).filter((type) => type !== 'Webhook'));
    this.#chain = this.#build(config);
    this.#lastData = data;
    this.#lastCanonical = config.canonical;
  }

  /** Loads the file (an invalid one throws kube's error) and starts watching it. */
  static async start(options: AuthorizationConfigReloaderOptions): Promise<AuthorizationConfigReloader> {
    const data = await readFile(options.file, 'utf8');
    const reloader = new AuthorizationConfigReloader(options, data, loadAuthorizationConfig(data));
    reloader.#startWatching();
    return reloader;
  }

  /** The chain in use now (system:masters first). */
  get chain(): readonly Authorizer[] {
    return this.#chain;
  }

  #build(config: AuthorizationConfig): Authorizer[] {
    const metrics = this.#options.metrics;
    return buildAuthorizerChain(config, this.#factories, { decisionMetrics: metrics, matchConditionMetrics: metrics });
  }

  #startWatching(): void {
    const interval = this.#options.intervalMs ?? defaultReloadIntervalMs;
    this.#timer = setInterval(() => void this.reloadNow(), interval);
    this.#timer.unref();
    if (this.#options.watch === false) return;
    const name = basename(this.#options.file);
    try {
      this.#watcher = watchFs(dirname(this.#options.file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) void this.reloadNow();
      });
      this.#watcher.on('error', (error) => this.#logger.error(`watching authorization config file: ${error.message}`));
    } catch (error) {
      this.#logger.error(`watching authorization config file: ${(error as Error).message}`);
    }
  }

  /** Checks the file now (one check at a time; a call during a check runs after it). */
  reloadNow(): Promise<ReloadOutcome> {
    this.#pending = this.#pending.then(() => this.#check(), () => this.#check());
    return this.#pending;
  }

  #fail(message: string): ReloadOutcome {
    this.#logger.error(`reloading authorization config: ${message}`);
    this.#options.metrics?.recordReload('failure', this.#options.apiServerId ?? '');
    return 'failed';
  }

  async #check(): Promise<ReloadOutcome> {
    if (this.#closed) return 'unchanged';
    let data: string;
    try {
      data = await readFile(this.#options.file, 'utf8');
    } catch (error) {
      return this.#fail((error as Error).message);
    }
    // kube remembers the bytes before validating: the same invalid bytes are not retried or recounted.
    if (data === this.#lastData) return 'unchanged';
    this.#logger.info('found new authorization config data');
    this.#lastData = data;
    let config: AuthorizationConfig;
    try {
      config = loadAuthorizationConfig(data, this.#requiredTypes);
    } catch (error) {
      return this.#fail((error as Error).message);
    }
    if (config.canonical === this.#lastCanonical) return 'unchanged';
    this.#lastCanonical = config.canonical;
    let chain: Authorizer[];
    try {
      chain = this.#build(config);
    } catch (error) {
      return this.#fail((error as Error).message);
    }
    this.#chain = chain;
    this.#logger.info('reloaded authz config');
    this.#options.metrics?.recordReload('success', this.#options.apiServerId ?? '');
    return 'reloaded';
  }

  /** Stops watching and the interval; the current chain keeps answering. */
  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
