// Strategic merge reads each kind's schema (x-kubernetes-patch-strategy and
// x-kubernetes-patch-merge-key, built from kube's generated types), not a table of field names:
// the same field name merges differently in different kinds, new kinds merge as kube merges
// them with no table to extend, and a `replace` strategy replaces the value whole.
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../actors/index.ts';
import { strategicMerge } from '../../../api/patch/merge-patch.ts';
import { findKind } from '../../../api/registry/kinds.ts';

function schemaOf(group: string, version: string, resource: string) {
  const kind = findKind(group, version, resource);
  if (kind === undefined) throw new Error(`${resource} is not served`);
  return kind.schema;
}

describe('strategic merge driven by the kind schema', () => {
  it('merges webhooks by name (admissionregistration.k8s.io, a kind no table named)', () => {
    const live = { webhooks: [{ name: 'a.example.com', timeoutSeconds: 10 }, { name: 'b.example.com', timeoutSeconds: 10 }] } as JsonValue;
    const merged = strategicMerge(live, { webhooks: [{ name: 'b.example.com', timeoutSeconds: 5 }] }, schemaOf('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations'));
    expect(merged).toEqual({ webhooks: [{ name: 'a.example.com', timeoutSeconds: 10 }, { name: 'b.example.com', timeoutSeconds: 5 }] });
  });

  it('replaces a PodDisruptionBudget selector whole (patch strategy replace)', () => {
    const live = { spec: { minAvailable: 1, selector: { matchLabels: { app: 'web', tier: 'front' } } } } as JsonValue;
    const merged = strategicMerge(live, { spec: { selector: { matchLabels: { app: 'api' } } } }, schemaOf('policy', 'v1', 'poddisruptionbudgets'));
    expect(merged).toEqual({ spec: { minAvailable: 1, selector: { matchLabels: { app: 'api' } } } });
    // Without the strategy a selector's labels merge.
    const deployment = strategicMerge(live, { spec: { selector: { matchLabels: { app: 'api' } } } }, schemaOf('apps', 'v1', 'deployments'));
    expect(deployment).toEqual({ spec: { minAvailable: 1, selector: { matchLabels: { app: 'api', tier: 'front' } } } });
  });

  it('merges ports by containerPort in a container and by port in a Service', () => {
    const pod = { spec: { containers: [{ name: 'c', image: 'a', ports: [{ containerPort: 80, name: 'http' }] }] } } as JsonValue;
    expect(strategicMerge(pod, { spec: { containers: [{ name: 'c', ports: [{ containerPort: 443, name: 'https' }] }] } }, schemaOf('', 'v1', 'pods')))
      .toEqual({ spec: { containers: [{ name: 'c', image: 'a', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }] }] } });
    const service = { spec: { ports: [{ port: 80, targetPort: 8080 }] } } as JsonValue;
    expect(strategicMerge(service, { spec: { ports: [{ port: 80, targetPort: 9090 }] } }, schemaOf('', 'v1', 'services')))
      .toEqual({ spec: { ports: [{ port: 80, targetPort: 9090 }] } });
  });

  it('merges a Deployment template\'s containers by name and unions finalizers', () => {
    const live = { metadata: { finalizers: ['a'] }, spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'log', image: 'fluent' }] } } } } as JsonValue;
    const merged = strategicMerge(live, { metadata: { finalizers: ['b'] }, spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } }, schemaOf('apps', 'v1', 'deployments'));
    expect(merged).toEqual({ metadata: { finalizers: ['a', 'b'] }, spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }, { name: 'log', image: 'fluent' }] } } } });
  });

  it('replaces a list without a merge strategy (Ingress rules) and any list without a schema', () => {
    const live = { spec: { rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }] } } as JsonValue;
    expect(strategicMerge(live, { spec: { rules: [{ host: 'c.example.com' }] } }, schemaOf('networking.k8s.io', 'v1', 'ingresses')))
      .toEqual({ spec: { rules: [{ host: 'c.example.com' }] } });
    expect(strategicMerge({ spec: { containers: [{ name: 'a' }] } }, { spec: { containers: [{ name: 'b' }] } }, undefined))
      .toEqual({ spec: { containers: [{ name: 'b' }] } });
  });
});
