// Leader duties given onLeadershipChange (as kstore store wires them to RaftNode.onRoleChange):
// no leadership poll runs; the duties start when the listener says this member leads (and
// create the system namespaces), stop when it says it no longer does, and start again on the
// next change; isLeader() is asked only at start and on a change.
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterState } from '../../../actors/index.ts';
import type { CommandResult } from '../../../actors/index.ts';
import { startLeaderDuties } from '../../../deploy/leader-duties.ts';
import type { LeaderDuties } from '../../../deploy/leader-duties.ts';
import { roleSwitch } from '../../support/role-switch.ts';
import { waitFor } from '../../support/wait-for.ts';

const running: LeaderDuties[] = [];
afterEach(async () => {
  for (const duties of running.splice(0)) await duties.stop();
});

const kubeSystem = { group: '', resource: 'namespaces', namespace: '', name: 'kube-system' };

function member() {
  const state = new ClusterState();
  let index = 0;
  const propose = async (data: Uint8Array) => {
    index += 1;
    return { index, result: state.apply({ index, term: 1, data }) as CommandResult };
  };
  return { state, propose, ...roleSwitch(false) };
}

describe('leader duties following a role listener', () => {
  it('start and stop on the listener\'s word, with no poll in between', async () => {
    const m = member();
    const logs: string[] = [];
    const duties = startLeaderDuties({
      state: m.state, isLeader: m.isLeader, onLeadershipChange: m.onLeadershipChange, propose: m.propose, controllers: [],
      // A poll, if one ran, would ask isLeader() every millisecond.
      pollMs: 1, log: (message) => logs.push(message),
    });
    running.push(duties);
    await waitFor(() => m.isLeaderCalls() >= 1, { timeoutMs: 5_000, description: 'the first look' });
    // Entries applied elsewhere (another member's writes) do not make it look again.
    await m.propose(new TextEncoder().encode(JSON.stringify({ version: 1, command: { type: 'create', key: { group: '', resource: 'namespaces', namespace: '', name: 'other' }, at: '2026-01-01T00:00:00Z', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other', uid: 'u-other' } } } })));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(m.isLeaderCalls()).toBe(1);
    expect(duties.running).toBe(false);

    m.set(true);
    await waitFor(() => duties.running && m.state.get(kubeSystem) !== undefined, { timeoutMs: 5_000, description: 'duties started, system namespaces created' });
    m.set(false);
    await waitFor(() => !duties.running, { timeoutMs: 5_000, description: 'duties stopped' });
    m.set(true);
    await waitFor(() => duties.running, { timeoutMs: 5_000, description: 'duties started again' });
    expect(logs.filter((message) => message === 'leader duties started')).toHaveLength(2);
    expect(logs.filter((message) => message === 'leader duties stopped')).toHaveLength(1);
    expect(m.isLeaderCalls()).toBe(4);

    await duties.stop();
    expect(duties.running).toBe(false);
    expect(m.listeners()).toBe(0);
  });
});
