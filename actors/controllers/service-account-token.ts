// Owns: kube-controller-manager's `serviceaccount-token-controller` (kube's TokensController,
// pkg/controller/serviceaccount/tokens_controller.go): the legacy, secret-based service account
// tokens. For each Secret of type kubernetes.io/service-account-token that names an account in
// its `kubernetes.io/service-account.name` annotation (a secret without the annotation is left
// alone):
//  - the account is missing, or its uid is not the secret's `kubernetes.io/service-account.uid`
//    annotation (when that is set): the secret is deleted (uid precondition);
//  - otherwise, when `data.token` or `data.namespace` is empty, or `data.ca.crt` differs from the
//    root CA (when there is one), the missing parts are filled in — a token already there is
//    never replaced — and both annotations are set to the account's name and uid, in one update
//    with a resourceVersion precondition (a conflict means a newer secret, whose event brings it
//    back here).
// When an account is deleted, every token secret naming it (uid annotation empty or the deleted
// account's) is deleted; when a token secret is deleted, its account (same uid) drops it from
// `secrets`. A failed proposal is retried after kube's per-item back-off (5 ms doubling, at most
// 10 retries); a token that cannot be minted is logged and not retried, as kube does.
// Runs only with a minter (kube-controller-manager skips the controller without
// --service-account-private-key-file). Leader-only; acts only by proposing commands.
// Must not: log a token.
import type { ChangeEvent } from '../events.ts';
import type { KubeObject, ObjectKey } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { KeyQueue } from './serial.ts';
import { realTimers } from './token-cleaner.ts';
import type { ControllerTimers } from './token-cleaner.ts';

/** v1.SecretTypeServiceAccountToken. */
export const serviceAccountTokenSecretType = 'kubernetes.io/service-account-token';
/** v1.ServiceAccountNameKey and v1.ServiceAccountUIDKey: the annotations naming the account. */
export const serviceAccountNameAnnotation = 'kubernetes.io/service-account.name';
export const serviceAccountUidAnnotation = 'kubernetes.io/service-account.uid';
/** v1.ServiceAccountTokenKey, v1.ServiceAccountRootCAKey, v1.ServiceAccountNamespaceKey. */
export const tokenDataKey = 'token';
export const rootCaDataKey = 'ca.crt';
export const namespaceDataKey = 'namespace';

/** Who the controller's commands name as their cause (kube runs it with the controller manager's own credentials). */
export const serviceAccountTokenIdentity = 'system:kube-controller-manager';
/** kube's TokensController maxRetries default. */
export const serviceAccountTokenMaxRetries = 10;

/** What a legacy token is minted for (kube's serviceaccount.LegacyClaims arguments). */
export interface LegacyTokenMintSpec {
  readonly namespace: string;
  readonly secretName: string;
  readonly serviceAccountName: string;
  readonly serviceAccountUid: string;
}

/** Signs legacy tokens with --service-account-private-key-file's key (built in deploy/). */
export interface LegacyServiceAccountTokens {
  mint(spec: LegacyTokenMintSpec): Promise<string>;
}

/** workqueue.DefaultTypedControllerRateLimiter's per-item delay: 5 ms doubling per requeue, at most 1000 s. */
export function retryDelayMs(requeues: number): number {
  return Math.min(5 * 2 ** requeues, 1_000_000);
}

type WorkKey =
  | { readonly kind: 'secret'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'account-deleted'; readonly namespace: string; readonly name: string; readonly uid: string }
  | { readonly kind: 'secret-deleted'; readonly namespace: string; readonly name: string; readonly serviceAccount: string; readonly serviceAccountUid: string };

/** Whether the work is done (false) or should be retried (true). */
type Retry = boolean;

function secretKey(namespace: string, name: string): ObjectKey {
  return { group: '', resource: 'secrets', namespace, name };
}

function serviceAccountKey(namespace: string, name: string): ObjectKey {
  return { group: '', resource: 'serviceaccounts', namespace, name };
}

function isTokenSecret(object: KubeObject): boolean {
  return object['type'] === serviceAccountTokenSecretType;
}

function annotation(object: KubeObject, name: string): string {
  return object.metadata.annotations?.[name] ?? '';
}

/** The secret's data entry as bytes (absent or not a string: empty). */
function dataBytes(secret: KubeObject, entry: string): Buffer {
  const data = secret['data'];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return Buffer.alloc(0);
  const value = (data as Record<string, unknown>)[entry];
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
}

/** apiserverserviceaccount.IsServiceAccountToken: the type, the account's name, and its uid when the secret names one. */
export function isServiceAccountToken(secret: KubeObject, account: { readonly name: string; readonly uid: string }): boolean {
  if (!isTokenSecret(secret) || annotation(secret, serviceAccountNameAnnotation) !== account.name) return false;
  const uid = annotation(secret, serviceAccountUidAnnotation);
  return uid === '' || uid === account.uid;
}

/** kube's secretUpdateNeeded: which of ca.crt, namespace and token the secret lacks. */
export function secretUpdateNeeded(secret: KubeObject, rootCertificate: string | undefined): { ca: boolean; namespace: boolean; token: boolean } {
  const rootCa = Buffer.from(rootCertificate ?? '', 'utf8');
  return {
    ca: rootCa.length > 0 && !dataBytes(secret, rootCaDataKey).equals(rootCa),
    namespace: dataBytes(secret, namespaceDataKey).length === 0,
    token: dataBytes(secret, tokenDataKey).length === 0,
  };
}

export class ServiceAccountTokenController implements Controller {
  readonly name = 'serviceaccount-token';
  readonly #context: ControllerContext;
  readonly #tokens: LegacyServiceAccountTokens;
  readonly #timers: ControllerTimers;
  readonly #queue: KeyQueue<string>;
  readonly #requeues = new Map<string, number>();
  readonly #retryTimers = new Set<() => void>();
  /** Work marked and not yet begun, and how many are running: what idle() waits out. */
  readonly #outstanding = new Set<string>();
  #running = 0;
  #idleWaiters: (() => void)[] = [];
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext, tokens: LegacyServiceAccountTokens, timers: ControllerTimers = realTimers) {
    this.#context = context;
    this.#tokens = tokens;
    this.#timers = timers;
    this.#queue = new KeyQueue((key) => this.#process(key), (key, error) => {
      this.#context.log('serviceaccount-token: sync failed', { key, error: (error as Error).message });
    });
  }

  start(): void {
    this.#stopped = false;
    this.#queue.resume();
    this.#unsubscribe = this.#context.state.subscribe((events) => this.#onEvents(events));
    for (const secret of this.#context.state.list({ group: '', resource: 'secrets', namespace: '' }).items) {
      if (isTokenSecret(secret)) this.#mark({ kind: 'secret', namespace: secret.metadata.namespace ?? '', name: secret.metadata.name ?? '' });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const cancel of this.#retryTimers) cancel();
    this.#retryTimers.clear();
    this.#requeues.clear();
    this.#outstanding.clear();
    await this.#queue.stop();
    this.#settle();
  }

  /** Resolves once no work is queued or running (tests; a retry waits for its timer). */
  idle(): Promise<void> {
    if (this.#outstanding.size === 0 && this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #settle(): void {
    if (this.#outstanding.size !== 0 || this.#running !== 0) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #onEvents(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      const { key, object } = event;
      if (key.group !== '') continue;
      if (key.resource === 'secrets' && isTokenSecret(object)) {
        if (event.type !== 'DELETED') {
          this.#mark({ kind: 'secret', namespace: key.namespace, name: key.name });
          continue;
        }
        const serviceAccount = annotation(object, serviceAccountNameAnnotation);
        if (serviceAccount !== '') {
          this.#mark({ kind: 'secret-deleted', namespace: key.namespace, name: key.name, serviceAccount, serviceAccountUid: annotation(object, serviceAccountUidAnnotation) });
        }
      } else if (key.resource === 'serviceaccounts' && event.type === 'DELETED') {
        // kube queues every account event, but one that still exists needs nothing done.
        const uid = object.metadata.uid ?? '';
        if (uid !== '') this.#mark({ kind: 'account-deleted', namespace: key.namespace, name: key.name, uid });
      }
    }
  }

  #mark(key: WorkKey): void {
    if (key.namespace === '' || key.name === '') return;
    this.#markEncoded(JSON.stringify(key));
  }

  #markEncoded(encoded: string): void {
    if (this.#stopped) return;
    this.#outstanding.add(encoded);
    this.#queue.mark(encoded);
  }

  async #process(encoded: string): Promise<void> {
    this.#outstanding.delete(encoded);
    this.#running++;
    try {
      if (this.#stopped) return;
      const key = JSON.parse(encoded) as WorkKey;
      let retry: Retry;
      try {
        retry = await this.#sync(key);
      } catch (error) {
        this.#context.log('serviceaccount-token: sync failed', { namespace: key.namespace, name: key.name, work: key.kind, error: (error as Error).message });
        retry = true;
      }
      this.#retryOrForget(encoded, retry);
    } finally {
      this.#running--;
      this.#settle();
    }
  }

  /** kube's retryOrForget: requeue after the per-item back-off, up to maxRetries times. */
  #retryOrForget(encoded: string, retry: Retry): void {
    const requeues = this.#requeues.get(encoded) ?? 0;
    if (!retry || requeues >= serviceAccountTokenMaxRetries || this.#stopped) {
      if (retry && requeues >= serviceAccountTokenMaxRetries) this.#context.log('serviceaccount-token: giving up after retries', { work: encoded, retries: requeues });
      this.#requeues.delete(encoded);
      return;
    }
    this.#requeues.set(encoded, requeues + 1);
    const cancel = this.#timers.set(retryDelayMs(requeues), () => {
      this.#retryTimers.delete(cancel);
      this.#markEncoded(encoded);
    });
    this.#retryTimers.add(cancel);
  }

  #sync(key: WorkKey): Promise<Retry> {
    if (key.kind === 'account-deleted') return this.#deleteTokens(key.namespace, key.name, key.uid);
    if (key.kind === 'secret-deleted') return this.#removeSecretReference(key.namespace, key.serviceAccount, key.serviceAccountUid, key.name);
    return this.#syncSecret(key.namespace, key.name);
  }

  /** The account named, when it exists and has `uid` (any uid when `uid` is empty). */
  #serviceAccount(namespace: string, name: string, uid: string): KubeObject | undefined {
    const account = this.#context.state.get(serviceAccountKey(namespace, name));
    return account !== undefined && (uid === '' || account.metadata.uid === uid) ? account : undefined;
  }

  async #syncSecret(namespace: string, name: string): Promise<Retry> {
    const secret = this.#context.state.get(secretKey(namespace, name));
    if (secret === undefined || !isTokenSecret(secret)) return false;
    const accountName = annotation(secret, serviceAccountNameAnnotation);
    if (accountName === '') return false;
    const account = this.#serviceAccount(namespace, accountName, annotation(secret, serviceAccountUidAnnotation));
    if (account === undefined) return this.#deleteToken(secret, 'its service account does not exist');
    return this.#generateTokenIfNeeded(account, secret);
  }

  /** kube's deleteToken: with the secret's uid as precondition; not found or a conflict need no retry. */
  async #deleteToken(secret: KubeObject, reason: string): Promise<Retry> {
    const namespace = secret.metadata.namespace ?? '';
    const name = secret.metadata.name ?? '';
    const uid = secret.metadata.uid ?? '';
    const result = await this.#context.propose({
      type: 'delete', key: secretKey(namespace, name), at: this.#context.now(), by: serviceAccountTokenIdentity,
      ...(uid === '' ? {} : { preconditions: { uid } }),
    });
    this.#context.log('serviceaccount-token: deleted a token secret', { secret: `${namespace}/${name}`, reason, result: result.type });
    return !['removed', 'finalizing', 'notFound', 'conflict', 'noop'].includes(result.type);
  }

  /** kube's deleteTokens: every token secret of the deleted account. */
  async #deleteTokens(namespace: string, name: string, uid: string): Promise<Retry> {
    if (this.#serviceAccount(namespace, name, uid) !== undefined) return false;
    let retry = false;
    for (const secret of this.#context.state.list({ group: '', resource: 'secrets', namespace }).items) {
      if (this.#stopped) return false;
      if (!isServiceAccountToken(secret, { name, uid })) continue;
      if (await this.#deleteToken(secret, 'its service account was deleted')) retry = true;
    }
    return retry;
  }

  /** kube's generateTokenIfNeeded. */
  async #generateTokenIfNeeded(account: KubeObject, secret: KubeObject): Promise<Retry> {
    const rootCertificate = this.#context.rootCertificate;
    const needs = secretUpdateNeeded(secret, rootCertificate);
    if (!needs.ca && !needs.namespace && !needs.token) return false;
    const namespace = secret.metadata.namespace ?? '';
    const name = secret.metadata.name ?? '';
    const accountName = account.metadata.name ?? '';
    const accountUid = account.metadata.uid ?? '';
    const current = secret['data'];
    const data: Record<string, string> = {};
    if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
      for (const [entry, value] of Object.entries(current)) if (typeof value === 'string') data[entry] = value;
    }
    if (needs.ca) data[rootCaDataKey] = Buffer.from(rootCertificate ?? '', 'utf8').toString('base64');
    if (needs.namespace) data[namespaceDataKey] = Buffer.from(namespace, 'utf8').toString('base64');
    if (needs.token) {
      let token: string;
      try {
        token = await this.#tokens.mint({ namespace, secretName: name, serviceAccountName: accountName, serviceAccountUid: accountUid });
      } catch (error) {
        // kube reports a generator error and does not retry it.
        this.#context.log('serviceaccount-token: could not mint a token', { secret: `${namespace}/${name}`, error: (error as Error).message });
        return false;
      }
      data[tokenDataKey] = Buffer.from(token, 'utf8').toString('base64');
    }
    const updated = structuredClone(secret) as KubeObject;
    updated['data'] = data;
    updated.metadata.annotations = { ...updated.metadata.annotations, [serviceAccountNameAnnotation]: accountName, [serviceAccountUidAnnotation]: accountUid };
    const result = await this.#context.propose({
      type: 'update', key: secretKey(namespace, name), object: updated, at: this.#context.now(), by: serviceAccountTokenIdentity,
      preconditions: { resourceVersion: secret.metadata.resourceVersion ?? '' },
    });
    this.#context.log('serviceaccount-token: populated a token secret', { secret: `${namespace}/${name}`, token: needs.token, namespace: needs.namespace, ca: needs.ca, result: result.type });
    // A conflict means a newer secret (its event brings it back); not found, that it is gone.
    return !['stored', 'noop', 'conflict', 'notFound'].includes(result.type);
  }

  /**
   * kube's removeSecretReference, retried on conflict as RetryOnConflict(RemoveTokenBackoff)
   * does (10 attempts; each re-reads the account, which the conflicting write already changed).
   */
  async #removeSecretReference(namespace: string, accountName: string, accountUid: string, secretName: string): Promise<Retry> {
    for (let attempt = 0; attempt < serviceAccountTokenMaxRetries; attempt++) {
      if (this.#stopped) return false;
      const account = this.#serviceAccount(namespace, accountName, accountUid);
      if (account === undefined) return false;
      const references = Array.isArray(account['secrets']) ? account['secrets'] : [];
      const kept = references.filter((reference) => !(reference !== null && typeof reference === 'object' && !Array.isArray(reference) && reference['name'] === secretName));
      if (kept.length === references.length) return false;
      const updated = structuredClone(account) as KubeObject;
      updated['secrets'] = structuredClone(kept);
      const result = await this.#context.propose({
        type: 'update', key: serviceAccountKey(namespace, accountName), object: updated, at: this.#context.now(), by: serviceAccountTokenIdentity,
        preconditions: { resourceVersion: account.metadata.resourceVersion ?? '' },
      });
      this.#context.log('serviceaccount-token: removed a deleted token secret from its service account', { serviceAccount: `${namespace}/${accountName}`, secret: secretName, result: result.type });
      if (result.type !== 'conflict') return false;
    }
    return false;
  }
}
