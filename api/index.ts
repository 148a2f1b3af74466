// Public surface of api/ (HTTP and Kubernetes semantics). deploy/ and tests import only this.
export { buildServer } from './server.ts';
export type { ApiServer, ServerOptions, TlsOptions } from './server.ts';
export { StoreClient } from './store-client.ts';
export type { StoreBackend } from './store-client.ts';
export { certificateAuthenticator } from './authn.ts';
export type { Authenticator, UserInfo } from './authn.ts';
export { systemMastersAuthorizer } from './authz.ts';
export { bootstrapTokenAuthenticator } from './bootstrap-token-authn.ts';
export { discoveryAuthorizer } from './bootstrap-token-authz.ts';
export type { Authorizer } from './authz.ts';
export { formatTime } from './endpoints/context.ts';
export type { GaugeSource, LabeledGaugeSource, LabeledValue } from './metrics.ts';
export { clusterView } from './cluster-view.ts';
export type { ApiReplicaView, ClusterView, StoreMemberView } from './cluster-view.ts';
export type { LifecycleHistoryEntry, MachineView, ObjectLifecycleView } from './console/view-types.ts';
export { parseFeatureGates } from './endpoints/corrupt.ts';
export type { FeatureGates } from './endpoints/corrupt.ts';
