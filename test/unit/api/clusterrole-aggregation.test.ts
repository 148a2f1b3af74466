// The clusterrole-aggregation-controller over the API harness with the bootstrap policy: admin,
// edit and view hold the union of their system:aggregate-to-* parts (admin ⊇ edit ⊇ view), a
// newly labelled ClusterRole joins, a removed label or deleted role leaves; selectors with
// matchExpressions; --controllers names.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ClusterRoleAggregationController, controllerNames, enabledControllers, labelSelectorMatches, parseControllersFlag,
} from '../../../actors/controllers/index.ts';
import type { ControllerContext } from '../../../actors/controllers/index.ts';
import { formatTime, StoreClient } from '../../../api/index.ts';
import { ensureRbacBootstrap } from '../../../deploy/rbac-bootstrap.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
let harness: Harness;
let controller: ClusterRoleAggregationController;

beforeEach(async () => {
  harness = await startHarness(['default']);
  await ensureRbacBootstrap(new StoreClient(harness.backend));
  const context: ControllerContext = {
    state: harness.backend.state, propose: (command) => harness.backend.propose(command), now: () => formatTime(new Date()), log: () => undefined,
  };
  controller = new ClusterRoleAggregationController(context);
  controller.start();
});
afterEach(async () => {
  await controller.stop();
  await harness.close();
});

async function rulesOf(name: string): Promise<unknown[]> {
  return (await harness.request('GET', `${rbac}/clusterroles/${name}`)).json().rules ?? [];
}

describe('clusterrole-aggregation-controller', () => {
  it('admin, edit and view aggregate their parts', async () => {
    const view = (await harness.request('GET', `${rbac}/clusterroles/system:aggregate-to-view`)).json().rules;
    const edit = (await harness.request('GET', `${rbac}/clusterroles/system:aggregate-to-edit`)).json().rules;
    const admin = (await harness.request('GET', `${rbac}/clusterroles/system:aggregate-to-admin`)).json().rules;
    await waitFor(async () => (await rulesOf('view')).length === view.length, { timeoutMs: 5_000, description: 'view aggregated' });
    expect(await rulesOf('view')).toEqual(view);
    await waitFor(async () => (await rulesOf('edit')).length === view.length + edit.length, { timeoutMs: 5_000, description: 'edit aggregated' });
    await waitFor(async () => (await rulesOf('admin')).length === view.length + edit.length + admin.length, { timeoutMs: 5_000, description: 'admin aggregated' });
    // admin holds edit's rules (edit is labelled aggregate-to-admin) and its own part.
    expect(await rulesOf('admin')).toEqual(expect.arrayContaining([...edit, ...admin, ...view]));
  });

  it('a labelled ClusterRole joins, and leaves when the label goes', async () => {
    const extra = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    await waitFor(async () => (await rulesOf('view')).length > 0, { timeoutMs: 5_000, description: 'view aggregated' });
    const created = await harness.request('POST', `${rbac}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [extra],
    });
    expect(created.statusCode).toBe(201);
    await waitFor(async () => (await rulesOf('view')).some((rule) => JSON.stringify(rule) === JSON.stringify(extra)), { timeoutMs: 5_000, description: 'view has widgets' });
    await waitFor(async () => (await rulesOf('admin')).some((rule) => JSON.stringify(rule) === JSON.stringify(extra)), { timeoutMs: 5_000, description: 'admin has widgets (through edit)' });
    const unlabelled = await harness.request('PATCH', `${rbac}/clusterroles/widgets-view`, { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': null } } }, { 'content-type': 'application/merge-patch+json' });
    expect(unlabelled.statusCode).toBe(200);
    await waitFor(async () => !(await rulesOf('view')).some((rule) => JSON.stringify(rule) === JSON.stringify(extra)), { timeoutMs: 5_000, description: 'view lost widgets' });
  });

  it('matches label selectors with expressions', () => {
    expect(labelSelectorMatches({ matchLabels: { a: '1' } }, { a: '1', b: '2' })).toBe(true);
    expect(labelSelectorMatches({ matchLabels: { a: '1' } }, { a: '2' })).toBe(false);
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' })).toBe(true);
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, { a: '1' })).toBe(false);
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, {})).toBe(false);
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, {})).toBe(true);
  });

  it('is in the default controller set, as clusterrole-aggregation', () => {
    expect(controllerNames).toContain('clusterrole-aggregation-controller');
    expect(enabledControllers(['*'])).toContain('clusterrole-aggregation-controller');
    expect(enabledControllers(parseControllersFlag('*,-clusterrole-aggregation'))).not.toContain('clusterrole-aggregation-controller');
  });
});
