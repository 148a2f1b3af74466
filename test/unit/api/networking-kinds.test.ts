// networking.k8s.io/v1 (ingresses, ingressclasses, networkpolicies, ipaddresses, servicecidrs) and
// discovery.k8s.io/v1 endpointslices through the API: discovery names, defaults, generation and
// status rules, kube's validation messages, the default IngressClass on create, Table columns.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createdObject, invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

let harness: Harness;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const networking = '/apis/networking.k8s.io/v1';
const ingresses = `${networking}/namespaces/t/ingresses`;
const policies = `${networking}/namespaces/t/networkpolicies`;
const slices = '/apis/discovery.k8s.io/v1/namespaces/t/endpointslices';
const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

function ingress(name: string, spec: Json): Json {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name }, spec };
}

const webRule = { host: 'foo.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } };

async function rows(url: string): Promise<{ columns: [string, number][]; cells: unknown[][] }> {
  const response = await harness.request('GET', url, undefined, table);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  return { columns: body.columnDefinitions.map((column: Json) => [column.name, column.priority]), cells: body.rows.map((row: Json) => row.cells) };
}

describe('discovery', () => {
  it('lists the kinds with kube 1.33 names, short names, scope and subresources', async () => {
    const list = (await harness.request('GET', networking)).json();
    const byName = Object.fromEntries(list.resources.map((resource: Json) => [resource.name, resource]));
    expect(Object.keys(byName).sort()).toEqual(['ingressclasses', 'ingresses', 'ingresses/status', 'ipaddresses', 'networkpolicies', 'servicecidrs', 'servicecidrs/status']);
    expect(byName['ingresses']).toMatchObject({ namespaced: true, kind: 'Ingress', shortNames: ['ing'] });
    expect(byName['networkpolicies']).toMatchObject({ namespaced: true, shortNames: ['netpol'] });
    expect(byName['ipaddresses']).toMatchObject({ namespaced: false, shortNames: ['ip'] });
    expect(byName['servicecidrs']).toMatchObject({ namespaced: false });
    expect(byName['ingressclasses']).toMatchObject({ namespaced: false });
    const discovery = (await harness.request('GET', '/apis/discovery.k8s.io/v1')).json();
    expect(discovery.resources.map((resource: Json) => resource.name)).toEqual(['endpointslices']);
  });
});

describe('ingresses', () => {
  it('reset status and start at generation 1; a PUT keeps status and bumps the generation on spec changes', async () => {
    const created = await create(ingresses, { ...ingress('web', { rules: [webRule] }), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toEqual({});
    const relabelled = await harness.request('PUT', `${ingresses}/web`, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } } });
    expect(relabelled.statusCode, relabelled.body).toBe(200);
    expect(relabelled.json().metadata.generation).toBe(1);
    expect(relabelled.json().status).toEqual({});
    const changed = relabelled.json();
    changed.spec.rules[0].host = 'bar.example.com';
    const second = await harness.request('PUT', `${ingresses}/web`, changed);
    expect(second.json().metadata.generation).toBe(2);
    const status = await harness.request('PUT', `${ingresses}/web/status`, { ...(second.json() as Json), spec: { rules: [] }, status: { loadBalancer: { ingress: [{ ip: '10.0.0.7' }] } } });
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json().status.loadBalancer.ingress).toEqual([{ ip: '10.0.0.7' }]);
    expect(status.json().spec.rules[0].host).toBe('bar.example.com');
    expect(await causesOf('PUT', `${ingresses}/web/status`, { ...status.json(), status: { loadBalancer: { ingress: [{ ip: 'not-an-ip', hostname: '1.2.3.4' }] } } })).toEqual([
      { field: 'status.loadBalancer.ingress[0].ip', message: 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
      { field: 'status.loadBalancer.ingress[0].hostname', message: 'Invalid value: "1.2.3.4": must be a DNS name, not an IP address' },
    ]);
  });

  it('validate paths, backends, hosts and the class as kube does', async () => {
    expect(await causesOf('POST', ingresses, ingress('empty', {}))).toEqual([
      { field: 'spec', message: 'Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified' },
    ]);
    const bad = ingress('bad', {
      ingressClassName: 'Bad_Class',
      rules: [
        { host: '1.2.3.4', http: { paths: [{ path: 'relative', pathType: 'Exact', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
        { host: '*.example.com', http: { paths: [{ path: '/a', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
        { host: 'ok.example.com', http: { paths: [
          { path: '/x', pathType: 'Sometimes', backend: { service: { name: 'web', port: { name: 'http', number: 80 } } } },
          { path: '/y//z', pathType: 'Prefix', backend: { resource: { kind: 'Bucket', name: 'b' }, service: { name: 'web', port: { number: 80 } } } },
          { path: '/q', pathType: 'ImplementationSpecific', backend: { service: { name: '9web', port: { number: 70000 } } } },
          { path: '/r', pathType: 'Exact', backend: {} },
        ] } },
      ],
    });
    expect(await causesOf('POST', ingresses, bad)).toEqual([
      { field: 'spec.rules[0].host', message: 'Invalid value: "1.2.3.4": must be a DNS name, not an IP address' },
      { field: 'spec.rules[0].http.paths[0].path', message: 'Invalid value: "relative": must be an absolute path' },
      { field: 'spec.rules[1].http.paths[0].pathType', message: 'Required value: pathType must be specified' },
      { field: 'spec.rules[2].http.paths[0].pathType', message: 'Unsupported value: "Sometimes": supported values: "Exact", "ImplementationSpecific", "Prefix"' },
      { field: 'spec.rules[2].http.paths[0].backend', message: 'Invalid value: "": cannot set both port name & port number' },
      { field: 'spec.rules[2].http.paths[1].path', message: "Invalid value: \"/y//z\": must not contain '//'" },
      { field: 'spec.rules[2].http.paths[1].backend', message: 'Invalid value: "": cannot set both resource and service backends' },
      { field: 'spec.rules[2].http.paths[2].backend.service.name', message: "Invalid value: \"9web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')" },
      { field: 'spec.rules[2].http.paths[2].backend.service.port.number', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' },
      { field: 'spec.rules[2].http.paths[3].backend', message: 'Invalid value: "": resource or service backend is required' },
      { field: 'spec.ingressClassName', message: "Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')" },
    ]);
    const mismatched = ingress('mismatch', { ingressClassName: 'a', rules: [webRule] });
    mismatched['metadata'].annotations = { 'kubernetes.io/ingress.class': 'b' };
    expect(await causesOf('POST', ingresses, mismatched)).toEqual([
      { field: 'annotations.kubernetes.io/ingress.class', message: 'Invalid value: "b": must match `ingressClassName` when both are specified' },
    ]);
  });

  it('get the default IngressClass on create, unless they name a class (field or legacy annotation)', async () => {
    const withoutDefault = await create(ingresses, ingress('none', { rules: [webRule] }));
    expect(withoutDefault.spec.ingressClassName).toBeUndefined();
    const marked = (name: string) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'example.com/ingress' } });
    await create(`${networking}/ingressclasses`, marked('first'));
    await create(`${networking}/ingressclasses`, { ...marked('plain'), metadata: { name: 'plain' } });
    expect((await create(ingresses, ingress('defaulted', { rules: [webRule] }))).spec.ingressClassName).toBe('first');
    expect((await create(ingresses, ingress('explicit', { ingressClassName: 'plain', rules: [webRule] }))).spec.ingressClassName).toBe('plain');
    const legacy = ingress('legacy', { rules: [webRule] });
    legacy['metadata'].annotations = { 'kubernetes.io/ingress.class': 'nginx' };
    expect((await create(ingresses, legacy)).spec.ingressClassName).toBeUndefined();
    // An update never picks a class.
    const updated = await harness.request('PUT', `${ingresses}/none`, { ...withoutDefault, metadata: { ...withoutDefault.metadata, labels: { x: 'y' } } });
    expect(updated.json().spec.ingressClassName).toBeUndefined();
  });

  it('print Class, Hosts, Address, Ports and Age', async () => {
    await create(ingresses, ingress('web', { ingressClassName: 'nginx', rules: [webRule, { ...webRule, host: 'b.example.com' }], tls: [{ hosts: ['foo.example.com'] }] }));
    const current = (await harness.request('GET', `${ingresses}/web`)).json();
    await harness.request('PUT', `${ingresses}/web/status`, { ...current, status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.1' }] } } });
    await create(ingresses, ingress('catchall', { defaultBackend: { service: { name: 'web', port: { name: 'http' } } } }));
    const printed = await rows(ingresses);
    expect(printed.columns).toEqual([['Name', 0], ['Class', 0], ['Hosts', 0], ['Address', 0], ['Ports', 0], ['Age', 0]]);
    expect(printed.cells.map((cells) => cells.slice(0, 5))).toEqual([
      ['catchall', '<none>', '*', '', '80'],
      ['web', 'nginx', 'foo.example.com,b.example.com', '10.0.0.1,10.0.0.2,lb.example.com', '80, 443'],
    ]);
  });
});

describe('ingressclasses', () => {
  const ingressClass = (spec: Json) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'c' }, spec });

  it('default the parameters scope, keep the controller immutable and print Controller and Parameters', async () => {
    const created = await create(`${networking}/ingressclasses`, ingressClass({ controller: 'example.com/ingress', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } }));
    expect(created.spec.parameters.scope).toBe('Cluster');
    expect(created.metadata.generation).toBe(1);
    expect(await causesOf('PUT', `${networking}/ingressclasses/c`, { ...created, spec: { ...created.spec, controller: 'example.com/other' } })).toEqual([
      { field: 'spec.controller', message: 'Invalid value: "example.com/other": field is immutable' },
    ]);
    const printed = await rows(`${networking}/ingressclasses`);
    expect(printed.columns).toEqual([['Name', 0], ['Controller', 0], ['Parameters', 0], ['Age', 0]]);
    expect(printed.cells[0]!.slice(0, 3)).toEqual(['c', 'example.com/ingress', 'Params.k8s.example.com/p']);
  });

  it('validate the controller and the parameters reference', async () => {
    expect(await causesOf('POST', `${networking}/ingressclasses`, ingressClass({ controller: 'no-domain', parameters: { kind: 'P', name: 'p', scope: 'Namespace' } }))).toEqual([
      { field: 'spec.controller', message: 'Invalid value: "no-domain": must be a domain-prefixed path (such as "acme.io/foo")' },
      { field: 'spec.parameters.namespace', message: "Required value: `parameters.scope` is set to 'Namespace'" },
    ]);
    expect(await causesOf('POST', `${networking}/ingressclasses`, ingressClass({ controller: 'example.com/x', parameters: { kind: 'P', name: 'p', scope: 'Cluster', namespace: 'n' } }))).toEqual([
      { field: 'spec.parameters.namespace', message: "Forbidden: `parameters.scope` is set to 'Cluster'" },
    ]);
  });
});

describe('networkpolicies', () => {
  const policy = (name: string, spec: Json) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec });

  it('default policyTypes and port protocols, bump the generation on spec changes, print Pod-Selector', async () => {
    const ingressOnly = await create(policies, policy('in', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 80 }] }] }));
    expect(ingressOnly.spec.policyTypes).toEqual(['Ingress']);
    expect(ingressOnly.spec.ingress[0].ports[0]).toEqual({ port: 80, protocol: 'TCP' });
    expect(ingressOnly.metadata.generation).toBe(1);
    const both = await create(policies, policy('both', { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }] }));
    expect(both.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    const changed = await harness.request('PUT', `${policies}/in`, { ...ingressOnly, spec: { ...ingressOnly.spec, podSelector: { matchLabels: { app: 'api' } } } });
    expect(changed.json().metadata.generation).toBe(2);
    const printed = await rows(policies);
    expect(printed.columns).toEqual([['Name', 0], ['Pod-Selector', 0], ['Age', 0]]);
    expect(printed.cells.map((cells) => cells.slice(0, 2))).toEqual([['both', '<none>'], ['in', 'app=api']]);
  });

  it('validate ports, peers, ipBlocks and policyTypes', async () => {
    const spec = {
      podSelector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] },
      ingress: [{
        ports: [{ protocol: 'ICMP', port: 80, endPort: 70 }, { port: 'http', endPort: 90 }],
        from: [{}, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/8'] }, podSelector: {} }, { ipBlock: { cidr: 'nope' } }],
      }],
      policyTypes: ['Ingress', 'Sideways'],
    };
    expect(await causesOf('POST', policies, policy('bad', spec))).toEqual([
      { field: 'spec.podSelector.matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
      { field: 'spec.ingress[0].ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"' },
      { field: 'spec.ingress[0].ports[0].endPort', message: 'Invalid value: 70: must be greater than or equal to `port`' },
      { field: 'spec.ingress[0].ports[1].endPort', message: 'Invalid value: 90: may not be specified when `port` is non-numeric' },
      { field: 'spec.ingress[0].from[0]', message: 'Required value: must specify a peer' },
      { field: 'spec.ingress[0].from[1].ipBlock.except[0]', message: 'Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`' },
      { field: 'spec.ingress[0].from[1].ipBlock.except[1]', message: 'Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`' },
      { field: 'spec.ingress[0].from[1]', message: 'Forbidden: may not specify both ipBlock and another peer' },
      { field: 'spec.ingress[0].from[2].ipBlock.cidr', message: 'Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' },
      { field: 'spec.policyTypes[1]', message: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"' },
    ]);
    expect(await causesOf('POST', policies, policy('many', { podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] }))).toEqual([
      { field: 'spec.policyTypes', message: 'Invalid value: &[]networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes' },
    ]);
  });
});

describe('ipaddresses and servicecidrs', () => {
  it('name IPAddresses by a canonical IP, keep parentRef immutable and print ParentRef', async () => {
    const address = (name: string, parentRef: Json | undefined) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name }, spec: parentRef === undefined ? {} : { parentRef } });
    const created = await create(`${networking}/ipaddresses`, address('10.96.0.10', { group: '', resource: 'services', namespace: 'default', name: 'dns' }));
    expect(await causesOf('POST', `${networking}/ipaddresses`, address('2001:0db8::1', { resource: 'services', name: 'x' }))).toEqual([
      { field: 'metadata.name', message: 'Invalid value: "2001:0db8::1": must be in canonical form ("2001:db8::1")' },
    ]);
    expect(await causesOf('POST', `${networking}/ipaddresses`, address('010.1.2.3', undefined))).toEqual([
      { field: 'metadata.name', message: 'Invalid value: "010.1.2.3": IP address cannot have leading 0s' },
      { field: 'spec.parentRef', message: 'Required value' },
    ]);
    expect(await causesOf('PUT', `${networking}/ipaddresses/10.96.0.10`, { ...created, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'other' } } })).toEqual([
      { field: 'spec.parentRef', message: 'Invalid value: networking.ParentReference{Group:"", Resource:"services", Namespace:"default", Name:"other"}: field is immutable' },
    ]);
    const printed = await rows(`${networking}/ipaddresses`);
    expect(printed.columns).toEqual([['Name', 0], ['ParentRef', 0]]);
    expect(printed.cells).toEqual([['10.96.0.10', 'services/default/dns']]);
  });

  it('validate ServiceCIDR ranges, allow only a single-to-dual-stack change, and print CIDRs', async () => {
    const cidr = (cidrs: string[]) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs } });
    expect(await causesOf('POST', `${networking}/servicecidrs`, cidr(['10.0.0.1/24', '10.1.0.0/16']))).toEqual([
      { field: 'spec.cidrs[0]', message: 'Invalid value: "10.0.0.1/24": CIDR value should not have any bits set beyond the prefix length' },
      { field: 'spec.cidrs', message: 'Invalid value: []string{"10.0.0.1/24", "10.1.0.0/16"}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64' },
    ]);
    const created = await create(`${networking}/servicecidrs`, cidr(['10.200.0.0/16']));
    expect(await causesOf('PUT', `${networking}/servicecidrs/extra`, { ...created, spec: { cidrs: ['10.201.0.0/16'] } })).toEqual([
      { field: 'spec.cidrs[0]', message: 'Invalid value: "10.201.0.0/16": field is immutable' },
    ]);
    const dual = await harness.request('PUT', `${networking}/servicecidrs/extra`, { ...created, spec: { cidrs: ['10.200.0.0/16', 'fd00:10::/108'] } });
    expect(dual.statusCode, dual.body).toBe(200);
    const printed = await rows(`${networking}/servicecidrs`);
    expect(printed.columns).toEqual([['Name', 0], ['CIDRs', 0], ['Age', 0]]);
    expect(printed.cells[0]!.slice(0, 2)).toEqual(['extra', '10.200.0.0/16,fd00:10::/108']);
  });
});

describe('endpointslices', () => {
  const slice = (name: string, body: Json) => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name }, ...body });

  it('default port names and protocols, keep addressType immutable, bump generation, print the columns', async () => {
    const created = await create(slices, slice('web-1', {
      addressType: 'IPv4',
      endpoints: ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((address) => ({ addresses: [address] })),
      ports: [{ port: 80 }, { name: 'https', port: 443 }],
    }));
    expect(created.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }, { name: 'https', port: 443, protocol: 'TCP' }]);
    expect(created.metadata.generation).toBe(1);
    const relabelled = await harness.request('PUT', `${slices}/web-1`, { ...created, metadata: { ...created.metadata, labels: { 'kubernetes.io/service-name': 'web' } } });
    expect(relabelled.json().metadata.generation).toBe(2);
    const annotated = await harness.request('PUT', `${slices}/web-1`, { ...(relabelled.json() as Json), metadata: { ...(relabelled.json() as Json).metadata, annotations: { note: 'x' } } });
    expect(annotated.json().metadata.generation).toBe(2);
    expect(await causesOf('PUT', `${slices}/web-1`, { ...annotated.json(), addressType: 'IPv6', endpoints: [] })).toEqual([
      { field: 'addressType', message: 'Invalid value: "IPv6": field is immutable' },
    ]);
    const printed = await rows(slices);
    expect(printed.columns).toEqual([['Name', 0], ['AddressType', 0], ['Ports', 0], ['Endpoints', 0], ['Age', 0]]);
    expect(printed.cells[0]!.slice(0, 4)).toEqual(['web-1', 'IPv4', '80,443', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']);
  });

  it('validate addresses for their type, ports and the address type', async () => {
    expect(await causesOf('POST', slices, slice('bad', {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1', 'fd00::1', '1.2.3.4.5'] }, { addresses: [] }],
      ports: [{ name: 'Web', protocol: 'ICMP' }, { name: 'Web' }],
    }))).toEqual([
      { field: 'endpoints[0].addresses[0]', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' },
      { field: 'endpoints[0].addresses[1]', message: 'Invalid value: "fd00::1": must be an IPv4 address' },
      { field: 'endpoints[0].addresses[2]', message: 'Invalid value: "1.2.3.4.5": must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)' },
      { field: 'endpoints[0].addresses[2]', message: 'Invalid value: "1.2.3.4.5": must be a valid IP address' },
      { field: 'endpoints[1].addresses', message: 'Required value: must contain at least 1 address' },
      { field: 'ports[0].name', message: "Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" },
      { field: 'ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' },
      { field: 'ports[1].name', message: "Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" },
      { field: 'ports[1].name', message: 'Duplicate value: "Web"' },
    ]);
    expect(await causesOf('POST', slices, slice('ip', { addressType: 'IP', endpoints: [] }))).toEqual([
      { field: 'addressType', message: 'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"' },
    ]);
    const fqdn = await create(slices, slice('names', { addressType: 'FQDN', endpoints: [{ addresses: ['web.example.com'] }] }));
    expect(fqdn.addressType).toBe('FQDN');
    expect(await causesOf('POST', slices, slice('short', { addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] }))).toEqual([
      { field: 'endpoints[0].addresses[0]', message: 'Invalid value: "localhost": should be a domain with at least two segments separated by dots' },
    ]);
  });
});
