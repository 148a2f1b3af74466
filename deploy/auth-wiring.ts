// Owns: turning the parsed authentication and authorization flags (deploy/auth-flags.ts) into
// what buildServer takes, in kube-apiserver's order. Authenticators: the authenticating proxy
// (request headers), the client certificate, then bearer tokens (token file, service account
// tokens, bootstrap tokens, the token webhook, each in turn), then anonymous. Authorizers:
// system:masters, then each --authorization-mode in order, or the --authorization-config chain
// (reloaded as its file changes). Reads every file the flags name at start-up; a bad file stops
// the server with that file's error. Logs warnings, never a secret.
import {
  abacAuthorizer, admissionPluginsInOrder, createNodeRestrictionPlugin, loadAbacPolicyFile, loadPublicKeyFiles, loadSigningKeyFile,
  nodeAuthorizer, openIdMetadata, publicKeyOf, serviceAccountTokenAuthenticator, serviceAccountTokenIssuer,
  AuthorizationConfigReloader, AuthorizationMetrics, buildAuthorizerChain, bearerTokenAuthenticator, bootstrapTokenAuthenticator, certificateAuthenticatorFor,
  loadAuthenticationConfiguration, loadTokenFile, proxyHeaderNames, rbacAuthorizer, requestHeaderAuthenticator, resolveAnonymousAuth,
  tokenFileAuthenticator, tokenWebhookAuthenticator, validateRequestHeaderConfig, webhookAuthorizer,
  webhookClientFromKubeconfig,
} from '../api/index.ts';
import type {
  AdmissionPlugin, AuthorizationConfig, OpenIdMetadata, ServerOptions, ServiceAccountPublicKey, ServiceAccountTokenIssuer, AnonymousAuthConfig, ApiMetrics, Authenticator, AuthorizationMode, Authorizer, AuthorizerFactories, ProxyHeaderNames, StoreClient,
  TokenAuthenticator, WebhookClient,
} from '../api/index.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AuthFlags } from './auth-flags.ts';

export interface AuthWiringInputs {
  readonly flags: AuthFlags;
  /** The API tier's view of the replicated state (tokens, RBAC objects, pods for Node). */
  readonly store: StoreClient;
  /** PEM of the CA client certificates must chain to (--client-ca-file). */
  readonly clientCa: string;
  /** The metrics the server will serve (authorization decisions and reloads join them). */
  readonly metrics: ApiMetrics;
  /** This server's identity, hashed into the reload metrics' apiserver_id_hash. */
  readonly serverId: string;
  /** The serving key file: service account tokens are verified with it when no key file is named (kube's fallback). */
  readonly servingKeyFile: string;
  /** host:port clients reach this server at: the default jwks_uri is built on it. */
  readonly externalAddress: string;
  readonly log: (message: string) => void;
}

export interface AuthWiring {
  readonly authenticators: readonly Authenticator[];
  readonly authorizers: readonly Authorizer[];
  readonly anonymous: AnonymousAuthConfig;
  readonly proxyHeaders: ProxyHeaderNames | undefined;
  /** PEM of every CA the TLS server must accept client certificates from (client CA, proxy CA). */
  readonly tlsClientCa: string;
  /** The admission chain: kube's default plugins and NodeRestriction when enabled, minus the disabled ones. */
  readonly admissionPlugins: readonly AdmissionPlugin[];
  /** Mints tokens for TokenRequest (a signing key and an issuer are configured). */
  readonly serviceAccountTokens: ServiceAccountTokenIssuer | undefined;
  /** The issuer discovery documents (the issuer is an https URL). */
  readonly openIdMetadata: OpenIdMetadata | undefined;
  /** The bearer-token authenticators, for TokenReview. */
  readonly tokenAuthenticators: readonly TokenAuthenticator[];
  /** --api-audiences (default: the issuers). */
  readonly apiAudiences: readonly string[];
  /** All of the above as buildServer's options (tls aside: the caller owns its keys). */
  readonly serverOptions: Pick<ServerOptions, 'authenticators' | 'authorizers' | 'anonymous' | 'proxyHeaders' | 'admissionPlugins' | 'serviceAccountTokens' | 'openIdMetadata' | 'tokenAuthenticators' | 'apiAudiences'>;
  /** Stops what the wiring started (the config reloader, webhook connections). */
  close(): void;
}

interface Closers {
  readonly list: (() => void)[];
  /** One client per kubeconfig file and content: a reload that keeps a webhook keeps its connections. */
  readonly clients: Map<string, WebhookClient>;
}

function webhookClient(file: string, closers: Closers): WebhookClient {
  let content = '';
  try {
    content = createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    // Unreadable: webhookClientFromKubeconfig reports it in kube's words.
  }
  const key = `${file}\n${content}`;
  const known = closers.clients.get(key);
  if (known !== undefined) return known;
  const client = webhookClientFromKubeconfig(file);
  closers.clients.set(key, client);
  closers.list.push(() => client.close());
  return client;
}

interface ServiceAccountWiring {
  readonly authenticator: TokenAuthenticator | undefined;
  readonly issuer: ServiceAccountTokenIssuer | undefined;
  readonly metadata: OpenIdMetadata | undefined;
}

/**
 * Service account tokens as kube-apiserver sets them up: verification keys from
 * --service-account-key-file (else the serving key); issuing needs --service-account-issuer and
 * --service-account-signing-key-file; discovery is served when the issuer is an https URL.
 */
async function serviceAccounts(inputs: AuthWiringInputs): Promise<ServiceAccountWiring> {
  const { flags, store } = inputs;
  const account = flags.serviceAccount;
  const signingKey = account.signingKeyFile === undefined ? undefined : loadSigningKeyFile(account.signingKeyFile);
  let publicKeys: ServiceAccountPublicKey[];
  if (account.keyFiles.length > 0) {
    publicKeys = loadPublicKeyFiles(account.keyFiles);
  } else {
    // kube-apiserver's fallback to the serving key, used only when it is a key it can read (an
    // RSA key, or an EC key in SEC1 form); otherwise it warns and verifies with no key of its own.
    try {
      publicKeys = loadPublicKeyFiles([inputs.servingKeyFile]);
    } catch {
      if (signingKey === undefined) inputs.log('No TLS key provided, service account token authentication disabled');
      publicKeys = [];
    }
  }
  if (signingKey !== undefined && !publicKeys.some((key) => key.keyId === signingKey.keyId)) publicKeys = [...publicKeys, publicKeyOf(signingKey)];
  const issuerName = account.issuers[0];
  if (signingKey !== undefined && issuerName === undefined) throw new Error('service-account-issuer is a required flag when --service-account-signing-key-file is set');
  const authenticator = serviceAccountTokenAuthenticator({ publicKeys, issuers: account.issuers, apiAudiences: flags.apiAudiences, reader: store, lookup: account.lookup });
  const issuer = signingKey === undefined || issuerName === undefined ? undefined : serviceAccountTokenIssuer({
    signingKey, issuer: issuerName, apiAudiences: flags.apiAudiences,
    ...(account.maxTokenExpirationSeconds === undefined ? {} : { maxExpirationSeconds: account.maxTokenExpirationSeconds }),
  });
  let metadata: OpenIdMetadata | undefined;
  if (issuerName !== undefined) {
    try {
      metadata = await openIdMetadata({
        issuer: issuerName, publicKeys, externalAddress: inputs.externalAddress, ...(account.jwksUri === undefined ? {} : { jwksUri: account.jwksUri }),
      });
    } catch (error) {
      // kube-apiserver serves without the discovery endpoints and says why.
      inputs.log(`service account issuer discovery is not served: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { authenticator, issuer, metadata };
}

async function tokenAuthenticators(inputs: AuthWiringInputs, accounts: ServiceAccountWiring, closers: Closers): Promise<TokenAuthenticator[]> {
  const { flags, store } = inputs;
  const authenticators: TokenAuthenticator[] = [];
  if (flags.tokenAuthFile !== undefined) {
    const parsed = await loadTokenFile(flags.tokenAuthFile);
    for (const warning of parsed.warnings) inputs.log(warning);
    authenticators.push(tokenFileAuthenticator(parsed));
  }
  if (accounts.authenticator !== undefined) authenticators.push(accounts.authenticator);
  if (flags.enableBootstrapTokenAuth) authenticators.push(bootstrapTokenAuthenticator(store));
  if (flags.tokenWebhook !== undefined) {
    authenticators.push(tokenWebhookAuthenticator({
      client: webhookClient(flags.tokenWebhook.configFile, closers), version: flags.tokenWebhook.version,
      apiAudiences: flags.apiAudiences, cacheTtlMs: flags.tokenWebhook.cacheTtlMs,
    }));
  }
  return authenticators;
}

async function requestHeader(flags: AuthFlags, log: (message: string) => void): Promise<{ authenticator: Authenticator; names: ProxyHeaderNames; caPem: string } | undefined> {
  const config = flags.requestHeader;
  if (config === undefined) return undefined;
  const caPem = await readFile(config.clientCaFile, 'utf8');
  const checked = validateRequestHeaderConfig(config);
  if (checked.errors.length > 0) throw new Error(checked.errors.join('; '));
  for (const warning of checked.warnings) log(warning);
  return { authenticator: requestHeaderAuthenticator({ ...config, clientCaPem: caPem }), names: proxyHeaderNames(config), caPem };
}

function webhookKubeconfigOf(config: { readonly name: string; readonly kubeConfigFile?: string | undefined }): string {
  if (config.kubeConfigFile === undefined) throw new Error(`authorizer ${JSON.stringify(config.name)}: connectionInfo.type InClusterConfig is not supported by kube-apiserver`);
  return config.kubeConfigFile;
}

/** kube's plugin names the admission flags take, in the chain's order, with NodeRestriction after ServiceAccount. */
function admissionPlugins(flags: AuthFlags, chain: () => readonly Authorizer[]): AdmissionPlugin[] {
  const nodeRestriction = createNodeRestrictionPlugin({ authorizers: chain });
  const all: AdmissionPlugin[] = [];
  for (const plugin of admissionPluginsInOrder) {
    all.push(plugin);
    if (plugin.name === 'ServiceAccount') all.push(nodeRestriction);
  }
  const known = new Set(all.map((plugin) => plugin.name));
  for (const [flag, names] of [['enable-admission-plugins', flags.enableAdmissionPlugins], ['disable-admission-plugins', flags.disableAdmissionPlugins]] as const) {
    for (const name of names) if (!known.has(name)) throw new Error(`${flag} plugin ${JSON.stringify(name)} is unknown`);
  }
  const offByDefault = new Set(['NodeRestriction']);
  return all.filter((plugin) => !flags.disableAdmissionPlugins.includes(plugin.name)
    && (!offByDefault.has(plugin.name) || flags.enableAdmissionPlugins.includes(plugin.name)));
}

/**
 * --authorization-mode and its files as an AuthorizationConfiguration, as kube-apiserver turns
 * them into one: each mode named by its lowercased type, the webhook "webhook" with the flags'
 * version and TTLs, failure policy NoOpinion and kube's 30 s timeout.
 */
function configFromModes(modes: readonly AuthorizationMode[], flags: AuthFlags): AuthorizationConfig {
  return {
    canonical: '',
    authorizers: modes.map((mode) => {
      if (mode !== 'Webhook') return { type: mode, name: mode.toLowerCase() };
      const webhook = flags.authorizationWebhook;
      if (webhook === undefined) throw new Error("authorization-mode Webhook's authorization config file not passed");
      return {
        type: 'Webhook', name: 'webhook',
        webhook: {
          name: 'webhook', subjectAccessReviewVersion: webhook.version, authorizedTtlMs: webhook.authorizedTtlMs, unauthorizedTtlMs: webhook.unauthorizedTtlMs,
          timeoutMs: legacyWebhookTimeoutMs, failurePolicy: 'NoOpinion', connectionType: 'KubeConfigFile', kubeConfigFile: webhook.configFile,
          matchConditionSubjectAccessReviewVersion: undefined, matchConditions: [],
        },
      };
    }),
  };
}

/** kube-apiserver's timeout of the --authorization-webhook-config-file webhook. */
const legacyWebhookTimeoutMs = 30_000;

async function authorizers(inputs: AuthWiringInputs, closers: Closers): Promise<Authorizer[]> {
  const { flags, store } = inputs;
  const abacPolicies = flags.authorizationPolicyFile === undefined ? undefined : await loadAbacPolicyFile(flags.authorizationPolicyFile);
  const factories: AuthorizerFactories = {
    rbac: () => rbacAuthorizer(store),
    node: () => nodeAuthorizer(store),
    ...(abacPolicies === undefined ? {} : { abac: () => abacAuthorizer(abacPolicies) }),
    webhook: (config) => webhookAuthorizer({
      name: config.name, client: webhookClient(webhookKubeconfigOf(config), closers), version: config.subjectAccessReviewVersion,
      authorizedTtlMs: config.authorizedTtlMs, unauthorizedTtlMs: config.unauthorizedTtlMs, timeoutMs: config.timeoutMs, failurePolicy: config.failurePolicy,
    }),
  };
  if (flags.authorizationConfigFile !== undefined) {
    const reloader = await AuthorizationConfigReloader.start({
      file: flags.authorizationConfigFile, factories, metrics: new AuthorizationMetrics(inputs.metrics.registry), apiServerId: inputs.serverId,
      logger: { info: inputs.log, error: inputs.log },
    });
    closers.list.push(() => reloader.close());
    return [reloader.authorizer];
  }
  const metrics = new AuthorizationMetrics(inputs.metrics.registry);
  return buildAuthorizerChain(configFromModes(flags.authorizationModes ?? [], flags), factories, { decisionMetrics: metrics, matchConditionMetrics: metrics });
}

export async function wireAuth(inputs: AuthWiringInputs): Promise<AuthWiring> {
  const { flags } = inputs;
  const closers: Closers = { list: [], clients: new Map() };
  const close = (): void => {
    for (const closer of closers.list.splice(0)) closer();
  };
  try {
    const authenticationConfig = flags.authenticationConfigFile === undefined ? undefined : await loadAuthenticationConfiguration(flags.authenticationConfigFile);
    const { anonymous, warning } = resolveAnonymousAuth({
      ...(authenticationConfig === undefined ? {} : { config: authenticationConfig }),
      anonymousAuthFlag: flags.anonymousAuth, authorizationModes: flags.authorizationModes ?? [],
    });
    if (warning !== undefined) inputs.log(warning);
    const proxy = await requestHeader(flags, inputs.log);
    const accounts = await serviceAccounts(inputs);
    const tokens = await tokenAuthenticators(inputs, accounts, closers);
    const chain = await authorizers(inputs, closers);
    const authenticators = [
      ...(proxy === undefined ? [] : [proxy.authenticator]),
      certificateAuthenticatorFor(inputs.clientCa),
      ...(tokens.length > 0 ? [bearerTokenAuthenticator(tokens)] : []),
    ];
    const plugins = admissionPlugins(flags, () => chain);
    return {
      authenticators, authorizers: chain, anonymous, proxyHeaders: proxy?.names,
      tlsClientCa: proxy === undefined ? inputs.clientCa : `${inputs.clientCa.trimEnd()}\n${proxy.caPem}`,
      admissionPlugins: plugins, serviceAccountTokens: accounts.issuer, openIdMetadata: accounts.metadata,
      tokenAuthenticators: tokens, apiAudiences: flags.apiAudiences,
      serverOptions: {
        authenticators, authorizers: chain, anonymous, admissionPlugins: plugins, tokenAuthenticators: tokens, apiAudiences: flags.apiAudiences,
        ...(proxy === undefined ? {} : { proxyHeaders: proxy.names }),
        ...(accounts.issuer === undefined ? {} : { serviceAccountTokens: accounts.issuer }),
        ...(accounts.metadata === undefined ? {} : { openIdMetadata: accounts.metadata }),
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
