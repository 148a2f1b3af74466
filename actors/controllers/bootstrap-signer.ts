// Owns: the bootstrap signer (kube-controller-manager's `bootstrapsigner`, off by default there
// and here): keeps the `cluster-info` ConfigMap in kube-public signed. For each bootstrap token
// that is valid (token machine valid, expiration not reached by this leader's clock), allows
// usage-bootstrap-signing and whose token-id matches its name, `jws-kubeconfig-<token-id>` holds
// a detached HS256 JWS (RFC 7515 appendix F) of the ConfigMap's `kubeconfig` entry, keyed with
// the full token `<id>.<secret>`; signatures of other tokens are removed. Re-signs when a token
// secret or the ConfigMap changes. Leader-only; acts only by proposing an update with a
// resourceVersion precondition (a conflict means a newer ConfigMap, whose event brings us back).
// The JWS is hand-written with node:crypto's HMAC: a detached compact HS256 JWS is one HMAC over
// `base64url(header).base64url(payload)`, and the header bytes must equal what kube's go-jose
// writes ({"alg":"HS256","kid":"<id>"}, keys sorted), which a general library does not promise.
// Must not: log a token secret or a signature.
import { createHmac } from 'node:crypto';
import type { KubeObject, ObjectKey } from '../object.ts';
import {
  clusterInfoName, clusterInfoNamespace, expirationKey, expirationMillis, expirationReached, jwsSignaturePrefix, kubeconfigKey,
  tokenIdFromName, tokenIdKey, tokenSecretData, tokenSecretKey, usageSigningKey, hasBootstrapTokenType,
} from '../machines/token-secret.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { tokenSecrets, touchesTokens } from './token-cleaner.ts';
import { PassController, WatchedPasses } from './serial.ts';

/** Who the signer's commands name as their cause (kube-controller-manager's service account). */
export const bootstrapSignerIdentity = 'system:serviceaccount:kube-system:bootstrap-signer';

export const clusterInfoKey: ObjectKey = { group: '', resource: 'configmaps', namespace: clusterInfoNamespace, name: clusterInfoName };

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The detached JWS `header..signature` of `content`, HS256 with `key`, header {"alg":"HS256","kid":tokenId}. */
export function detachedJws(content: string, tokenId: string, key: string): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', key).update(`${header}.${base64url(content)}`).digest('base64url');
  return `${header}..${signature}`;
}

/** token-id → full token of every token that may sign now (kube's validateSecretForSigning). */
function signingTokens(context: ControllerContext, nowMillis: number): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const { key, object, token } of tokenSecrets(context.state)) {
    if (!hasBootstrapTokenType(object) || object.metadata.deletionTimestamp !== undefined) continue;
    if (token !== undefined && token.state !== 'valid') continue;
    const nameId = tokenIdFromName(key.name);
    const data = tokenSecretData(object);
    const id = data[tokenIdKey];
    const secret = data[tokenSecretKey];
    if (nameId === undefined || id !== nameId || secret === undefined || secret === '') continue;
    if (expirationReached(data[expirationKey], nowMillis)) continue;
    if (data[usageSigningKey] !== 'true') continue;
    tokens.set(id, `${id}.${secret}`);
  }
  return tokens;
}

/** The ConfigMap's data with exactly the signatures it should carry, or undefined when it needs no change. */
export function signedData(configMap: KubeObject, tokens: ReadonlyMap<string, string>): Record<string, string> | undefined {
  const data = configMap['data'];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const current = data as Record<string, unknown>;
  const content = current[kubeconfigKey];
  if (typeof content !== 'string') return undefined;
  const next: Record<string, string> = {};
  for (const [entry, value] of Object.entries(current)) {
    if (!entry.startsWith(jwsSignaturePrefix) && typeof value === 'string') next[entry] = value;
  }
  for (const id of [...tokens.keys()].sort()) next[`${jwsSignaturePrefix}${id}`] = detachedJws(content, id, tokens.get(id)!);
  const same = Object.keys(next).length === Object.keys(current).length && Object.entries(next).every(([entry, value]) => current[entry] === value);
  return same ? undefined : next;
}

export class BootstrapSigner extends PassController implements Controller {
  readonly name = 'bootstrapsigner';
  readonly #context: ControllerContext;
  protected readonly passes: WatchedPasses;

  constructor(context: ControllerContext) {
    super();
    this.#context = context;
    this.passes = new WatchedPasses(context, (events) => touchesTokens(events) || events.some((event) => isClusterInfo(event.key)), () => this.#sign(), 'bootstrap signer failed; retried on the next change');
  }

  async #sign(): Promise<void> {
    if (this.passes.stopped) return;
    const configMap = this.#context.state.get(clusterInfoKey);
    if (configMap === undefined || configMap.metadata.deletionTimestamp !== undefined) return;
    const now = this.#context.now();
    const nowMillis = expirationMillis(now);
    if (nowMillis === undefined) throw new Error(`the controller clock gave ${now}, not RFC 3339`);
    const data = signedData(configMap, signingTokens(this.#context, nowMillis));
    if (data === undefined) return;
    const updated = structuredClone({ ...configMap, data }) as KubeObject;
    const result = await this.#context.propose({
      type: 'update', key: clusterInfoKey, object: updated, at: now, by: bootstrapSignerIdentity,
      preconditions: { resourceVersion: configMap.metadata.resourceVersion ?? '' },
    });
    const signatures = Object.keys(data).filter((entry) => entry.startsWith(jwsSignaturePrefix)).length;
    this.#context.log('signed cluster-info', { signatures, result: result.type });
  }
}

function isClusterInfo(key: ObjectKey): boolean {
  return key.group === clusterInfoKey.group && key.resource === clusterInfoKey.resource && key.namespace === clusterInfoKey.namespace && key.name === clusterInfoKey.name;
}
