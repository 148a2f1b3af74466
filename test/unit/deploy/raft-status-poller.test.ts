// Owns: unit tests of deploy/raft-status-poller.ts with a scripted status source (no NATS), and
// of the labelled gauges it feeds into the API tier's Prometheus registry.
import { describe, expect, it } from 'vitest';
import { ApiMetrics } from '../../../api/metrics.ts';
import { RaftStatusPoller } from '../../../deploy/raft-status-poller.ts';
import type { MemberStatus } from '../../../raft/index.ts';

function member(id: string, role: MemberStatus['role'], term: number, applied: number): MemberStatus {
  return { id, role, term, leaderId: undefined, commitIndex: applied + 1, appliedIndex: applied, lastIndex: applied + 1, failure: undefined, cluster: 'c', group: 'g' };
}

class ScriptedSource {
  answers: MemberStatus[][] = [];
  async clusterStatus(): Promise<MemberStatus[]> {
    const next = this.answers.shift();
    if (next === undefined) throw new Error('no answer');
    return next;
  }
}

describe('RaftStatusPoller', () => {
  it('keeps each member\'s last status, counts leader changes, drops members that stopped answering', async () => {
    const source = new ScriptedSource();
    let clock = 0;
    const poller = new RaftStatusPoller({ source, intervalMs: 1_000, staleAfterMs: 2_500, now: () => clock });
    source.answers.push([member('s1', 'leader', 1, 10), member('s2', 'follower', 1, 9), member('s3', 'follower', 1, 8)]);
    await poller.gather();
    expect(poller.members().map((status) => status.id)).toEqual(['s1', 's2', 's3']);
    expect(poller.leaderChanges()).toBe(0);

    // s1 dies: s2 leads term 2; s1 keeps its last answer until it is stale.
    clock = 1_000;
    source.answers.push([member('s2', 'leader', 2, 20), member('s3', 'follower', 2, 20)]);
    await poller.gather();
    expect(poller.leaderChanges()).toBe(1);
    expect(poller.members().find((status) => status.id === 's1')?.appliedIndex).toBe(10);
    // s1's last answer says leader of term 1; it is not reported as a leader next to s2 of term 2.
    const metrics = new ApiMetrics();
    metrics.addGauges(poller.gauges());
    const text = await metrics.registry.metrics();
    expect(text).toContain('kstore_raft_is_leader{member="s1"} 0');
    expect(text).toContain('kstore_raft_is_leader{member="s2"} 1');

    // A failed gather changes nothing; a stale member drops out.
    clock = 2_000;
    await poller.gather();
    clock = 3_600;
    source.answers.push([member('s2', 'leader', 2, 30), member('s3', 'follower', 2, 30)]);
    await poller.gather();
    expect(poller.members().map((status) => status.id)).toEqual(['s2', 's3']);
    expect(poller.leaderChanges()).toBe(1);

    // The same member elected again in a higher term is a leader change too.
    source.answers.push([member('s2', 'leader', 3, 31)]);
    await poller.gather();
    expect(poller.leaderChanges()).toBe(2);
  });

  it('feeds per-member gauges into /metrics', async () => {
    const source = new ScriptedSource();
    source.answers.push([member('s1', 'leader', 4, 100), member('s2', 'follower', 4, 99)]);
    const poller = new RaftStatusPoller({ source });
    await poller.gather();
    const metrics = new ApiMetrics();
    metrics.addGauges(poller.gauges());
    const text = await metrics.registry.metrics();
    expect(text).toContain('kstore_raft_term{member="s1"} 4');
    expect(text).toContain('kstore_raft_applied_index{member="s2"} 99');
    expect(text).toContain('kstore_raft_commit_index{member="s1"} 101');
    expect(text).toContain('kstore_raft_is_leader{member="s1"} 1');
    expect(text).toContain('kstore_raft_is_leader{member="s2"} 0');
    expect(text).toMatch(/^kstore_raft_leader_changes 0$/m);
  });
});
