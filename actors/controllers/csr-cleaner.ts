// Owns: kube-controller-manager's `csrcleaner` (pkg/controller/certificates/cleaner): once at
// start and then every hour it deletes the CertificateSigningRequests that are done with:
// approved and issued for more than 1 h (the Approved condition's lastUpdateTime), denied or
// failed for more than 1 h (that condition's lastUpdateTime), pending (no condition at all) for
// more than 24 h (creationTimestamp), or approved and issued with a certificate whose NotAfter
// has passed. Times are this leader's clock (`now`). Leader-only; acts only by proposing deletes
// with a uid precondition, so a request re-created under the same name is never deleted.
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { certificateControllerIdentity, csrCollection, csrConditions, csrKey, issuedCertificate } from './csr-signing.ts';
import { Serial } from './serial.ts';
import { realTimers } from './token-cleaner.ts';
import type { ControllerTimers } from './token-cleaner.ts';

const hourMs = 3_600_000;
export const csrCleanerPollingIntervalMs = hourMs;
const approvedExpirationMs = hourMs;
const deniedExpirationMs = hourMs;
const pendingExpirationMs = 24 * hourMs;

/** isOlderThan: a set time more than `ms` before now. */
function olderThan(time: unknown, ms: number, nowMs: number): boolean {
  if (typeof time !== 'string' || time === '') return false;
  const millis = Date.parse(time);
  return !Number.isNaN(millis) && millis - nowMs < -ms;
}

/** isExpired: the issued certificate's first PEM block parses and its NotAfter has gone by. */
function certificateExpired(csr: KubeObject, nowMs: number): boolean {
  const pem = Buffer.from(issuedCertificate(csr), 'base64').toString('latin1');
  const block = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(pem);
  if (block === null) return false;
  try {
    return nowMs > Date.parse(new X509Certificate(block[0]).validTo);
  } catch {
    return false;
  }
}

/** Why the cleaner deletes the request now, or undefined to keep it. */
export function csrCleanupReason(csr: KubeObject, nowMs: number): string | undefined {
  const conditions = csrConditions(csr);
  const issued = issuedCertificate(csr) !== '';
  if (conditions.some((condition) => condition['type'] === 'Approved' && issued && olderThan(condition['lastUpdateTime'], approvedExpirationMs, nowMs))) return 'approved and issued more than 1h ago';
  if (conditions.some((condition) => condition['type'] === 'Denied' && olderThan(condition['lastUpdateTime'], deniedExpirationMs, nowMs))) return 'denied more than 1h ago';
  if (conditions.some((condition) => condition['type'] === 'Failed' && olderThan(condition['lastUpdateTime'], deniedExpirationMs, nowMs))) return 'failed more than 1h ago';
  if (conditions.length === 0 && olderThan(csr.metadata.creationTimestamp, pendingExpirationMs, nowMs)) return 'pending for more than 24h';
  if (issued && conditions.some((condition) => condition['type'] === 'Approved') && certificateExpired(csr, nowMs)) return 'its certificate has expired';
  return undefined;
}

export class CsrCleaner implements Controller {
  readonly name = 'csrcleaner';
  readonly #context: ControllerContext;
  readonly #timers: ControllerTimers;
  readonly #serial: Serial;
  #cancelTimer: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext, timers: ControllerTimers = realTimers) {
    this.#context = context;
    this.#timers = timers;
    this.#serial = new Serial(() => this.#pass(), (error) => context.log('csrcleaner failed; retried at the next interval', { error: (error as Error).message }));
  }

  start(): void {
    this.#stopped = false;
    this.#serial.poke();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    await this.idle();
  }

  /** Waits until no pass is running (tests). */
  async idle(): Promise<void> {
    await this.#serial.idle();
  }

  async #pass(): Promise<void> {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    try {
      await this.#clean();
    } finally {
      if (!this.#stopped) this.#cancelTimer = this.#timers.set(csrCleanerPollingIntervalMs, () => this.#serial.poke());
    }
  }

  async #clean(): Promise<void> {
    const now = this.#context.now();
    const nowMs = Date.parse(now);
    if (Number.isNaN(nowMs)) throw new Error(`the controller clock gave ${now}, not RFC 3339`);
    for (const csr of this.#context.state.list(csrCollection).items) {
      if (this.#stopped) return;
      const reason = csrCleanupReason(csr, nowMs);
      if (reason === undefined || csr.metadata.deletionTimestamp !== undefined) continue;
      const name = csr.metadata.name ?? '';
      const uid = csr.metadata.uid;
      const result = await this.#context.propose({
        type: 'delete', key: csrKey(name), at: now, by: certificateControllerIdentity, ...(uid === undefined ? {} : { preconditions: { uid } }),
      });
      this.#context.log('csrcleaner: deleted a certificate signing request', { csr: name, reason, result: result.type });
    }
  }
}
