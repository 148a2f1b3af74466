// Owns: the Service allocations kube-apiserver makes — a cluster IP from the service CIDR and
// node ports from the node port range — done inside apply, so that the choice is part of the
// replicated state machine: every replica picks the same address from the same state, and two
// API replicas proposing concurrently can never be handed the same IP (the second create is
// applied after the first and sees it). Allocation is deterministic: the lowest free address
// (or port), not kube's random pick. The used set is derived from the stored Services on each
// allocation (a scan of the services range, O(services)); an index kept in the state and its
// snapshot would make it O(log n) when that matters.
// The ranges are replicated behaviour, hence constants here and not API-tier flags: kube's
// flag-free defaults, --service-cluster-ip-range 10.96.0.0/12 and --service-node-port-range
// 30000-32767.
// Must not: read a clock, random numbers or I/O (apply must be deterministic).
import type { JsonValue, KubeObject, ObjectKey } from './object.ts';
import { keyString } from './object.ts';

export const serviceClusterIpRange = '10.96.0.0/12';
export const nodePortRange = { base: 30000, size: 2768 } as const;

/** The store view allocation needs: every stored Service. */
export interface ServiceSource {
  range(prefix: string): readonly { readonly key: ObjectKey; readonly object: KubeObject }[];
}

export type Allocation = { readonly ok: true; readonly object: KubeObject } | { readonly ok: false; readonly message: string };

export function isServiceKey(key: ObjectKey): boolean {
  return key.group === '' && key.resource === 'services';
}

interface Cidr {
  readonly base: number;
  readonly size: number;
}

function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function parseCidr(text: string): Cidr {
  const [address = '', bits = ''] = text.split('/');
  const size = 2 ** (32 - Number(bits));
  return { base: Math.floor(parseIpv4(address)! / size) * size, size };
}

const cidr = parseCidr(serviceClusterIpRange);

/** The first address after the network address: reserved for the `kubernetes` Service. */
export const kubernetesServiceIp = formatIpv4(cidr.base + 1);

type Fields = Record<string, JsonValue>;

function specOf(object: KubeObject): Fields {
  const spec = object['spec'];
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Fields) : {};
}

function clusterIpsOf(object: KubeObject): string[] {
  const spec = specOf(object);
  const ips = Array.isArray(spec['clusterIPs']) ? spec['clusterIPs'].filter((ip): ip is string => typeof ip === 'string') : [];
  if (typeof spec['clusterIP'] === 'string' && spec['clusterIP'] !== '') ips.push(spec['clusterIP']);
  return ips.filter((ip) => ip !== 'None');
}

function portsOf(object: KubeObject): Fields[] {
  const ports = specOf(object)['ports'];
  return Array.isArray(ports) ? ports.filter((port): port is Fields => port !== null && typeof port === 'object' && !Array.isArray(port)) : [];
}

function wantsNodePorts(spec: Fields): boolean {
  return spec['type'] === 'NodePort' || (spec['type'] === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] !== false);
}

/**
 * Allocates what `object` (a Service about to be stored at `key`) asks for: a cluster IP when
 * spec.clusterIP is empty (none for ExternalName and headless `None`), a check that a requested
 * one is in range and free, and node ports for NodePort and LoadBalancer services likewise. An
 * update keeps the stored cluster IP (it is immutable) and may not change it.
 */
export function allocateService(services: ServiceSource, key: ObjectKey, object: KubeObject, stored?: KubeObject): Allocation {
  const self = keyString(key);
  const others = services.range('/services/').filter((record) => keyString(record.key) !== self);
  const spec: Fields = { ...specOf(object) };
  const type = spec['type'] ?? 'ClusterIP';
  let requested = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
  if (stored !== undefined) {
    const before = specOf(stored)['clusterIP'];
    const beforeIp = typeof before === 'string' ? before : '';
    // An update that leaves the allocated IP out keeps it (kube's patchAllocatedValues).
    if (requested === '' && type !== 'ExternalName') requested = spec['clusterIP'] = beforeIp;
    if (type !== 'ExternalName' && beforeIp !== '' && requested !== beforeIp) {
      return { ok: false, message: `spec.clusterIPs[0]: Invalid value: ${JSON.stringify(requested)}: may not change once set` };
    }
  }
  if (type !== 'ExternalName' && requested !== 'None') {
    const used = new Set(others.flatMap((record) => clusterIpsOf(record.object)));
    if (requested === '') {
      let found: string | undefined;
      // Offset 0 is the network address, 1 the kubernetes Service's, the last the broadcast.
      for (let offset = 2; offset < cidr.size - 1 && found === undefined; offset++) {
        const candidate = formatIpv4(cidr.base + offset);
        if (!used.has(candidate)) found = candidate;
      }
      if (found === undefined) return { ok: false, message: `spec.clusterIPs: Internal error: failed to allocate a serviceIP: range is full` };
      spec['clusterIP'] = found;
    } else if (stored === undefined || specOf(stored)['clusterIP'] !== requested) {
      const value = parseIpv4(requested);
      if (value === undefined || value <= cidr.base || value >= cidr.base + cidr.size - 1) {
        return { ok: false, message: `spec.clusterIPs: Invalid value: ${JSON.stringify([requested])}: failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${serviceClusterIpRange}` };
      }
      if (used.has(requested)) return { ok: false, message: `spec.clusterIPs: Invalid value: ${JSON.stringify([requested])}: failed to allocate IP ${requested}: provided IP is already allocated` };
    }
    spec['clusterIPs'] = [spec['clusterIP'] as string];
  }
  if (wantsNodePorts(spec)) {
    const used = new Set(others.flatMap((record) => portsOf(record.object).map((port) => port['nodePort'])).filter((port) => typeof port === 'number' && port > 0));
    const ports = portsOf(object).map((port) => ({ ...port }));
    for (const [position, port] of ports.entries()) {
      const nodePort = port['nodePort'];
      if (typeof nodePort === 'number' && nodePort > 0) {
        const keptFromStored = stored !== undefined && portsOf(stored).some((old) => old['nodePort'] === nodePort);
        if (!keptFromStored && used.has(nodePort)) return { ok: false, message: `spec.ports[${position}].nodePort: Invalid value: ${nodePort}: provided port is already allocated` };
        if (nodePort < nodePortRange.base || nodePort >= nodePortRange.base + nodePortRange.size) {
          return { ok: false, message: `spec.ports[${position}].nodePort: Invalid value: ${nodePort}: provided port is not in the valid range. The range of valid ports is ${nodePortRange.base}-${nodePortRange.base + nodePortRange.size - 1}` };
        }
        used.add(nodePort);
        continue;
      }
      let found: number | undefined;
      for (let candidate = nodePortRange.base; candidate < nodePortRange.base + nodePortRange.size && found === undefined; candidate++) {
        if (!used.has(candidate)) found = candidate;
      }
      if (found === undefined) return { ok: false, message: `spec.ports[${position}].nodePort: Internal error: failed to allocate a nodePort: range is full` };
      used.add(found);
      port['nodePort'] = found;
    }
    spec['ports'] = ports;
  }
  return { ok: true, object: { ...object, spec } };
}
