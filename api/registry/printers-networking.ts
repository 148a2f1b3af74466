// Owns: the Table cells of the networking.k8s.io, discovery.k8s.io and certificates.k8s.io kinds,
// computed as kube-apiserver 1.33's printers compute them (pkg/printers/internalversion:
// printIngress, printIngressClass, printNetworkPolicy, printIPAddress, printServiceCIDR,
// printEndpointSlice, printCertificateSigningRequest). Server-side printing is always "wide",
// so the Ingress address is never clipped. Pure functions of the object.
import { humanDuration } from '../table.ts';
import { formatLabelSelector, nested, stringOf } from './printers.ts';

type Fields = Record<string, unknown>;

function listOf(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

/** listWithMoreString: the first three, then "+ N more...". */
function firstThree(values: readonly string[]): string {
  const shown = values.slice(0, 3).join(',');
  return values.length > 3 ? `${shown} + ${values.length - 3} more...` : shown;
}

/** printIngress's Class cell. */
export function ingressClassName(object: Fields): string {
  const name = nested(object, 'spec', 'ingressClassName');
  return typeof name === 'string' ? name : '<none>';
}

/** formatHosts: up to three rule hosts, "*" when no rule names one. */
export function ingressHosts(object: Fields): string {
  const rules = listOf(nested(object, 'spec', 'rules'));
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    const host = stringOf(rule['host']);
    if (!more && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

/** ingressLoadBalancerStatusStringer: the load balancer's IPs or hostnames, sorted and unique. */
export function ingressAddress(object: Fields): string {
  const addresses = new Set<string>();
  for (const entry of listOf(nested(object, 'status', 'loadBalancer', 'ingress'))) {
    const ip = stringOf(entry['ip']);
    const hostname = stringOf(entry['hostname']);
    if (ip !== '') addresses.add(ip);
    else if (hostname !== '') addresses.add(hostname);
  }
  return [...addresses].sort().join(',');
}

/** formatPorts: "80, 443" with TLS, else "80". */
export function ingressPorts(object: Fields): string {
  const tls = nested(object, 'spec', 'tls');
  return Array.isArray(tls) && tls.length > 0 ? '80, 443' : '80';
}

/** printIngressClass's Parameters cell: Kind[.apiGroup]/name. */
export function ingressClassParameters(object: Fields): string {
  const parameters = nested(object, 'spec', 'parameters');
  if (parameters === null || typeof parameters !== 'object') return '<none>';
  const group = nested(parameters, 'apiGroup');
  return `${stringOf(nested(parameters, 'kind'))}${typeof group === 'string' ? `.${group}` : ''}/${stringOf(nested(parameters, 'name'))}`;
}

/** printNetworkPolicy's Pod-Selector cell. */
export function networkPolicyPodSelector(object: Fields): string {
  return formatLabelSelector(nested(object, 'spec', 'podSelector') ?? {});
}

/** printIPAddress's ParentRef cell: resource[.group][/namespace]/name, lowercased group/resource. */
export function ipAddressParent(object: Fields): string {
  const reference = nested(object, 'spec', 'parentRef');
  if (reference === null || typeof reference !== 'object') return '<none>';
  const group = stringOf(nested(reference, 'group'));
  const resource = stringOf(nested(reference, 'resource'));
  const namespace = stringOf(nested(reference, 'namespace'));
  let text = (group === '' ? resource : `${resource}.${group}`).toLowerCase();
  if (namespace !== '') text += `/${namespace}`;
  return `${text}/${stringOf(nested(reference, 'name'))}`;
}

/** printServiceCIDR's CIDRs cell. */
export function serviceCidrs(object: Fields): string {
  const cidrs = nested(object, 'spec', 'cidrs');
  return Array.isArray(cidrs) ? cidrs.map(stringOf).join(',') : '';
}

/** formatDiscoveryPorts: port numbers (or names, or "*"), three at most. */
export function endpointSlicePorts(object: Fields): string {
  return firstThree(listOf(object['ports']).map((port) => {
    if (typeof port['port'] === 'number') return String(port['port']);
    return typeof port['name'] === 'string' ? port['name'] : '*';
  }));
}

/** formatDiscoveryEndpoints: every endpoint's addresses, three at most. */
export function endpointSliceEndpoints(object: Fields): string {
  return firstThree(listOf(object['endpoints']).flatMap((endpoint) => (Array.isArray(endpoint['addresses']) ? endpoint['addresses'].map(stringOf) : [])));
}

/** printCertificateSigningRequest's SignerName cell. */
export function csrSignerName(object: Fields): string {
  return stringOf(nested(object, 'spec', 'signerName')) || '<none>';
}

/** printCertificateSigningRequest's RequestedDuration cell: the expiration as a human duration. */
export function csrRequestedDuration(object: Fields): string {
  const seconds = nested(object, 'spec', 'expirationSeconds');
  return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
}

/** extractCSRStatus: Denied, Approved or Pending, then ",Failed" and ",Issued". */
export function csrCondition(object: Fields): string {
  const types = new Set(listOf(nested(object, 'status', 'conditions')).map((condition) => condition['type']));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (stringOf(nested(object, 'status', 'certificate')) !== '') status += ',Issued';
  return status;
}
