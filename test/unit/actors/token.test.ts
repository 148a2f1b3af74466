// The bootstrap token lifecycle: the xstate machine on its own, and as part of a token secret's
// record under apply (expireTokens commands carry the time; replicas and snapshots agree).
import { describe, expect, it } from 'vitest';
import { ClusterState, tokenStatechart, tokenWaitingFor, tryDecodeCommand, encodeCommand, commandVersion } from '../../../actors/index.ts';
import type { ChangeEvent, Command, KubeObject, ObjectKey } from '../../../actors/index.ts';
import { advanceToken, initialToken } from '../../../actors/machines/token.ts';
import { tokenGroups } from '../../../actors/machines/token-secret.ts';
import { at, copy, create, entry, nsKey, remove, t0, update } from './fixtures.ts';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function tokenKey(id: string, namespace = 'kube-system'): ObjectKey {
  return { group: '', resource: 'secrets', namespace, name: `bootstrap-token-${id}` };
}

function tokenSecret(key: ObjectKey, data: Record<string, string>, type = 'bootstrap.kubernetes.io/token'): KubeObject {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: key.name, namespace: key.namespace, uid: `uid-${key.name}`, creationTimestamp: t0 }, type, data: encoded };
}

/** A ClusterState fed consecutive entries, with the events it emitted. */
function cluster() {
  const state = new ClusterState();
  const events: ChangeEvent[] = [];
  state.subscribe((batch) => events.push(...batch));
  let index = 0;
  const apply = (command: Command) => state.apply(entry(++index, command));
  apply(create(nsKey('kube-system')));
  apply(create(nsKey('default')));
  return { state, events, apply, index: () => index };
}

describe('token machine', () => {
  it('valid → expired only when the command time reaches the expiration; expired → deleted', () => {
    let token = initialToken({ tokenId: 'abcdef', expiration: at(60) });
    expect(token.value).toBe('valid');
    token = advanceToken(token, { type: 'EXPIRE', at: at(59) });
    expect(token.value).toBe('valid');
    token = advanceToken(token, { type: 'EXPIRE', at: at(60) });
    expect(token.value).toBe('expired');
    expect(token.context.expiredAt).toBe(at(60));
    // An expired token stays expired even if its expiration moves later.
    token = advanceToken(token, { type: 'EXPIRATION_CHANGED', expiration: at(3600) });
    expect(token.value).toBe('expired');
    expect(token.context.expiration).toBe(at(3600));
    token = advanceToken(token, { type: 'DELETE', at: at(61) });
    expect(token.value).toBe('deleted');
    expect(advanceToken(token, { type: 'EXPIRE', at: at(9999) })).toEqual(token);
  });

  it('a valid token deleted before it expires ends deleted, and nothing moves it afterwards', () => {
    const deleted = advanceToken(initialToken({ tokenId: 'abcdef', expiration: at(60) }), { type: 'DELETE', at: at(5) });
    expect(deleted.value).toBe('deleted');
    expect(deleted.context).toEqual({ tokenId: 'abcdef', expiration: at(60), expiredAt: null, deletedAt: at(5) });
    expect(advanceToken(deleted, { type: 'EXPIRATION_CHANGED', expiration: null })).toEqual(deleted);
  });

  it('never expires without an expiration; an unparseable expiration counts as reached; offsets are honoured', () => {
    expect(advanceToken(initialToken({ tokenId: 'abcdef', expiration: null }), { type: 'EXPIRE', at: at(1e9) }).value).toBe('valid');
    expect(advanceToken(initialToken({ tokenId: 'abcdef', expiration: 'tomorrow' }), { type: 'EXPIRE', at: t0 }).value).toBe('expired');
    // 01:00+01:00 is 00:00Z: reached at t0, not a second before.
    const offset = initialToken({ tokenId: 'abcdef', expiration: '2026-01-01T01:00:00+01:00' });
    expect(advanceToken(offset, { type: 'EXPIRE', at: '2025-12-31T23:59:59Z' }).value).toBe('valid');
    expect(advanceToken(offset, { type: 'EXPIRE', at: t0 }).value).toBe('expired');
  });

  it('has a statechart and says what it waits for', () => {
    expect(tokenStatechart.initial).toBe('valid');
    expect(tokenStatechart.states.map((state) => [state.name, state.final])).toEqual([['valid', false], ['expired', false], ['deleted', true]]);
    expect(tokenStatechart.states[0]?.transitions).toContainEqual({ event: 'EXPIRE', guard: 'expirationReached', when: 'the expiration is at or before the command time', target: 'expired' });
    expect(tokenWaitingFor({ value: 'valid', context: { tokenId: 'abcdef', expiration: at(60), expiredAt: null, deletedAt: null } })).toBe(`valid: waiting for the expiration ${at(60)}`);
    expect(tokenWaitingFor({ value: 'expired', context: { tokenId: 'abcdef', expiration: at(60), expiredAt: at(60), deletedAt: null } })).toMatch(/token cleaner/);
  });

  it('reads groups as kube does: system:bootstrappers first, trimmed, deduplicated, invalid ones reported', () => {
    expect(tokenGroups({ 'auth-extra-groups': 'system:bootstrappers:a, system:bootstrappers:b,system:bootstrappers:a' }))
      .toEqual({ groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:b'], invalid: [] });
    expect(tokenGroups({ 'auth-extra-groups': 'system:masters' }).invalid).toEqual(['system:masters']);
    expect(tokenGroups({}).groups).toEqual(['system:bootstrappers']);
  });
});

describe('token lifecycle in apply', () => {
  const key = tokenKey('abcdef');
  const data = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', expiration: at(60), 'usage-bootstrap-authentication': 'true' };

  it('a token secret starts valid; expireTokens at T expires exactly the tokens due by T, as a MODIFIED event with the lifecycle', () => {
    const c = cluster();
    c.apply(create(key, tokenSecret(key, data), t0));
    const later = tokenKey('zzzzzz');
    c.apply(create(later, tokenSecret(later, { ...data, 'token-id': 'zzzzzz', expiration: at(3600) })));
    const forever = tokenKey('nnnnnn');
    c.apply(create(forever, tokenSecret(forever, { 'token-id': 'nnnnnn', 'token-secret': '0123456789abcdef' })));
    expect(c.state.lifecycleOf(key)?.token).toMatchObject({ state: 'valid', context: { tokenId: 'abcdef', expiration: at(60) }, transitions: [{ event: 'CREATE', from: null, to: 'valid' }] });
    // A ConfigMap and a plain secret have no token machine.
    expect(c.state.lifecycleOf({ group: '', resource: 'namespaces', namespace: '', name: 'default' })?.token).toBeUndefined();

    c.events.length = 0;
    expect(c.apply({ type: 'expireTokens', at: at(59), by: 'system:serviceaccount:kube-system:token-cleaner' })).toEqual({ type: 'noop', revision: c.index() });
    expect(c.events).toEqual([]);
    expect(c.state.lifecycleOf(key)?.token?.state).toBe('valid');

    const before = c.state.get(key)!;
    c.apply({ type: 'expireTokens', at: at(60), by: 'system:serviceaccount:kube-system:token-cleaner' });
    expect(c.events).toHaveLength(1);
    const event = c.events[0]!;
    expect(event).toMatchObject({ type: 'MODIFIED', key, revision: c.index() });
    expect(event.object.metadata.resourceVersion).toBe(String(c.index()));
    expect({ ...event.object, metadata: { ...event.object.metadata, resourceVersion: '' } }).toEqual({ ...before, metadata: { ...before.metadata, resourceVersion: '' } });
    expect(event.lifecycle?.token).toMatchObject({ state: 'expired', context: { expiredAt: at(60) } });
    expect(event.lifecycle?.token?.transitions.at(-1)).toEqual({ event: 'EXPIRE', from: 'valid', to: 'expired', revision: c.index(), at: at(60), by: 'system:serviceaccount:kube-system:token-cleaner' });
    expect(c.state.lifecycleOf(later)?.token?.state).toBe('valid');
    expect(c.state.lifecycleOf(forever)?.token?.state).toBe('valid');

    // A second expire at the same time changes nothing more.
    c.events.length = 0;
    c.apply({ type: 'expireTokens', at: at(61) });
    expect(c.events).toEqual([]);

    // Deleting it ends the token machine in deleted; the DELETED event carries it.
    c.apply(remove(key, { uid: 'uid-bootstrap-token-abcdef' }, at(62)));
    expect(c.events.at(-1)).toMatchObject({ type: 'DELETED', lifecycle: { state: 'removed', token: { state: 'deleted', context: { deletedAt: at(62) } } } });
  });

  it('an update of the expiration is recorded; a token outside kube-system or of another type has no machine', () => {
    const c = cluster();
    c.apply(create(key, tokenSecret(key, data)));
    const stored = copy(c.state.get(key)!);
    (stored['data'] as Record<string, string>)['expiration'] = b64(at(120));
    c.apply(update(key, stored));
    expect(c.state.lifecycleOf(key)?.token).toMatchObject({ state: 'valid', context: { expiration: at(120) } });
    expect(c.state.lifecycleOf(key)?.token?.transitions.at(-1)).toMatchObject({ event: 'EXPIRATION_CHANGED', from: 'valid', to: 'valid' });
    c.apply({ type: 'expireTokens', at: at(60) });
    expect(c.state.lifecycleOf(key)?.token?.state).toBe('valid');

    const elsewhere = tokenKey('abcdef', 'default');
    c.apply(create(elsewhere, tokenSecret(elsewhere, data)));
    expect(c.state.lifecycleOf(elsewhere)?.token).toBeUndefined();
    const opaque = tokenKey('qqqqqq');
    c.apply(create(opaque, tokenSecret(opaque, data, 'Opaque')));
    expect(c.state.lifecycleOf(opaque)?.token).toBeUndefined();
    c.apply({ type: 'expireTokens', at: at(1e6) });
    expect(c.state.get(opaque)?.metadata.resourceVersion).not.toBe(String(c.index()));
  });

  it('is deterministic: two replicas and a snapshot restore agree byte for byte', () => {
    const commands: Command[] = [
      create(nsKey('kube-system')),
      create(key, tokenSecret(key, data)),
      create(tokenKey('bbbbbb'), tokenSecret(tokenKey('bbbbbb'), { ...data, 'token-id': 'bbbbbb', expiration: at(30) })),
      { type: 'expireTokens', at: at(45) },
      { type: 'expireTokens', at: at(90) },
      remove(tokenKey('bbbbbb'), undefined, at(91)),
    ];
    const a = new ClusterState();
    commands.forEach((command, i) => a.apply(entry(i + 1, command)));
    // b applies the first three, is snapshotted and restored into c, which applies the rest.
    const b = new ClusterState();
    commands.slice(0, 3).forEach((command, i) => b.apply(entry(i + 1, command)));
    const c = new ClusterState();
    c.restore(b.snapshot(), 3);
    commands.slice(3).forEach((command, i) => c.apply(entry(i + 4, command)));
    expect(new TextDecoder().decode(c.snapshot())).toBe(new TextDecoder().decode(a.snapshot()));
    expect(c.lifecycleOf(tokenKey('bbbbbb'))).toBeUndefined();
    expect(a.lifecycleOf(key)?.token?.state).toBe('expired');
  });

  it('command check accepts expireTokens only with an RFC 3339 time', () => {
    const bytes = (command: unknown) => encodeCommand({ version: commandVersion, command: command as Command });
    expect(tryDecodeCommand(bytes({ type: 'expireTokens', at: t0 })).ok).toBe(true);
    expect(tryDecodeCommand(bytes({ type: 'expireTokens', at: 'soon' }))).toMatchObject({ ok: false, message: 'malformed command: at must be an RFC 3339 date-time' });
    expect(tryDecodeCommand(bytes({ type: 'expireTokens', at: t0, by: 7 })).ok).toBe(false);
  });
});
