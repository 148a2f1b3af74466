// keepRbacBootstrap, the periodic check of the bootstrap RBAC policy every API server runs:
// a round (a read barrier and a reconcile of every default ClusterRole and binding) runs at
// start, then at a check only when a ClusterRole or ClusterRoleBinding changed since the
// previous round began, or the replica's copy re-synced; a deleted default still comes back at
// the next check. Fake timers stand in for the 10 s period.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { keepRbacBootstrap, rbacBootstrapIntervalMs } from '../../../deploy/rbac-bootstrap.ts';
import { ImmediateBackend } from '../api/harness.ts';

/** Counts rounds: each begins with a read barrier. */
class CountingBackend extends ImmediateBackend {
  rounds = 0;
  override async readIndex(): Promise<number> {
    this.rounds += 1;
    return super.readIndex();
  }
}

const basicUser = { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name: 'system:basic-user' };
const configMap = { group: '', resource: 'configmaps', namespace: 'default', name: 'unrelated' };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('keepRbacBootstrap', () => {
  it('runs a round at a check only after an RBAC change or a re-sync', async () => {
    const backend = new CountingBackend();
    const keeper = keepRbacBootstrap(new StoreClient(backend), () => {});
    try {
      await vi.advanceTimersByTimeAsync(0);
      expect(backend.rounds).toBe(1);
      expect(backend.get(basicUser)).toBeDefined();
      // The first round's own creates are changes: the next check runs a round, which finds nothing to do.
      const proposalsAfterFirst = backend.proposals;
      await vi.advanceTimersByTimeAsync(rbacBootstrapIntervalMs);
      expect(backend.rounds).toBe(2);
      expect(backend.proposals).toBe(proposalsAfterFirst);

      // Nothing changed: checks pass without a round; other writes do not count.
      await backend.propose({ type: 'create', key: configMap, at: '2026-01-01T00:00:00Z', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated', namespace: 'default', uid: 'u1' } } });
      await vi.advanceTimersByTimeAsync(3 * rbacBootstrapIntervalMs);
      expect(backend.rounds).toBe(2);

      // A default deleted: the next check puts it back.
      await backend.propose({ type: 'delete', key: basicUser, at: '2026-01-01T00:00:00Z' });
      expect(backend.get(basicUser)).toBeUndefined();
      await vi.advanceTimersByTimeAsync(rbacBootstrapIntervalMs);
      expect(backend.rounds).toBe(3);
      expect(backend.get(basicUser)).toBeDefined();

      // Its own create was a change: one more round, then quiet again.
      await vi.advanceTimersByTimeAsync(3 * rbacBootstrapIntervalMs);
      expect(backend.rounds).toBe(4);

      // A re-sync of the replica's copy: the next check runs a round.
      backend.simulateResync('test');
      await vi.advanceTimersByTimeAsync(rbacBootstrapIntervalMs);
      expect(backend.rounds).toBe(5);
    } finally {
      keeper.stop();
    }
  });
});
