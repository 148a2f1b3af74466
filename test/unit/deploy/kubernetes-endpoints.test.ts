// The `kubernetes` Endpoints: which address an API server advertises, how the live API servers
// become subsets, and the reconcile against a store (created, rewritten only on a change, left
// alone when nobody advertises).
import { describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { advertiseAddress, checkAdvertiseAddress, hostAddress } from '../../../deploy/advertise-address.ts';
import { ensureKubernetesEndpoints, kubernetesEndpointsKey, kubernetesEndpointSubsets } from '../../../deploy/kubernetes-service.ts';
import { ImmediateBackend } from '../api/harness.ts';

const interfaces = {
  lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
  eth0: [
    { address: 'fe80::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:42:ac:11:00:02', internal: false, cidr: 'fe80::1/64', scopeid: 2 },
    { address: '172.17.0.2', netmask: '255.255.0.0', family: 'IPv4', mac: '02:42:ac:11:00:02', internal: false, cidr: '172.17.0.2/16' },
  ],
} as const;

describe('advertise address', () => {
  it('is the flag, else a specific bind address, else the host address when binding everything, else none', () => {
    expect(advertiseAddress('10.1.2.3', '127.0.0.1', interfaces as never)).toBe('10.1.2.3');
    expect(advertiseAddress(undefined, '10.0.0.5', interfaces as never)).toBe('10.0.0.5');
    expect(advertiseAddress(undefined, '0.0.0.0', interfaces as never)).toBe('172.17.0.2');
    expect(advertiseAddress(undefined, '::', interfaces as never)).toBe('172.17.0.2');
    expect(advertiseAddress(undefined, '127.0.0.1', interfaces as never)).toBeUndefined();
    expect(hostAddress({ lo: interfaces.lo } as never)).toBeUndefined();
  });

  it('refuses what cannot be advertised', () => {
    expect(() => checkAdvertiseAddress('127.0.0.1')).toThrow('must be a routable address');
    expect(() => checkAdvertiseAddress('0.0.0.0')).toThrow('must be a routable address');
    expect(() => checkAdvertiseAddress('api.example')).toThrow('must be an IP address');
  });
});

describe('kubernetes Endpoints', () => {
  it('one subset per port, addresses sorted and unique', () => {
    expect(kubernetesEndpointSubsets([{ ip: '10.0.0.2', port: 6443 }, { ip: '10.0.0.1', port: 6443 }, { ip: '10.0.0.2', port: 6443 }, { ip: '10.0.0.3', port: 443 }])).toEqual([
      { addresses: [{ ip: '10.0.0.3' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
    ]);
  });

  it('is created, rewritten when the API servers change, and otherwise left as it is', async () => {
    const backend = new ImmediateBackend();
    const client = new StoreClient(backend);
    await client.propose({ type: 'create', key: { group: '', resource: 'namespaces', namespace: '', name: 'default' }, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', uid: 'u' } }, at: '2026-01-01T00:00:00Z' });
    await ensureKubernetesEndpoints(client, []);
    expect(client.get(kubernetesEndpointsKey)).toBeUndefined();

    await ensureKubernetesEndpoints(client, [{ ip: '10.0.0.1', port: 6443 }]);
    const created = client.get(kubernetesEndpointsKey);
    expect(created).toMatchObject({ kind: 'Endpoints', subsets: [{ addresses: [{ ip: '10.0.0.1' }] }], metadata: { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } });
    const proposals = backend.proposals;
    await ensureKubernetesEndpoints(client, [{ ip: '10.0.0.1', port: 6443 }]);
    expect(backend.proposals).toBe(proposals);

    await ensureKubernetesEndpoints(client, [{ ip: '10.0.0.2', port: 6443 }, { ip: '10.0.0.1', port: 6443 }]);
    const rewritten = client.get(kubernetesEndpointsKey);
    expect(rewritten?.metadata.uid).toBe(created?.metadata.uid);
    expect(rewritten?.['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    await ensureKubernetesEndpoints(client, []);
    expect(client.get(kubernetesEndpointsKey)?.['subsets']).toEqual(rewritten?.['subsets']);
  });
});
