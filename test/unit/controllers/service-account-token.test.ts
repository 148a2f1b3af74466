// serviceaccount-token-controller (kube's TokensController) on a state that applies proposals at
// once: it fills token, ca.crt and namespace of a token secret whose account exists (and sets the
// uid annotation), never replaces a token, deletes secrets of a missing account or a wrong uid,
// deletes an account's secrets when it goes, drops a deleted secret from its account's list, and
// retries failed proposals with kube's back-off. The token it mints with deploy's minter is one
// the API tier's legacy authenticator accepts.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterState, commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../../actors/index.ts';
import {
  createControllers, enabledControllers, parseControllersFlag, retryDelayMs, serviceAccountTokenIdentity, ServiceAccountTokenController,
} from '../../../actors/controllers/index.ts';
import type { ControllerContext, LegacyServiceAccountTokens, LegacyTokenMintSpec } from '../../../actors/controllers/index.ts';
import { loadPublicKeyFiles, serviceAccountTokenAuthenticator } from '../../../api/index.ts';
import { legacyTokenMinter } from '../../../deploy/legacy-token-minter.ts';
import { manualTimers } from '../../support/manual-timers.ts';

const rootCa = '-----BEGIN CERTIFICATE-----\nMIIBroot\n-----END CERTIFICATE-----\n';
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: unknown): string => Buffer.from(String(text), 'base64').toString('utf8');

function key(resource: string, namespace: string, name: string): ObjectKey {
  return { group: '', resource, namespace, name };
}

/** A minter that records what it minted, and fails while `failing` is set. */
function fakeMinter() {
  const minted: LegacyTokenMintSpec[] = [];
  let failing = false;
  const tokens: LegacyServiceAccountTokens = {
    mint: async (spec) => {
      if (failing) throw new Error('signer unavailable');
      minted.push(spec);
      return `token-for-${spec.namespace}-${spec.secretName}-${spec.serviceAccountUid}`;
    },
  };
  return { tokens, minted, setFailing: (value: boolean) => { failing = value; } };
}

function world(options: { rootCertificate?: string; tokens?: LegacyServiceAccountTokens } = {}) {
  const state = new ClusterState();
  let index = 0;
  const proposals: Command[] = [];
  let failures = 0;
  const apply = (command: Command): CommandResult => state.apply({ index: ++index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
  const { fakeTimers, pending, fire } = manualTimers();
  const logs: string[] = [];
  const minter = fakeMinter();
  const context: ControllerContext = {
    state,
    propose: async (command) => {
      if (failures > 0) {
        failures--;
        throw new Error('leadership moved');
      }
      proposals.push(command);
      return apply(command);
    },
    now: () => '2026-01-01T00:00:00Z',
    log: (message, fields) => logs.push(JSON.stringify({ message, ...fields })),
    ...(options.rootCertificate === undefined ? {} : { rootCertificate: options.rootCertificate }),
    legacyServiceAccountTokens: options.tokens ?? minter.tokens,
  };
  const create = (object: KubeObject): CommandResult => {
    const resource = object.kind === 'Secret' ? 'secrets' : object.kind === 'ServiceAccount' ? 'serviceaccounts' : 'namespaces';
    return apply({ type: 'create', key: key(resource, object.metadata.namespace ?? '', object.metadata.name ?? ''), object, at: '2026-01-01T00:00:00Z' });
  };
  create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', uid: 'ns-uid' } });
  return {
    state, context, proposals, logs, minter, create, fakeTimers,
    failNext: (count: number) => { failures = count; },
    secret: (name: string, namespace = 'ns') => state.get(key('secrets', namespace, name)),
    account: (name: string, namespace = 'ns') => state.get(key('serviceaccounts', namespace, name)),
    remove: (resource: string, name: string, namespace = 'ns') => apply({ type: 'delete', key: key(resource, namespace, name), at: '2026-01-01T00:00:00Z' }),
    pending,
    fire,
  };
}

function account(name: string, uid: string, secrets: string[] = [], namespace = 'ns'): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, uid }, ...(secrets.length === 0 ? {} : { secrets: secrets.map((secret) => ({ name: secret })) }) };
}

function tokenSecret(name: string, annotations: Record<string, string>, data?: Record<string, string>, type = 'kubernetes.io/service-account-token'): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'ns', uid: `uid-${name}`, annotations }, type,
    ...(data === undefined ? {} : { data: Object.fromEntries(Object.entries(data).map(([entry, value]) => [entry, b64(value)])) }),
  };
}

const started: ServiceAccountTokenController[] = [];
afterEach(async () => {
  for (const controller of started.splice(0)) await controller.stop();
});

function run(w: ReturnType<typeof world>): ServiceAccountTokenController {
  const controller = new ServiceAccountTokenController(w.context, w.context.legacyServiceAccountTokens!, w.fakeTimers);
  controller.start();
  started.push(controller);
  return controller;
}

const dataOf = (secret: KubeObject | undefined): Record<string, string> => Object.fromEntries(Object.entries((secret?.['data'] ?? {}) as Record<string, string>).map(([entry, value]) => [entry, unb64(value)]));

describe('serviceaccount-token-controller', () => {
  it('fills token, ca.crt and namespace and sets the uid annotation, with a resourceVersion precondition', async () => {
    const w = world({ rootCertificate: rootCa });
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('legacy-token', { 'kubernetes.io/service-account.name': 'legacy' }, { extra: 'kept' }));
    const before = w.secret('legacy-token')!;
    const controller = run(w);
    await controller.idle();
    const secret = w.secret('legacy-token');
    expect(dataOf(secret)).toEqual({ extra: 'kept', token: 'token-for-ns-legacy-token-sa-uid', 'ca.crt': rootCa, namespace: 'ns' });
    expect(secret?.metadata.annotations).toEqual({ 'kubernetes.io/service-account.name': 'legacy', 'kubernetes.io/service-account.uid': 'sa-uid' });
    expect(w.minter.minted).toEqual([{ namespace: 'ns', secretName: 'legacy-token', serviceAccountName: 'legacy', serviceAccountUid: 'sa-uid' }]);
    expect(w.proposals).toEqual([expect.objectContaining({ type: 'update', by: serviceAccountTokenIdentity, preconditions: { resourceVersion: before.metadata.resourceVersion } })]);
    // Its own update brings the secret back: nothing more to do.
    expect(w.proposals).toHaveLength(1);
    expect(w.logs.join('\n')).not.toContain('token-for-');
  });

  it('never replaces a token that is there; puts back a ca.crt that differs and a missing namespace', async () => {
    const w = world({ rootCertificate: rootCa });
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('kept', { 'kubernetes.io/service-account.name': 'legacy', 'kubernetes.io/service-account.uid': 'sa-uid' }, { token: 'whatever-was-there', 'ca.crt': 'old ca' }));
    await run(w).idle();
    expect(dataOf(w.secret('kept'))).toEqual({ token: 'whatever-was-there', 'ca.crt': rootCa, namespace: 'ns' });
    expect(w.minter.minted).toEqual([]);
  });

  it('leaves a complete secret alone, and without a root CA does not ask for ca.crt', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('complete', { 'kubernetes.io/service-account.name': 'legacy' }, { token: 't', namespace: 'ns' }));
    await run(w).idle();
    expect(w.proposals).toEqual([]);
    expect(w.secret('complete')?.metadata.annotations?.['kubernetes.io/service-account.uid']).toBeUndefined();
  });

  it('ignores secrets of other types and token secrets naming no account', async () => {
    const w = world({ rootCertificate: rootCa });
    w.create(tokenSecret('opaque', { 'kubernetes.io/service-account.name': 'missing' }, undefined, 'Opaque'));
    w.create(tokenSecret('unnamed', {}));
    await run(w).idle();
    expect(w.proposals).toEqual([]);
    expect(w.secret('opaque')).toBeDefined();
    expect(w.secret('unnamed')).toBeDefined();
  });

  it('deletes a secret whose account is missing or has another uid (uid precondition); created later, too', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('orphan', { 'kubernetes.io/service-account.name': 'missing' }));
    w.create(tokenSecret('stale', { 'kubernetes.io/service-account.name': 'legacy', 'kubernetes.io/service-account.uid': 'old-uid' }));
    const controller = run(w);
    await controller.idle();
    expect(w.secret('orphan')).toBeUndefined();
    expect(w.secret('stale')).toBeUndefined();
    expect(w.proposals.filter((command) => command.type === 'delete')).toEqual(expect.arrayContaining([
      expect.objectContaining({ key: key('secrets', 'ns', 'orphan'), preconditions: { uid: 'uid-orphan' }, by: serviceAccountTokenIdentity }),
      expect.objectContaining({ key: key('secrets', 'ns', 'stale'), preconditions: { uid: 'uid-stale' } }),
    ]));
    w.create(tokenSecret('late', { 'kubernetes.io/service-account.name': 'nobody' }));
    await controller.idle();
    expect(w.secret('late')).toBeUndefined();
  });

  it('deletes the deleted account\'s token secrets (no uid annotation or its uid), not those of a new account of the same name', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('first', { 'kubernetes.io/service-account.name': 'legacy' }));
    w.create(tokenSecret('other', { 'kubernetes.io/service-account.name': 'someone' }));
    w.create(account('someone', 'someone-uid'));
    const controller = run(w);
    await controller.idle();
    expect(w.secret('first')?.metadata.annotations?.['kubernetes.io/service-account.uid']).toBe('sa-uid');
    // Deleted and made again before the controller looks: the new account's secret stays.
    w.remove('serviceaccounts', 'legacy');
    w.create(account('legacy', 'new-uid'));
    w.create(tokenSecret('newer', { 'kubernetes.io/service-account.name': 'legacy', 'kubernetes.io/service-account.uid': 'new-uid' }));
    await controller.idle();
    expect(w.secret('first')).toBeUndefined();
    expect(w.secret('other')).toBeDefined();
    expect(dataOf(w.secret('newer'))['token']).toBe('token-for-ns-newer-new-uid');
  });

  it('removes a deleted token secret from its account\'s secrets, only when the uid matches', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid', ['legacy-token', 'stale-token', 'pull-secret']));
    w.create(tokenSecret('legacy-token', { 'kubernetes.io/service-account.name': 'legacy', 'kubernetes.io/service-account.uid': 'sa-uid' }, { token: 't', namespace: 'ns' }));
    // Named for an earlier account of the same name: deleted, but not this account's to drop.
    w.create(tokenSecret('stale-token', { 'kubernetes.io/service-account.name': 'legacy', 'kubernetes.io/service-account.uid': 'old-uid' }, { token: 't', namespace: 'ns' }));
    const controller = run(w);
    await controller.idle();
    expect(w.secret('stale-token')).toBeUndefined();
    expect(w.account('legacy')?.['secrets']).toEqual([{ name: 'legacy-token' }, { name: 'stale-token' }, { name: 'pull-secret' }]);
    w.remove('secrets', 'legacy-token');
    await controller.idle();
    expect(w.account('legacy')?.['secrets']).toEqual([{ name: 'stale-token' }, { name: 'pull-secret' }]);
    expect(w.proposals.at(-1)).toMatchObject({ type: 'update', key: key('serviceaccounts', 'ns', 'legacy'), preconditions: { resourceVersion: expect.any(String) } });
  });

  it('retries a failed proposal after kube\'s back-off, at most 10 times', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('legacy-token', { 'kubernetes.io/service-account.name': 'legacy' }));
    w.failNext(2);
    const controller = run(w);
    await controller.idle();
    expect(w.secret('legacy-token')?.['data']).toBeUndefined();
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([5]);
    w.fire();
    await controller.idle();
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([10]);
    w.fire();
    await controller.idle();
    expect(dataOf(w.secret('legacy-token'))['token']).toBe('token-for-ns-legacy-token-sa-uid');
    expect(w.pending()).toEqual([]);

    w.create(tokenSecret('doomed', { 'kubernetes.io/service-account.name': 'legacy' }));
    w.failNext(100);
    await controller.idle();
    const delays: number[] = [];
    while (w.pending().length > 0) {
      delays.push(...w.pending().map((timer) => timer.delayMs));
      w.fire();
      await controller.idle();
    }
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560]);
    expect(w.logs.some((line) => line.includes('giving up after retries'))).toBe(true);
    expect(retryDelayMs(30)).toBe(1_000_000);
  });

  it('does not retry a token it could not mint', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('legacy-token', { 'kubernetes.io/service-account.name': 'legacy' }));
    w.minter.setFailing(true);
    await run(w).idle();
    expect(w.proposals).toEqual([]);
    expect(w.pending()).toEqual([]);
    expect(w.logs.some((line) => line.includes('could not mint a token'))).toBe(true);
  });

  it('stops: pending retries are cancelled', async () => {
    const w = world();
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('legacy-token', { 'kubernetes.io/service-account.name': 'legacy' }));
    w.failNext(1);
    const controller = run(w);
    await controller.idle();
    expect(w.pending()).toHaveLength(1);
    await controller.stop();
    expect(w.pending()).toEqual([]);
  });
});

describe('serviceaccount-token-controller in the registry', () => {
  it('is on by default under kube\'s name and alias, first, and runs only with a minter', () => {
    expect(enabledControllers()[0]).toBe('serviceaccount-token-controller');
    expect(parseControllersFlag('serviceaccount-token,-serviceaccount-token-controller')).toEqual(['serviceaccount-token-controller', '-serviceaccount-token-controller']);
    const w = world();
    expect(createControllers(w.context, ['*'], w.fakeTimers).map((controller) => controller.name)).toContain('serviceaccount-token');
    expect(createControllers(w.context, parseControllersFlag('*,-serviceaccount-token'), w.fakeTimers).map((controller) => controller.name)).not.toContain('serviceaccount-token');
    const { legacyServiceAccountTokens: _, ...withoutMinter } = w.context;
    expect(createControllers(withoutMinter, ['*'], w.fakeTimers).map((controller) => controller.name)).not.toContain('serviceaccount-token');
  });
});

describe('the legacy token minter (deploy/legacy-token-minter.ts)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function keyFiles(): { privateKey: string; publicKey: string } {
    const dir = mkdtempSync(path.join(tmpdir(), 'sa-token-'));
    dirs.push(dir);
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const files = { privateKey: path.join(dir, 'sa.key'), publicKey: path.join(dir, 'sa.pub') };
    writeFileSync(files.privateKey, pair.privateKey);
    writeFileSync(files.publicKey, pair.publicKey);
    return files;
  }

  it('mints a token the legacy authenticator accepts while the secret holds it, and refuses once the account is gone', async () => {
    const files = keyFiles();
    const w = world({ rootCertificate: rootCa, tokens: legacyTokenMinter(files.privateKey) });
    w.create(account('legacy', 'sa-uid'));
    w.create(tokenSecret('legacy-token', { 'kubernetes.io/service-account.name': 'legacy' }));
    const controller = run(w);
    await controller.idle();
    const token = dataOf(w.secret('legacy-token'))['token']!;
    const authenticate = serviceAccountTokenAuthenticator({ publicKeys: loadPublicKeyFiles([files.publicKey]), issuers: ['https://kubernetes.default.svc.cluster.local'], apiAudiences: ['https://kubernetes.default.svc.cluster.local'], reader: w.state });
    const result = await authenticate(token);
    expect(result).toMatchObject({ type: 'authenticated', user: { name: 'system:serviceaccount:ns:legacy', uid: 'sa-uid' } });
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(payload).toEqual({
      iss: 'kubernetes/serviceaccount', sub: 'system:serviceaccount:ns:legacy', 'kubernetes.io/serviceaccount/namespace': 'ns',
      'kubernetes.io/serviceaccount/secret.name': 'legacy-token', 'kubernetes.io/serviceaccount/service-account.name': 'legacy',
      'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid',
    });
    w.remove('serviceaccounts', 'legacy');
    await controller.idle();
    expect(w.secret('legacy-token')).toBeUndefined();
    expect(await authenticate(token)).toMatchObject({ type: 'rejected' });
  });

  it('refuses a missing or unreadable key with kube-controller-manager\'s message', () => {
    expect(() => legacyTokenMinter('/nonexistent/sa.key')).toThrow('error reading key for service account token controller: open /nonexistent/sa.key: no such file or directory');
    const files = keyFiles();
    expect(() => legacyTokenMinter(files.publicKey)).toThrow(/^error reading key for service account token controller: error reading private key file .*: data does not contain a valid RSA or ECDSA private key$/);
  });
});
