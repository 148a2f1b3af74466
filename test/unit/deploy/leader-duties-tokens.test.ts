// The HA store leader's duties run the token controllers: the token expirer always, the token
// cleaner and bootstrap signer when --controllers names them; a member that does not lead runs
// none of them.
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterState, decodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult } from '../../../actors/index.ts';
import { parseControllersFlag } from '../../../actors/controllers/index.ts';
import { startLeaderDuties } from '../../../deploy/leader-duties.ts';
import type { LeaderDuties } from '../../../deploy/leader-duties.ts';
import { waitFor } from '../../support/wait-for.ts';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const tokenKey = { group: '', resource: 'secrets', namespace: 'kube-system', name: 'bootstrap-token-abcdef' };

function member() {
  const state = new ClusterState();
  let index = 0;
  const commands: Command[] = [];
  const propose = async (data: Uint8Array) => {
    const command = decodeCommand(data).command;
    commands.push(command);
    index += 1;
    return { index, result: state.apply({ index, term: 1, data }) as CommandResult };
  };
  return { state, propose, commands };
}

const running: LeaderDuties[] = [];
afterEach(async () => {
  for (const duties of running.splice(0)) await duties.stop();
});

async function withExpiredToken(controllers: string | undefined, leads = true) {
  const m = member();
  const logs: { message: string; fields?: Record<string, unknown> }[] = [];
  let polls = 0;
  const duties = startLeaderDuties({
    state: m.state, isLeader: () => { polls += 1; return leads; }, propose: m.propose, pollMs: 10,
    log: (message, fields) => logs.push({ message, ...(fields === undefined ? {} : { fields }) }),
    ...(controllers === undefined ? {} : { controllers: parseControllersFlag(controllers) }),
  });
  running.push(duties);
  const started = () => logs.find((entry) => entry.message === 'leader duties started')?.fields?.['controllers'];
  if (!leads) return { m, duties, started, polls: () => polls };
  await waitFor(() => m.state.get({ group: '', resource: 'namespaces', namespace: '', name: 'kube-system' }) !== undefined, { timeoutMs: 5_000, description: 'system namespaces' });
  await m.propose(new TextEncoder().encode(JSON.stringify({
    version: 1,
    command: {
      type: 'create', key: tokenKey, at: '2026-01-01T00:00:00Z',
      object: {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: tokenKey.name, namespace: 'kube-system', uid: 'u1' }, type: 'bootstrap.kubernetes.io/token',
        data: { 'token-id': b64('abcdef'), 'token-secret': b64('0123456789abcdef'), expiration: b64('2026-01-01T00:00:01Z') },
      },
    },
  })));
  return { m, duties, started, polls: () => polls };
}

describe('leader duties and bootstrap tokens', () => {
  it('with tokencleaner enabled: the leader expires the token, then deletes it', async () => {
    const { m, started } = await withExpiredToken('*,tokencleaner');
    expect(started()).toEqual(['token-expiry', 'namespace-lifecycle', 'garbage-collector', 'pod-garbage-collector', 'serviceaccount', 'clusterrole-aggregation', 'csrapproving', 'csrcleaner', 'tokencleaner']);
    await waitFor(() => m.state.get(tokenKey) === undefined, { timeoutMs: 5_000, description: 'the expired token deleted' });
    const kinds = m.commands.map((command) => command.type);
    expect(kinds.indexOf('expireTokens')).toBeGreaterThan(-1);
    expect(kinds.lastIndexOf('delete')).toBeGreaterThan(kinds.indexOf('expireTokens'));
  });

  it('by default (tokencleaner off, as kube-controller-manager): expired, not deleted', async () => {
    const { m, started } = await withExpiredToken(undefined);
    expect(started()).toEqual(['token-expiry', 'namespace-lifecycle', 'garbage-collector', 'pod-garbage-collector', 'serviceaccount', 'clusterrole-aggregation', 'csrapproving', 'csrcleaner']);
    await waitFor(() => m.state.lifecycleOf(tokenKey)?.token?.state === 'expired', { timeoutMs: 5_000, description: 'the token expired' });
    expect(m.state.get(tokenKey)).toBeDefined();
    expect(m.commands.some((command) => command.type === 'delete')).toBe(false);
  });

  it('a member that does not lead proposes nothing', async () => {
    const { m, duties, polls, started } = await withExpiredToken('*,tokencleaner', false);
    await waitFor(() => polls() >= 3, { timeoutMs: 5_000, description: 'a few leadership polls' });
    expect(duties.running).toBe(false);
    expect(started()).toBeUndefined();
    expect(m.commands).toEqual([]);
  });
});
