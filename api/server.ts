// Owns: assembling the API tier's fastify instance: TLS options, body parsing limits and
// media types, the plugins in kube-apiserver's order (authentication → authorization →
// handlers), discovery, OpenAPI, health, and the resource routes. No listen() here: the
// caller (deploy/) decides where it serves, and tests use inject().
import { randomUUID, randomInt } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { authnPlugin } from './auth/authn.ts';
import type { Authenticator, ProxyHeaderNames, TokenAuthenticator } from './auth/authn.ts';
import { tokenReviewPlugin } from './auth/token-review.ts';
import type { AnonymousAuthConfig } from './auth/anonymous.ts';
import type { ServiceAccountTokenIssuer } from './auth/service-account-token.ts';
import { oidcDiscoveryPlugin } from './auth/oidc-discovery.ts';
import type { OpenIdMetadata } from './auth/oidc-discovery.ts';
import { authzPlugin } from './auth/authz.ts';
import { impersonationPlugin } from './auth/impersonation.ts';
import type { Authorizer } from './auth/authz.ts';
import { RbacEscalationGuard } from './auth/rbac-escalation.ts';
import { AdmissionChain } from './admission/chain.ts';
import type { AdmissionPlugin } from './admission/chain.ts';
import { accessReviewsPlugin } from './auth/rbac-reviews.ts';
import { selfSubjectReviewPlugin } from './auth/self-subject-review.ts';
import { discoveryPlugin } from './discovery.ts';
import type { EndpointContext } from './endpoints/context.ts';
import { patchMediaTypes } from './endpoints/patch.ts';
import { registerResourceRoutes } from './endpoints/routes.ts';
import { healthPlugin } from './health.ts';
import type { HealthCheck } from './health.ts';
import { PROTOBUF_MEDIA_TYPE } from './codecs/protobuf.ts';
import { ApiMetrics, metricsPlugin } from './metrics.ts';
import type { GaugeSource, LabeledGaugeSource } from './metrics.ts';
import { clusterViewPlugin } from './cluster-view.ts';
import type { ClusterView } from './cluster-view.ts';
import { consoleDistDefault, consolePlugin } from './console/serve.ts';
import { featureGatesDefault } from './endpoints/corrupt.ts';
import type { FeatureGates } from './endpoints/corrupt.ts';
import { bodyMediaTypes } from './negotiation.ts';
import { openapiPlugin } from './openapi.ts';
import { bodyDrainBytesMax, registerBodyLimit, serverTimeouts } from './body-limit.ts';
import type { BodyReadLimits } from './body-limit.ts';
import { registerCompression } from './compression.ts';
import { registerResponseMediaTypes } from './response-media-types.ts';
import { frameworkErrorStatus, registerStatusErrors } from './status-errors.ts';
import type { StoreClient } from './store-client.ts';
import { WatchCache } from './watchcache/watch-cache.ts';
import { KindRegistry } from './registry/kind-registry.ts';
import { startCustomResources } from './crd/custom-resources.ts';
import type { CustomResources } from './crd/custom-resources.ts';

export interface TlsOptions {
  readonly key: string;
  readonly cert: string;
  /** CA bundle that client certificates are verified against. */
  readonly clientCa: string;
}

export interface ServerOptions {
  readonly store: StoreClient;
  readonly tls?: TlsOptions;
  readonly authenticators: readonly Authenticator[];
  readonly authorizers: readonly Authorizer[];
  readonly livez?: readonly HealthCheck[];
  readonly readyz?: readonly HealthCheck[];
  readonly logger?: boolean;
  /** Events the watch cache keeps for resumption (default cachedEventsMax). */
  readonly watchCacheEventsMax?: number;
  /** Gauges read at scrape time (e.g. the Raft member's term and indexes). */
  readonly gauges?: readonly (GaugeSource | LabeledGaugeSource)[];
  /** BOOKMARK period for watches that allow them (default bookmarkIntervalMsDefault). */
  readonly bookmarkIntervalMs?: number;
  /** Injected for tests; defaults to the wall clock. */
  readonly now?: () => Date;
  /** What GET /kstore/cluster answers (the console's cluster page); absent: 404. */
  readonly clusterView?: () => ClusterView;
  /** The built web console served at /console/ (default api/console/dist). */
  readonly consoleDist?: string;
  /** The admission chain in order (default: kube's order of the plugins kstore has, admission/chain.ts). */
  readonly admissionPlugins?: readonly AdmissionPlugin[];
  /** --feature-gates (default: every alpha gate off). */
  readonly featureGates?: FeatureGates;
  /** Request body deadline and minimum rate (body-limit.ts; tests shorten them). */
  readonly bodyRead?: BodyReadLimits;
  /** Serve CustomResourceDefinitions' kinds and run their controllers (default true). */
  readonly customResources?: boolean;
  /** Anonymous requests (api/auth/anonymous.ts); absent: disabled, an unrecognised request is a 401. */
  readonly anonymous?: AnonymousAuthConfig;
  /** The authenticating proxy's header names (--requestheader-*), removed after authentication. */
  readonly proxyHeaders?: ProxyHeaderNames;
  /** Mints service account tokens for POST serviceaccounts/<name>/token (absent: that subresource is 404). */
  readonly serviceAccountTokens?: ServiceAccountTokenIssuer;
  /** The service account issuer's discovery documents (absent: /.well-known/openid-configuration is not served). */
  readonly openIdMetadata?: OpenIdMetadata;
  /** The bearer-token authenticators TokenReview runs (absent: every token is "invalid bearer token"). */
  readonly tokenAuthenticators?: readonly TokenAuthenticator[];
  /** --api-audiences: what TokenReview checks tokens for when the review names none. */
  readonly apiAudiences?: readonly string[];
  /** The metrics registry to serve (default a new one); given when series are registered before the server is built. */
  readonly metrics?: ApiMetrics;
}

/**
 * kube-apiserver sends watch bookmarks about once a minute (cacher's bookmark frequency), so a
 * resuming client's resourceVersion stays inside the 5-minute window even on a quiet resource.
 */
export const bookmarkIntervalMsDefault = 60_000;

/** How long a closing server lets in-flight requests finish before cutting connections. */
export const shutdownGraceMs = 5_000;

/** generateName suffix alphabet and length of kube-apiserver (no vowels, no confusable digits). */
const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const generateNameSuffixLength = 5;

function randomSuffix(): string {
  let suffix = '';
  for (let position = 0; position < generateNameSuffixLength; position++) suffix += generateNameAlphabet[randomInt(generateNameAlphabet.length)];
  return suffix;
}

export interface ApiServer {
  readonly app: FastifyInstance;
  readonly cache: WatchCache;
  readonly metrics: ApiMetrics;
  /** The kinds served now: the built-in ones and those of the established CRDs. */
  readonly kinds: KindRegistry;
  /** The CRD controllers of this server (undefined with customResources: false). */
  readonly customResources: CustomResources | undefined;
}

export async function buildServer(options: ServerOptions): Promise<ApiServer> {
  const timeouts = serverTimeouts(options.bodyRead);
  const app = Fastify({
    logger: options.logger ?? false,
    // The 3 MiB limit itself is enforced by body-limit.ts, which drains up to this much.
    bodyLimit: bodyDrainBytesMax,
    // Node's timeouts for receiving a request (headers, body; never the response, so watches
    // are unaffected): kube's ReadHeaderTimeout and a backstop behind body-limit.ts's deadline.
    requestTimeout: timeouts.requestTimeout,
    // A URL the router cannot take is a 400 Status like every other refusal.
    frameworkErrors: frameworkErrorStatus,
    ...(options.tls
      ? { https: { key: options.tls.key, cert: options.tls.cert, ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false, ...timeouts.http } }
      : { http: timeouts.http }),
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([...bodyMediaTypes, ...patchMediaTypes], { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser(PROTOBUF_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  registerStatusErrors(app);
  registerResponseMediaTypes(app);
  registerBodyLimit(app, options.bodyRead);
  registerCompression(app);
  const cache = new WatchCache(options.store, options.watchCacheEventsMax);
  // preClose: open watches must end before the server waits for connections to finish; a
  // connection still open after the grace period (a client that stopped reading) is cut.
  app.addHook('preClose', async () => {
    cache.close();
    setTimeout(() => app.server.closeAllConnections(), shutdownGraceMs).unref();
  });
  const metrics = options.metrics ?? new ApiMetrics();
  metrics.addGauges([
    { name: 'kstore_watchers', help: 'Open HTTP watches.', read: () => cache.watcherCount() },
    { name: 'kstore_store_revision', help: 'Revision (Raft index) the API tier has reached.', read: () => options.store.currentRevision() },
    ...(options.gauges ?? []),
  ]);
  const kinds = new KindRegistry();
  const context: EndpointContext = {
    store: options.store, cache, now: options.now ?? (() => new Date()), newUid: randomUUID, randomSuffix,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? bookmarkIntervalMsDefault, metrics,
    featureGates: options.featureGates ?? featureGatesDefault, authorizers: options.authorizers,
    admission: new AdmissionChain({ store: options.store, randomSuffix }, options.admissionPlugins),
    rbacGuard: new RbacEscalationGuard({ store: options.store, authorizers: [...options.authorizers] }),
    ...(options.serviceAccountTokens === undefined ? {} : { serviceAccountTokens: options.serviceAccountTokens }),
  };
  const customResources = options.customResources === false ? undefined : startCustomResources({ store: options.store, kinds, now: context.now });
  if (customResources !== undefined) app.addHook('onClose', async () => customResources.stop());
  await app.register(authnPlugin, {
    authenticators: [...options.authenticators], kinds,
    ...(options.anonymous === undefined ? {} : { anonymous: options.anonymous }),
    ...(options.proxyHeaders === undefined ? {} : { proxyHeaders: options.proxyHeaders }),
  });
  await app.register(impersonationPlugin, { authorizers: [...options.authorizers] });
  await app.register(authzPlugin, { authorizers: [...options.authorizers] });
  // The access reviews (kubectl auth can-i); RBAC's escalation check is in the write path.
  await app.register(accessReviewsPlugin, { store: options.store, authorizers: [...options.authorizers] });
  await app.register(selfSubjectReviewPlugin);
  await app.register(tokenReviewPlugin, { authenticators: [...(options.tokenAuthenticators ?? [])], apiAudiences: [...(options.apiAudiences ?? [])] });
  if (options.openIdMetadata !== undefined) await app.register(oidcDiscoveryPlugin, { metadata: options.openIdMetadata });
  await app.register(metricsPlugin, { metrics });
  await app.register(healthPlugin, { livez: [...(options.livez ?? [])], readyz: [...(options.readyz ?? [])] });
  if (options.clusterView !== undefined) await app.register(clusterViewPlugin, { view: options.clusterView });
  await app.register(consolePlugin, { dist: options.consoleDist ?? consoleDistDefault });
  await app.register(discoveryPlugin, { source: kinds });
  await app.register(openapiPlugin, { source: kinds });
  registerResourceRoutes(app, context);
  return { app, cache, metrics, kinds, customResources };
}
