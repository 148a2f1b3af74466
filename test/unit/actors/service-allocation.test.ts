// Service cluster IPs and node ports are allocated inside apply: the same committed entries give
// every replica the same addresses, a replica restored from a snapshot continues alike, and the
// rules (lowest free, reserved first address, requested IPs and ports, immutability) hold.
import { describe, expect, it } from 'vitest';
import { ClusterState, encodeCommand } from '../../../actors/index.ts';
import type { Command, CommandResult, KubeObject, ObjectKey } from '../../../actors/index.ts';
import { envelope, nsKey, objectFor, t0 } from './fixtures.ts';

function serviceKey(namespace: string, name: string): ObjectKey {
  return { group: '', resource: 'services', namespace, name };
}

function service(key: ObjectKey, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: key.name, namespace: key.namespace, uid: `uid-${key.name}`, creationTimestamp: t0 }, spec: { type: 'ClusterIP', clusterIP: '', ports: [{ port: 80 }], ...spec } } as KubeObject;
}

class Replica {
  readonly state = new ClusterState();
  index = 0;
  apply(command: Command): CommandResult {
    this.index++;
    return this.state.apply({ index: this.index, term: 1, data: encodeCommand(envelope(command)) });
  }
}

function clusterIp(result: CommandResult): unknown {
  expect(result.type).toBe('stored');
  return result.type === 'stored' ? (result.object['spec'] as Record<string, unknown>)['clusterIP'] : undefined;
}

describe('service allocation in apply', () => {
  it('gives replicas the same addresses and survives a snapshot', () => {
    const commands: Command[] = [
      { type: 'create', key: nsKey('a'), object: objectFor(nsKey('a')), at: t0 },
      ...Array.from({ length: 5 }, (_, index): Command => ({ type: 'create', key: serviceKey('a', `s${index}`), object: service(serviceKey('a', `s${index}`)), at: t0 })),
      { type: 'delete', key: serviceKey('a', 's1'), at: t0 },
    ];
    const left = new Replica();
    const right = new Replica();
    const leftIps = commands.map((command) => left.apply(command));
    const rightIps = commands.map((command) => right.apply(command));
    expect(leftIps).toEqual(rightIps);
    expect(leftIps.slice(1, 6).map(clusterIp)).toEqual(['10.96.0.2', '10.96.0.3', '10.96.0.4', '10.96.0.5', '10.96.0.6']);
    const restored = new ClusterState();
    restored.restore(left.state.snapshot(), left.index);
    const next: Command = { type: 'create', key: serviceKey('a', 'late'), object: service(serviceKey('a', 'late')), at: t0 };
    const fromSnapshot = restored.apply({ index: left.index + 1, term: 1, data: encodeCommand(envelope(next)) });
    expect(clusterIp(fromSnapshot)).toBe('10.96.0.3');
    expect(clusterIp(left.apply(next))).toBe('10.96.0.3');
  });

  it('refuses a taken IP or node port and a changed cluster IP, keeps an omitted one', () => {
    const replica = new Replica();
    replica.apply({ type: 'create', key: nsKey('a'), object: objectFor(nsKey('a')), at: t0 });
    const first = replica.apply({ type: 'create', key: serviceKey('a', 'x'), object: service(serviceKey('a', 'x'), { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), at: t0 });
    expect(clusterIp(first)).toBe('10.96.0.2');
    const taken = replica.apply({ type: 'create', key: serviceKey('a', 'y'), object: service(serviceKey('a', 'y'), { clusterIP: '10.96.0.2' }), at: t0 });
    expect(taken).toMatchObject({ type: 'invalid', message: expect.stringContaining('provided IP is already allocated') });
    const port = replica.apply({ type: 'create', key: serviceKey('a', 'z'), object: service(serviceKey('a', 'z'), { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), at: t0 });
    expect(port).toMatchObject({ type: 'invalid', message: expect.stringContaining('provided port is already allocated') });
    const headless = replica.apply({ type: 'create', key: serviceKey('a', 'h'), object: service(serviceKey('a', 'h'), { clusterIP: 'None' }), at: t0 });
    expect(clusterIp(headless)).toBe('None');
    const changed = replica.apply({ type: 'update', key: serviceKey('a', 'x'), object: service(serviceKey('a', 'x'), { clusterIP: '10.96.0.9', type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), at: t0 });
    expect(changed).toMatchObject({ type: 'invalid', message: expect.stringContaining('may not change once set') });
    const kept = replica.apply({ type: 'update', key: serviceKey('a', 'x'), object: service(serviceKey('a', 'x'), { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }, { port: 81 }] }), at: t0 });
    expect(clusterIp(kept)).toBe('10.96.0.2');
    expect(kept.type === 'stored' && (kept.object['spec'] as { ports: { nodePort: number }[] }).ports.map((p) => p.nodePort)).toEqual([30080, 30000]);
    const reserved = replica.apply({ type: 'create', key: serviceKey('a', 'k'), object: service(serviceKey('a', 'k'), { clusterIP: '10.96.0.1' }), at: t0 });
    expect(clusterIp(reserved)).toBe('10.96.0.1');
  });
});
