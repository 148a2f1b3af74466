// Public surface of actors/controllers: leader-only controllers that act by proposing commands.
export type { Controller, ControllerContext } from './controller.ts';
export { NamespaceLifecycleController, namespaceFinalizer } from './namespace-lifecycle.ts';
export { GarbageCollector } from './garbage-collector.ts';
export { PodGarbageCollector, podGcIdentity, podGcQuarantineMsDefault } from './pod-gc.ts';
export type { PodGcOptions } from './pod-gc.ts';
export { NamespaceObjectController, rootCaConfigMapName, rootCaDescription, rootCaPublisher, serviceAccountController } from './namespace-objects.ts';
export { TokenCleaner, TokenExpirer, realTimers, tokenCleanerIdentity } from './token-cleaner.ts';
export type { ControllerTimers } from './token-cleaner.ts';
export { BootstrapSigner, bootstrapSignerIdentity, clusterInfoKey, detachedJws, signedData } from './bootstrap-signer.ts';
export { ClusterRoleAggregationController, aggregatedRules, clusterRoleAggregationIdentity, labelSelectorMatches } from './clusterrole-aggregation.ts';
export {
  CsrSigningController, apiServerClientProblem, approvalOf, certificateControllerIdentity, certificatePem, certificateTtlMs, certificateValidity,
  clusterSigningDurationDefaultSeconds, csrCollection, csrKey, hasTrueCondition, issueCertificate, issuedCertificate, keyUsagesFromStrings,
  kubeApiServerClientSignerName, kubeletClientProblem, kubeletClientSignerName, kubeletServingProblem, kubeletServingSignerName,
  loadCertificateAuthority, parseCertificateRequest, signerProblem,
} from './csr-signing.ts';
export type { CertificateAuthority, CertificateRequestInfo, ClusterSigning, IssueParams } from './csr-signing.ts';
export { CsrApprovingController, subjectAccessAllowed } from './csr-approving.ts';
export type { CsrApprovingOptions, ReviewAttributes, ReviewUser, SubjectAccessCheck } from './csr-approving.ts';
export { CsrCleaner, csrCleanerPollingIntervalMs, csrCleanupReason } from './csr-cleaner.ts';
export {
  ServiceAccountTokenController, isServiceAccountToken, namespaceDataKey, retryDelayMs, rootCaDataKey, secretUpdateNeeded, serviceAccountNameAnnotation,
  serviceAccountTokenIdentity, serviceAccountTokenMaxRetries, serviceAccountTokenSecretType, serviceAccountUidAnnotation, tokenDataKey,
} from './service-account-token.ts';
export type { LegacyServiceAccountTokens, LegacyTokenMintSpec } from './service-account-token.ts';
export { controllerNames, controllersDisabledByDefault, createControllers, enabledControllers, parseControllersFlag } from './registry.ts';
