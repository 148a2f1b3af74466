// Public surface of actors/ (the replicated state machine). Other folders import only this.
export type { KubeObject, ObjectMeta, ObjectKey, CollectionKey, JsonValue } from './object.ts';
export { keyString, collectionPrefix } from './object.ts';
export type { Command, CommandEnvelope, CreateCommand, UpdateCommand, DeleteCommand, NoopCommand, Preconditions } from './commands.ts';
export { encodeCommand, decodeCommand, commandVersion, foregroundFinalizer, gracePeriodSecondsMax, orphanFinalizer } from './commands.ts';
export type { PropagationPolicy } from './commands.ts';
export type { DecodeResult } from './command-check.ts';
export { tryDecodeCommand } from './command-check.ts';
export type { CommandResult } from './results.ts';
export type { ChangeEvent, ChangeType } from './events.ts';
export { ClusterState, snapshotVersion } from './cluster-state.ts';
export type { ChangeListener, Lifecycle, ListResult } from './cluster-state.ts';
export { applyCommand, createStoreState, defaultStoreLimits } from './apply.ts';
export type { ApplyOutcome, StoreLimits, StoreState } from './apply.ts';
export type { EventsSince } from './mvcc/history.ts';
export { historyWindowMillis, historyEventsMaxDefault } from './mvcc/history.ts';
export { ObjectIndex } from './mvcc/object-index.ts';
export { RangeCache } from './mvcc/range-cache.ts';
export { storedJson } from './json-intern.ts';
export { SnapshotPartsReader, SnapshotPartsWriter } from './snapshot-parts.ts';
export { sessionsMaxDefault } from './sessions.ts';
export { transitionsMax, conflictMessage, checkPreconditions } from './resource-actor.ts';
export type { LifecycleTransition } from './resource-actor.ts';
export { deletionMachine, deletionStatechart, deletionWaitingFor } from './machines/deletion.ts';
export { drawStatechart, statechartOf } from './machines/statechart.ts';
export type { Statechart, StatechartState, StatechartTransition } from './machines/statechart.ts';
export type { DeletionStateName, DeletionContext, DeletionEvent } from './machines/deletion.ts';
export type { ExpireTokensCommand } from './commands.ts';
export type { TokenLifecycle, TokenTransition } from './resource-actor.ts';
export { tokenMachine, tokenStatechart, tokenWaitingFor } from './machines/token.ts';
export type { TokenStateName, TokenContext, TokenEvent } from './machines/token.ts';
export {
  bootstrapTokenSecretType, bootstrapTokenNamespace, bootstrapTokenSecretPrefix, bootstrapUserPrefix, bootstrappersGroup,
  tokenIdKey, tokenSecretKey, expirationKey, descriptionKey, usageAuthenticationKey, usageSigningKey, usagePrefix, extraGroupsKey,
  clusterInfoNamespace, clusterInfoName, kubeconfigKey, jwsSignaturePrefix,
  tokenIdPattern, tokenSecretPattern, bootstrapTokenPattern, bootstrapGroupPattern, bootstrapGroupPatternText,
  isBootstrapTokenKey, hasBootstrapTokenType, isBootstrapTokenSecret, tokenSecretData, tokenIdFromName, expirationMillis, expirationReached, tokenGroups,
} from './machines/token-secret.ts';
export { kubernetesServiceIp, serviceClusterIpRange, nodePortRange } from './service-allocation.ts';
export { deletesGracefully, deletionGracePeriod, returnsDeletedObject } from './deletion-grace.ts';
export { civilFromDays, daysFromCivil, daysInMonth } from './time.ts';
