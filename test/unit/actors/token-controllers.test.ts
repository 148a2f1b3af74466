// The token controllers with a fake clock and fake timers: the expirer proposes expireTokens when
// the clock reaches an expiration, the cleaner deletes expired token secrets, the signer keeps
// cluster-info signed; and --controllers as kube-controller-manager reads it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterState, commandVersion, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../../actors/index.ts';
import {
  BootstrapSigner, clusterInfoKey, createControllers, detachedJws, enabledControllers, parseControllersFlag, TokenCleaner, TokenExpirer,
} from '../../../actors/controllers/index.ts';
import type { Controller, ControllerContext } from '../../../actors/controllers/index.ts';
import { at, create, nsKey, t0 } from './fixtures.ts';
import { manualTimers } from '../../support/manual-timers.ts';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function tokenKey(id: string): ObjectKey {
  return { group: '', resource: 'secrets', namespace: 'kube-system', name: `bootstrap-token-${id}` };
}

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}): KubeObject {
  const data = Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, b64(v)]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system', uid: `uid-${id}`, creationTimestamp: t0 }, type: 'bootstrap.kubernetes.io/token', data };
}

const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:6443\n  name: ""\n';

/** A state applying proposals at once, a settable clock, and timers fired by hand. */
function world() {
  const state = new ClusterState();
  let index = 0;
  let clock = 0; // seconds after t0
  const proposals: Command[] = [];
  const apply = (command: Command): CommandResult => state.apply({ index: ++index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
  const { fakeTimers, pending, fire } = manualTimers();
  const logs: string[] = [];
  const context: ControllerContext = {
    state,
    propose: async (command) => {
      proposals.push(command);
      return apply(command);
    },
    now: () => at(clock),
    log: (message, fields) => logs.push(JSON.stringify({ message, ...fields })),
  };
  apply(create(nsKey('kube-system')));
  apply(create(nsKey('kube-public')));
  return {
    state, apply, context, proposals, logs, fakeTimers,
    setClock: (seconds: number) => { clock = seconds; },
    pending,
    /** Fires the pending timers (as if their delay passed). */
    fire,
  };
}

const started: Controller[] = [];
afterEach(async () => {
  for (const controller of started.splice(0)) await controller.stop();
});

function run<T extends Controller>(controller: T): T {
  controller.start();
  started.push(controller);
  return controller;
}

describe('TokenExpirer', () => {
  it('sleeps until the earliest expiration, then proposes expireTokens at the clock time; the token expires on every replica alike', async () => {
    const w = world();
    w.apply(create(tokenKey('abcdef'), tokenSecret('abcdef', '0123456789abcdef', { expiration: at(30) })));
    w.apply(create(tokenKey('later1'), tokenSecret('later1', '0123456789abcdef', { expiration: at(90) })));
    w.apply(create(tokenKey('never1'), tokenSecret('never1', '0123456789abcdef')));
    const expirer = run(new TokenExpirer(w.context, w.fakeTimers));
    await expirer.idle();
    expect(w.proposals).toEqual([]);
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([30_000]);

    w.setClock(30);
    w.fire();
    await expirer.idle();
    expect(w.proposals).toEqual([{ type: 'expireTokens', at: at(30), by: 'system:serviceaccount:kube-system:token-cleaner' }]);
    expect(w.state.lifecycleOf(tokenKey('abcdef'))?.token?.state).toBe('expired');
    expect(w.state.lifecycleOf(tokenKey('later1'))?.token?.state).toBe('valid');
    // It re-planned for the next one.
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([60_000]);

    // A timer that fires early (the clock says 89 s) proposes nothing and waits the rest.
    w.setClock(89);
    w.fire();
    await expirer.idle();
    expect(w.proposals).toHaveLength(1);
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([1_000]);

    // A new token that is already due is expired at once, without waiting for the timer.
    w.apply(create(tokenKey('past01'), tokenSecret('past01', '0123456789abcdef', { expiration: at(10) })));
    await expirer.idle();
    expect(w.proposals.at(-1)).toEqual({ type: 'expireTokens', at: at(89), by: 'system:serviceaccount:kube-system:token-cleaner' });
    expect(w.state.lifecycleOf(tokenKey('past01'))?.token?.state).toBe('expired');
    expect(w.state.lifecycleOf(tokenKey('never1'))?.token?.state).toBe('valid');
  });

  it('stops its timer when stopped', async () => {
    const w = world();
    w.apply(create(tokenKey('abcdef'), tokenSecret('abcdef', '0123456789abcdef', { expiration: at(30) })));
    const expirer = new TokenExpirer(w.context, w.fakeTimers);
    expirer.start();
    await expirer.idle();
    expect(w.pending()).toHaveLength(1);
    await expirer.stop();
    expect(w.pending()).toHaveLength(0);
  });
});

describe('TokenCleaner', () => {
  it('deletes expired token secrets (uid precondition), leaves valid ones and other secrets', async () => {
    const w = world();
    w.apply(create(tokenKey('abcdef'), tokenSecret('abcdef', '0123456789abcdef', { expiration: at(30) })));
    w.apply(create(tokenKey('valid1'), tokenSecret('valid1', '0123456789abcdef', { expiration: at(300) })));
    const cleaner = run(new TokenCleaner(w.context));
    await cleaner.idle();
    expect(w.proposals).toEqual([]);
    w.setClock(31);
    w.apply({ type: 'expireTokens', at: at(31) });
    await cleaner.idle();
    expect(w.proposals).toEqual([{ type: 'delete', key: tokenKey('abcdef'), at: at(31), by: 'system:serviceaccount:kube-system:token-cleaner', preconditions: { uid: 'uid-abcdef' } }]);
    expect(w.state.get(tokenKey('abcdef'))).toBeUndefined();
    expect(w.state.get(tokenKey('valid1'))).toBeDefined();
    expect(w.logs.join('\n')).not.toContain('0123456789abcdef');
  });

  it('at start, deletes what expired while no leader ran it', async () => {
    const w = world();
    w.apply(create(tokenKey('abcdef'), tokenSecret('abcdef', '0123456789abcdef', { expiration: at(30) })));
    w.apply({ type: 'expireTokens', at: at(40) });
    const cleaner = run(new TokenCleaner(w.context));
    await cleaner.idle();
    expect(w.state.get(tokenKey('abcdef'))).toBeUndefined();
  });
});

/** What a joining node (kubeadm) does: rebuild `header.payload.signature` with payload = kubeconfig and check HS256 with the token. */
function verifyLikeKubeadm(detached: string, content: string, token: string): boolean {
  const [header, payload, signature] = detached.split('.');
  if (header === undefined || payload !== '' || signature === undefined) return false;
  const parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string; kid?: string };
  if (parsed.alg !== 'HS256' || parsed.kid !== token.split('.')[0]) return false;
  const expected = createHmac('sha256', token).update(`${header}.${Buffer.from(content, 'utf8').toString('base64url')}`).digest();
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('BootstrapSigner', () => {
  it('signs cluster-info for each signing token, re-signs on kubeconfig change, drops expired and deleted tokens', async () => {
    const w = world();
    w.apply(create(clusterInfoKey, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public', uid: 'ci' }, data: { kubeconfig } }));
    w.apply(create(tokenKey('abcdef'), tokenSecret('abcdef', '0123456789abcdef', { expiration: at(30), 'usage-bootstrap-signing': 'true' })));
    w.apply(create(tokenKey('nosign'), tokenSecret('nosign', '0123456789abcdef', { 'usage-bootstrap-authentication': 'true' })));
    w.apply(create(tokenKey('second'), tokenSecret('second', 'ffffffffffffffff', { 'usage-bootstrap-signing': 'true' })));
    const signer = run(new BootstrapSigner(w.context));
    await signer.idle();
    const data = () => w.state.get(clusterInfoKey)!['data'] as Record<string, string>;
    expect(Object.keys(data()).sort()).toEqual(['jws-kubeconfig-abcdef', 'jws-kubeconfig-second', 'kubeconfig']);
    expect(verifyLikeKubeadm(data()['jws-kubeconfig-abcdef']!, kubeconfig, 'abcdef.0123456789abcdef')).toBe(true);
    expect(verifyLikeKubeadm(data()['jws-kubeconfig-second']!, kubeconfig, 'second.ffffffffffffffff')).toBe(true);
    // The wrong token or a changed payload fails verification.
    expect(verifyLikeKubeadm(data()['jws-kubeconfig-abcdef']!, kubeconfig, 'abcdef.0123456789abcdee')).toBe(false);
    expect(verifyLikeKubeadm(data()['jws-kubeconfig-abcdef']!, `${kubeconfig}# tampered\n`, 'abcdef.0123456789abcdef')).toBe(false);
    // Known answer: the header is go-jose's {"alg":"HS256","kid":"abcdef"}.
    expect(data()['jws-kubeconfig-abcdef']!.split('.')[0]).toBe('eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9');
    const signed = w.proposals.length;
    expect(w.proposals.at(-1)).toMatchObject({ type: 'update', key: clusterInfoKey, by: 'system:serviceaccount:kube-system:bootstrap-signer', preconditions: { resourceVersion: expect.any(String) } });

    // Nothing to change → no proposal on an unrelated token event.
    w.apply(create(tokenKey('other1'), tokenSecret('other1', '0123456789abcdef')));
    await signer.idle();
    expect(w.proposals).toHaveLength(signed);

    // A new kubeconfig is re-signed.
    const changed = `${kubeconfig}# v2\n`;
    const current = structuredClone(w.state.get(clusterInfoKey)!);
    (current['data'] as Record<string, string>)['kubeconfig'] = changed;
    w.apply({ type: 'update', key: clusterInfoKey, object: current, at: t0 });
    await signer.idle();
    expect(verifyLikeKubeadm(data()['jws-kubeconfig-abcdef']!, changed, 'abcdef.0123456789abcdef')).toBe(true);

    // The token expires (the expireTokens command): its signature is removed.
    w.setClock(31);
    w.apply({ type: 'expireTokens', at: at(31) });
    await signer.idle();
    expect(Object.keys(data()).sort()).toEqual(['jws-kubeconfig-second', 'kubeconfig']);

    // The other is deleted: no signature left.
    w.apply({ type: 'delete', key: tokenKey('second'), at: at(32) });
    await signer.idle();
    expect(Object.keys(data())).toEqual(['kubeconfig']);
    expect(w.logs.join('\n')).not.toMatch(/0123456789abcdef|ffffffffffffffff/);
  });

  it('matches the detached JWS a known HMAC gives', () => {
    const jws = detachedJws('hello', 'abcdef', 'abcdef.0123456789abcdef');
    const [header] = jws.split('.');
    const expected = createHmac('sha256', 'abcdef.0123456789abcdef').update(`${header}.aGVsbG8`).digest('base64url');
    expect(jws).toBe(`${header}..${expected}`);
  });
});

describe('--controllers', () => {
  /** kube-controller-manager's default set, among the controllers kstore has, in start order. */
  const defaults = ['serviceaccount-token-controller', 'namespace-controller', 'garbage-collector-controller', 'pod-garbage-collector-controller', 'serviceaccount-controller', 'root-ca-certificate-publisher-controller', 'clusterrole-aggregation-controller', 'certificatesigningrequest-signing-controller', 'certificatesigningrequest-approving-controller', 'certificatesigningrequest-cleaner-controller'];

  it('defaults to kube-controller-manager: tokencleaner and bootstrapsigner are off', () => {
    expect(enabledControllers()).toEqual(defaults);
    expect(enabledControllers(parseControllersFlag('*'))).toEqual(defaults);
  });

  it('names enable, -names disable, the first mention wins, aliases and canonical names both work', () => {
    expect(enabledControllers(parseControllersFlag('*,tokencleaner,bootstrapsigner'))).toEqual([...defaults, 'token-cleaner-controller', 'bootstrap-signer-controller']);
    expect(enabledControllers(parseControllersFlag('tokencleaner'))).toEqual(['token-cleaner-controller']);
    expect(enabledControllers(parseControllersFlag('*,-garbagecollector,bootstrap-signer-controller'))).toEqual([...defaults.filter((name) => name !== 'garbage-collector-controller'), 'bootstrap-signer-controller']);
    expect(enabledControllers(parseControllersFlag('-tokencleaner,tokencleaner,*'))).toEqual(defaults);
    expect(enabledControllers(parseControllersFlag('serviceaccount,root-ca-cert-publisher'))).toEqual(['serviceaccount-controller', 'root-ca-certificate-publisher-controller']);
  });

  it('refuses an unknown name', () => {
    expect(() => parseControllersFlag('*,tokenclean')).toThrow('"tokenclean" is not in the list of known controllers');
    expect(() => parseControllersFlag('-nope')).toThrow('"nope" is not in the list of known controllers');
  });

  it('createControllers always includes the token expirer', () => {
    const w = world();
    expect(createControllers(w.context, parseControllersFlag('tokencleaner'), w.fakeTimers).map((controller) => controller.name)).toEqual(['token-expiry', 'tokencleaner']);
  });
});
