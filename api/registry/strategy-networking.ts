// Owns: the create/update behaviour of the networking.k8s.io/v1 kinds (Ingress, IngressClass,
// NetworkPolicy, IPAddress, ServiceCIDR) and of discovery.k8s.io/v1 EndpointSlices as
// kube-apiserver 1.33 has it: the v1 defaults (NetworkPolicy policyTypes and port protocol,
// IngressClass parameters scope, EndpointSlice port name and protocol), generation (1 on
// create, +1 on a spec change), status (Ingress: reset on create, kept on writes to the main
// resource), immutable fields, and the validation causes a user meets, with kube's messages.
// Also the field-error and IP/CIDR helpers these rules share (apimachinery's util/validation:
// the 1.33 strict IsValidIP/IsValidCIDR, and the sloppy parsing legacy fields keep).
import { isIPv6 } from 'node:net';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { isQualifiedName, labelValueProblems, nameProblems } from './validation.ts';
import { sameJson, specOf } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

export function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

export function isFields(value: JsonValue | undefined): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function records(value: JsonValue | undefined): Fields[] {
  return Array.isArray(value) ? value.filter(isFields) : [];
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : String(item))) : [];
}

// --- field errors (apimachinery's field.Error texts) ---------------------------------------------

export function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

/** field.Invalid whose value Go prints with %#v (a slice or struct): the caller renders it. */
export function invalidRendered(field: string, rendered: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${rendered}: ${detail}`, field };
}

export function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail === '' ? 'Required value' : `Required value: ${detail}`, field };
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(value)}`, field };
}

export function tooMany(field: string, actual: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items`, field };
}

export function tooLong(field: string, max: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${max} bytes`, field };
}

/** Go's %#v of a []string. */
export function goStrings(values: readonly string[], type = '[]string'): string {
  return `${type}{${values.map((value) => JSON.stringify(value)).join(', ')}}`;
}

// --- names ---------------------------------------------------------------------------------------

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035LabelMessage = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** NameIsDNS1035Label (a Service's name). */
export function dns1035LabelProblems(value: string): string[] {
  const problems = value.length > 63 ? ['must be no more than 63 characters'] : [];
  return dns1035Label.test(value) ? problems : [...problems, dns1035LabelMessage];
}

export const dns1123LabelProblems = (value: string): string[] => nameProblems(value, 'dns1123Label');
export const dns1123SubdomainProblems = (value: string): string[] => nameProblems(value, 'dns1123Subdomain');
export const pathSegmentProblems = (value: string): string[] => nameProblems(value, 'pathSegment');

const wildcardSubdomain = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const wildcardMessage = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function wildcardSubdomainProblems(value: string): string[] {
  const problems = value.length > 253 ? ['must be no more than 253 characters'] : [];
  return wildcardSubdomain.test(value) ? problems : [...problems, wildcardMessage];
}

/** IsValidPortName. */
export function portNameProblems(port: string): string[] {
  const problems: string[] = [];
  if (port.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) problems.push('must contain at least one letter (a-z)');
  if (port.includes('--')) problems.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) problems.push('must not begin or end with a hyphen');
  return problems;
}

/** IsValidPortNum. */
export function portNumberProblems(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

const httpPath = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** IsDomainPrefixedPath (an IngressClass controller). */
function domainPrefixedPathCauses(field: string, value: string): StatusCause[] {
  if (value === '') return [required(field)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const path = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || path === '') return [invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const causes = dns1123SubdomainProblems(host).map((problem) => invalid(field, host, problem));
  if (!httpPath.test(path)) causes.push(invalid(field, path, "must be a valid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  return causes;
}

/** ValidateLabelSelector (metav1.LabelSelector). */
export function labelSelectorCauses(selector: JsonValue | undefined, at: string): StatusCause[] {
  if (!isFields(selector)) return [];
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(fields(selector['matchLabels']))) {
    causes.push(...isQualifiedName(key).map((problem) => invalid(`${at}.matchLabels`, key, problem)));
    const text = typeof value === 'string' ? value : String(value);
    causes.push(...labelValueProblems(text).map((problem) => invalid(`${at}.matchLabels`, text, problem)));
  }
  records(selector['matchExpressions']).forEach((expression, index) => {
    const path = `${at}.matchExpressions[${index}]`;
    const values = strings(expression['values']);
    const operator = expression['operator'];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) causes.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) causes.push(forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      causes.push(invalid(`${path}.operator`, operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof expression['key'] === 'string' ? expression['key'] : '';
    causes.push(...isQualifiedName(key).map((problem) => invalid(`${path}.key`, key, problem)));
    values.forEach((value, position) => causes.push(...labelValueProblems(value).map((problem) => invalid(`${path}.values[${position}]`, value, problem))));
  });
  return causes;
}

// --- IP addresses and CIDRs ---------------------------------------------------------------------

/** An address: 4 or 16 bytes. */
export interface Ip {
  readonly bytes: readonly number[];
}

function parseIpv4(text: string, allowLeadingZeros: boolean): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^[0-9]+$/.test(part) || (!allowLeadingZeros && part.length > 3)) return undefined;
    if (!allowLeadingZeros && part.length > 1 && part.startsWith('0')) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return bytes;
}

function parseIpv6(text: string): number[] | undefined {
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let head = text;
  let tailV4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(text.slice(lastColon + 1), false);
    if (v4 === undefined) return undefined;
    tailV4 = v4;
    head = text[lastColon - 1] === ':' ? text.slice(0, lastColon + 1) : text.slice(0, lastColon);
  }
  const groupsWanted = tailV4.length > 0 ? 6 : 8;
  const [left = '', right] = head.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const fill = right === undefined ? 0 : groupsWanted - leftGroups.length - rightGroups.length;
  const groups = [...leftGroups, ...Array<string>(fill).fill('0'), ...rightGroups];
  if (groups.length !== groupsWanted) return undefined;
  const bytes: number[] = [];
  for (const group of groups) {
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return [...bytes, ...tailV4];
}

/** netutils.ParseIPSloppy: IPv4 may have leading zeros; no zones. */
export function parseIpSloppy(text: string): Ip | undefined {
  const v4 = parseIpv4(text, true);
  if (v4 !== undefined) return { bytes: v4 };
  const v6 = parseIpv6(text);
  return v6 === undefined ? undefined : { bytes: v6 };
}

function isIpv4Mapped(bytes: readonly number[]): boolean {
  return bytes.length === 16 && bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** Go's netip.Addr.String (RFC 5952 for IPv6; IPv4-mapped as ::ffff:a.b.c.d). */
export function formatIp(ip: Ip): string {
  const bytes = ip.bytes;
  if (bytes.length === 4) return bytes.join('.');
  if (isIpv4Mapped(bytes)) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: number[] = [];
  for (let index = 0; index < 16; index += 2) groups.push((bytes[index]! << 8) | bytes[index + 1]!);
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8;) {
    if (groups[start] !== 0) { start++; continue; }
    let end = start;
    while (end < 8 && groups[end] === 0) end++;
    if (end - start > bestLength && end - start >= 2) { bestStart = start; bestLength = end - start; }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** IsValidIPForLegacyField in 1.33 (StrictIPCIDRValidation off): any address ParseIPSloppy takes. */
export function legacyIpProblems(value: string): string[] {
  return parseIpSloppy(value) === undefined ? ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'] : [];
}

/** apimachinery 1.33's IsValidIP: the address (undefined when invalid) and the causes. */
export function strictIp(field: string, value: string): { readonly ip: Ip | undefined; readonly causes: StatusCause[] } {
  if (value === '') return { ip: undefined, causes: [required(field, 'expected an IP address')] };
  const zone = value.indexOf('%');
  const address = zone < 0 ? value : value.slice(0, zone);
  const parsed = parseIpv4(address, false) ?? parseIpv6(address);
  if (parsed === undefined || zone === 0 || (zone > 0 && (parsed.length === 4 || value.length === zone + 1))) {
    if (parseIpSloppy(value) !== undefined) return { ip: undefined, causes: [invalid(field, value, 'IP address cannot have leading 0s')] };
    if (parsePrefix(value) !== undefined) return { ip: undefined, causes: [invalid(field, value, 'expected an IP address (e.g. 10.9.8.7 or 2001:db8::ffff), got CIDR value')] };
    return { ip: undefined, causes: [invalid(field, value, 'must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)')] };
  }
  const causes: StatusCause[] = [];
  if (zone > 0) causes.push(invalid(field, value, 'IP address with zone specifier is not allowed'));
  if (isIpv4Mapped(parsed)) causes.push(invalid(field, value, 'IPv4-mapped IPv6 address is not allowed'));
  return { ip: { bytes: parsed }, causes };
}

export interface Cidr {
  readonly ip: Ip;
  readonly bits: number;
}

/** netip.ParsePrefix: a strict address, "/" and a decimal length without leading zeros. */
function parsePrefix(value: string): Cidr | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const address = value.slice(0, slash);
  const length = value.slice(slash + 1);
  const bytes = parseIpv4(address, false) ?? parseIpv6(address);
  if (bytes === undefined || !/^(0|[1-9][0-9]*)$/.test(length)) return undefined;
  const bits = Number(length);
  return bits > bytes.length * 8 ? undefined : { ip: { bytes }, bits };
}

/** netutils.ParseCIDRSloppy: the network (masked), or undefined. */
export function parseCidrSloppy(value: string): Cidr | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIpSloppy(value.slice(0, slash));
  const length = value.slice(slash + 1);
  if (ip === undefined || !/^[0-9]{1,3}$/.test(length)) return undefined;
  const bytes = ip.bytes;
  const bits = Number(length);
  if (bits > bytes.length * 8) return undefined;
  return { ip: { bytes: masked(bytes, bits) }, bits };
}

function masked(bytes: readonly number[], bits: number): number[] {
  return bytes.map((byte, index) => {
    const keep = Math.max(0, Math.min(8, bits - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
}

/** IsValidCIDRForLegacyField in 1.33 (StrictIPCIDRValidation off). */
export function legacyCidrProblems(value: string): string[] {
  return parseCidrSloppy(value) === undefined ? ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'] : [];
}

/** apimachinery 1.33's IsValidCIDR. */
export function strictCidrCauses(field: string, value: string): StatusCause[] {
  if (value === '') return [required(field, 'expected a CIDR value')];
  const prefix = parsePrefix(value);
  if (prefix === undefined) {
    if (parseCidrSloppy(value) !== undefined) {
      const leadingZeroLength = value.includes('/0') && !value.endsWith('/0');
      return [invalid(field, value, leadingZeroLength ? 'prefix length in CIDR cannot have leading 0s' : 'IP address in CIDR cannot have leading 0s')];
    }
    if (parseIpv4(value, false) !== undefined || parseIpv6(value) !== undefined) {
      return [invalid(field, value, 'expected a valid CIDR value (e.g. 10.9.8.0/24 or 2001:db8::/64), got IP address')];
    }
    return [invalid(field, value, 'must be a valid CIDR value (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
  }
  if (isIpv4Mapped(prefix.ip.bytes)) return [invalid(field, value, 'CIDR containing IPv4-mapped IPv6 address is not allowed')];
  if (!sameBytes(masked(prefix.ip.bytes, prefix.bits), prefix.ip.bytes)) return [invalid(field, value, 'CIDR value should not have any bits set beyond the prefix length')];
  return [];
}

function sameBytes(left: readonly number[], right: readonly number[]): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}

/** The IP family of a CIDR string (netutils.IPFamilyOfCIDRString): '4', '6' or '' when it does not parse. */
function cidrFamily(value: string): '4' | '6' | '' {
  const cidr = parseCidrSloppy(value);
  if (cidr === undefined) return '';
  return cidr.ip.bytes.length === 4 || isIpv4Mapped(cidr.ip.bytes) ? '4' : '6';
}

/** net.IPNet.Contains for the network `outer` and the address `inner` (both of one family). */
function networkContains(outer: Cidr, inner: Ip): boolean {
  const toFamily = (bytes: readonly number[]): readonly number[] => (isIpv4Mapped(bytes) ? bytes.slice(12) : bytes);
  const network = toFamily(outer.ip.bytes);
  const address = toFamily(inner.bytes);
  if (network.length !== address.length) return false;
  const bits = outer.bits - (outer.ip.bytes.length - network.length) * 8;
  return sameBytes(masked(address, bits), masked(network, bits));
}

/** ValidateNonSpecialIP (EndpointSlice addresses). */
function nonSpecialIpCauses(field: string, value: string): StatusCause[] {
  const ip = parseIpSloppy(value);
  if (ip === undefined) return [invalid(field, value, 'must be a valid IP address')];
  const bytes = isIpv4Mapped(ip.bytes) ? ip.bytes.slice(12) : ip.bytes;
  const causes: StatusCause[] = [];
  const v4 = bytes.length === 4;
  if (bytes.every((byte) => byte === 0)) causes.push(invalid(field, value, `may not be unspecified (${value})`));
  if (v4 ? bytes[0] === 127 : bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) {
    causes.push(invalid(field, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  }
  if (v4 ? bytes[0] === 169 && bytes[1] === 254 : bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) {
    causes.push(invalid(field, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (v4 ? bytes[0] === 224 && bytes[1] === 0 && bytes[2] === 0 : bytes[0] === 0xff && (bytes[1]! & 0x0f) === 0x02) {
    causes.push(invalid(field, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return causes;
}

// --- Ingress --------------------------------------------------------------------------------------

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];
export const ingressClassAnnotation = 'kubernetes.io/ingress.class';

function backendCauses(backend: Fields, at: string): StatusCause[] {
  const resource = backend['resource'];
  const service = backend['service'];
  const hasResource = isFields(resource);
  const hasService = isFields(service);
  if (hasResource && hasService) return [invalid(at, '', 'cannot set both resource and service backends')];
  if (hasResource) return typedLocalReferenceCauses(resource, `${at}.resource`);
  if (!hasService) return [invalid(at, '', 'resource or service backend is required')];
  const causes: StatusCause[] = [];
  const name = typeof service['name'] === 'string' ? service['name'] : '';
  if (name === '') causes.push(required(`${at}.service.name`));
  else causes.push(...dns1035LabelProblems(name).map((problem) => invalid(`${at}.service.name`, name, problem)));
  const port = fields(service['port']);
  const portName = typeof port['name'] === 'string' ? port['name'] : '';
  const portNumber = typeof port['number'] === 'number' ? port['number'] : 0;
  if (portName !== '' && portNumber !== 0) causes.push(invalid(at, '', 'cannot set both port name & port number'));
  else if (portName !== '') causes.push(...portNameProblems(portName).map((problem) => invalid(`${at}.service.port.name`, portName, problem)));
  else if (portNumber !== 0) causes.push(...portNumberProblems(portNumber).map((problem) => invalid(`${at}.service.port.number`, portNumber, problem)));
  else causes.push(required(at, 'port name or number is required'));
  return causes;
}

function typedLocalReferenceCauses(reference: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof reference['apiGroup'] === 'string') {
    const group = reference['apiGroup'];
    causes.push(...dns1123SubdomainProblems(group).map((problem) => invalid(`${at}.apiGroup`, group, problem)));
  }
  for (const key of ['kind', 'name'] as const) {
    const value = typeof reference[key] === 'string' ? reference[key] : '';
    if (value === '') causes.push(required(`${at}.${key}`));
    else causes.push(...pathSegmentProblems(value).map((problem) => invalid(`${at}.${key}`, value, problem)));
  }
  return causes;
}

function httpPathCauses(path: Fields, at: string): StatusCause[] {
  const pathType = path['pathType'];
  if (pathType === undefined || pathType === null) return [required(`${at}.pathType`, 'pathType must be specified')];
  const value = typeof path['path'] === 'string' ? path['path'] : '';
  const causes: StatusCause[] = [];
  if (pathType === 'Exact' || pathType === 'Prefix') {
    if (!value.startsWith('/')) causes.push(invalid(`${at}.path`, value, 'must be an absolute path'));
    if (value !== '') {
      for (const sequence of invalidPathSequences) if (value.includes(sequence)) causes.push(invalid(`${at}.path`, value, `must not contain '${sequence}'`));
      for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) causes.push(invalid(`${at}.path`, value, `cannot end with '${suffix}'`));
    }
  } else if (pathType === 'ImplementationSpecific') {
    if (value !== '' && !value.startsWith('/')) causes.push(invalid(`${at}.path`, value, 'must be an absolute path'));
  } else {
    causes.push(notSupported(`${at}.pathType`, pathType, pathTypes));
  }
  causes.push(...backendCauses(fields(path['backend']), `${at}.backend`));
  return causes;
}

function ruleValueCauses(rule: Fields, at: string): StatusCause[] {
  if (!isFields(rule['http'])) return [];
  const paths = records(rule['http']['paths']);
  const causes = paths.length === 0 ? [required(`${at}.http.paths`)] : [];
  paths.forEach((path, index) => causes.push(...httpPathCauses(path, `${at}.http.paths[${index}]`)));
  return causes;
}

/** Whether the stored Ingress has a wildcard-host rule that does not validate (kept valid for compatibility). */
function hasInvalidWildcardRule(old: KubeObject | undefined): boolean {
  return old !== undefined && records(specOf(old)['rules'])
    .some((rule) => String(rule['host'] ?? '').includes('*') && ruleValueCauses(rule, '').length > 0);
}

function hasInvalidTlsSecretName(old: KubeObject | undefined): boolean {
  return old !== undefined && records(specOf(old)['tls'])
    .some((tls) => typeof tls['secretName'] === 'string' && tls['secretName'] !== '' && dns1123SubdomainProblems(tls['secretName']).length > 0);
}

/** ValidateIngressSpec (with the update allowances for stored wildcard rules and secret names). */
function ingressSpecCauses(spec: Fields, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const rules = records(spec['rules']);
  if (rules.length === 0 && !isFields(spec['defaultBackend'])) {
    const rendered = Array.isArray(spec['rules']) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)';
    causes.push(invalidRendered('spec', rendered, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (isFields(spec['defaultBackend'])) causes.push(...backendCauses(spec['defaultBackend'], 'spec.defaultBackend'));
  const allowInvalidWildcard = hasInvalidWildcardRule(old);
  rules.forEach((rule, index) => {
    const at = `spec.rules[${index}]`;
    const host = typeof rule['host'] === 'string' ? rule['host'] : '';
    let wildcard = false;
    if (host !== '') {
      if (parseIpSloppy(host) !== undefined) causes.push(invalid(`${at}.host`, host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        causes.push(...wildcardSubdomainProblems(host).map((problem) => invalid(`${at}.host`, host, problem)));
        wildcard = true;
      } else {
        causes.push(...dns1123SubdomainProblems(host).map((problem) => invalid(`${at}.host`, host, problem)));
      }
    }
    if (!wildcard || !allowInvalidWildcard) causes.push(...ruleValueCauses(rule, at));
  });
  const allowInvalidSecret = hasInvalidTlsSecretName(old);
  records(spec['tls']).forEach((tls, index) => {
    const at = `spec.tls[${index}]`;
    strings(tls['hosts']).forEach((host, position) => {
      const problems = host.includes('*') ? wildcardSubdomainProblems(host) : dns1123SubdomainProblems(host);
      causes.push(...problems.map((problem) => invalid(`${at}.hosts[${position}]`, host, problem)));
    });
    const secretName = typeof tls['secretName'] === 'string' ? tls['secretName'] : '';
    if (!allowInvalidSecret && secretName !== '') causes.push(...dns1123SubdomainProblems(secretName).map((problem) => invalid(`${at}.secretName`, secretName, problem)));
  });
  if (typeof spec['ingressClassName'] === 'string') {
    const className = spec['ingressClassName'];
    causes.push(...dns1123SubdomainProblems(className).map((problem) => invalid('spec.ingressClassName', className, problem)));
  }
  return causes;
}

/** ValidateIngressLoadBalancerStatus (the status subresource). */
function ingressStatusCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const at = 'status.loadBalancer.ingress';
  const oldIps = new Set(records(fields(fields(old['status'] as JsonValue | undefined)['loadBalancer'])['ingress']).map((entry) => entry['ip']));
  const causes: StatusCause[] = [];
  records(fields(fields(object['status'] as JsonValue | undefined)['loadBalancer'])['ingress']).forEach((entry, index) => {
    const ip = typeof entry['ip'] === 'string' ? entry['ip'] : '';
    if (ip !== '' && !oldIps.has(ip)) causes.push(...legacyIpProblems(ip).map((problem) => invalid(`${at}[${index}].ip`, ip, problem)));
    const hostname = typeof entry['hostname'] === 'string' ? entry['hostname'] : '';
    if (hostname !== '') {
      causes.push(...dns1123SubdomainProblems(hostname).map((problem) => invalid(`${at}[${index}].hostname`, hostname, problem)));
      if (parseIpSloppy(hostname) !== undefined) causes.push(invalid(`${at}[${index}].hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return causes;
}

function keepStatus(object: KubeObject, old: KubeObject): void {
  if (old['status'] !== undefined) object['status'] = old['status'];
  else delete object['status'];
}

/** Generation 1 on create; +1 when `part` of the object changed on update. */
function bumpGeneration(object: KubeObject, old: KubeObject, part: JsonValue | undefined, oldPart: JsonValue | undefined): void {
  const generation = old.metadata.generation ?? 1;
  object.metadata.generation = sameJson(part, oldPart) ? generation : generation + 1;
}

export const ingressStrategy: Strategy = {
  // kube: PUT of an absent Ingress is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    bumpGeneration(object, old, object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined);
  },
  validateCreate(object) {
    const causes = ingressSpecCauses(specOf(object), undefined);
    const annotation = object.metadata.annotations?.[ingressClassAnnotation];
    const className = specOf(object)['ingressClassName'];
    if (annotation !== undefined && typeof className === 'string' && annotation !== className) {
      causes.push(invalid(`annotations.${ingressClassAnnotation}`, annotation, 'must match `ingressClassName` when both are specified'));
    }
    return causes;
  },
  validateUpdate(object, old, subresource) {
    // The status subresource validates only the status (kube's ValidateIngressStatusUpdate).
    if (subresource === 'status') return ingressStatusCauses(object, old);
    return ingressSpecCauses(specOf(object), old);
  },
};

// --- IngressClass ---------------------------------------------------------------------------------

const parameterScopes = ['Cluster', 'Namespace'];

/** SetDefaults_IngressClass: parameters without a scope are Cluster-scoped. */
function defaultIngressClassSpec(object: KubeObject): void {
  const spec = specOf(object);
  if (isFields(spec['parameters']) && (spec['parameters']['scope'] === undefined || spec['parameters']['scope'] === null)) {
    object['spec'] = { ...spec, parameters: { ...spec['parameters'], scope: 'Cluster' } };
  }
}

function ingressClassCauses(object: KubeObject): StatusCause[] {
  const spec = specOf(object);
  const controller = typeof spec['controller'] === 'string' ? spec['controller'] : '';
  const causes: StatusCause[] = [];
  if (controller === '') causes.push(required('spec.controller'));
  else {
    if (Buffer.byteLength(controller) > 250) causes.push(tooLong('spec.controller', 250));
    causes.push(...domainPrefixedPathCauses('spec.controller', controller));
  }
  if (!isFields(spec['parameters'])) return causes;
  const parameters = spec['parameters'];
  const at = 'spec.parameters';
  if (typeof parameters['apiGroup'] === 'string') {
    const group = parameters['apiGroup'];
    causes.push(...dns1123SubdomainProblems(group).map((problem) => invalid(`${at}.apiGroup`, group, problem)));
  }
  for (const key of ['kind', 'name'] as const) {
    const value = typeof parameters[key] === 'string' ? parameters[key] : '';
    if (value === '') causes.push(required(`${at}.${key}`));
    else causes.push(...pathSegmentProblems(value).map((problem) => invalid(`${at}.${key}`, value, problem)));
  }
  const scope = parameters['scope'];
  if (scope === undefined || scope === null) return [...causes, required(`${at}.scope`)];
  if (!parameterScopes.includes(String(scope))) return [...causes, notSupported(`${at}.scope`, scope, parameterScopes)];
  const namespace = parameters['namespace'];
  if (scope === 'Namespace') {
    if (typeof namespace !== 'string') causes.push(required(`${at}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else causes.push(...dns1123LabelProblems(namespace).map((problem) => invalid(`${at}.namespace`, namespace, problem)));
  }
  if (scope === 'Cluster' && namespace !== undefined && namespace !== null) causes.push(forbidden(`${at}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  return causes;
}

export const ingressClassStrategy: Strategy = {
  // kube: PUT of an absent IngressClass is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    defaultIngressClassSpec(object);
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    defaultIngressClassSpec(object);
    bumpGeneration(object, old, object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined);
  },
  validate: ingressClassCauses,
  validateUpdate(object, old) {
    const controller = specOf(object)['controller'] ?? '';
    return controller === (specOf(old)['controller'] ?? '') ? [] : [invalid('spec.controller', controller, 'field is immutable')];
  },
};

/** kube's DefaultIngressClass admission: the annotation marking an IngressClass the default. */
export const defaultIngressClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';

// --- NetworkPolicy --------------------------------------------------------------------------------

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
function defaultNetworkPolicySpec(object: KubeObject): void {
  const spec: Fields = { ...specOf(object) };
  if (!isFields(spec['podSelector'])) spec['podSelector'] = {};
  const defaultPorts = (rules: JsonValue | undefined): JsonValue | undefined => (Array.isArray(rules)
    ? rules.map((rule) => (isFields(rule) && Array.isArray(rule['ports'])
      ? { ...rule, ports: rule['ports'].map((port) => (isFields(port) && (port['protocol'] === undefined || port['protocol'] === null) ? { ...port, protocol: 'TCP' } : port)) }
      : rule))
    : rules);
  if (spec['ingress'] !== undefined) spec['ingress'] = defaultPorts(spec['ingress']) ?? null;
  if (spec['egress'] !== undefined) spec['egress'] = defaultPorts(spec['egress']) ?? null;
  if (!Array.isArray(spec['policyTypes']) || spec['policyTypes'].length === 0) {
    spec['policyTypes'] = Array.isArray(spec['egress']) && spec['egress'].length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  object['spec'] = spec;
}

function networkPolicyPortCauses(port: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const protocol = port['protocol'];
  if (protocol !== undefined && protocol !== null && !['TCP', 'UDP', 'SCTP'].includes(String(protocol))) causes.push(notSupported(`${at}.protocol`, protocol, ['TCP', 'UDP', 'SCTP']));
  const value = port['port'];
  const endPort = port['endPort'];
  const hasEnd = typeof endPort === 'number';
  if (typeof value === 'number') {
    causes.push(...portNumberProblems(value).map((problem) => invalid(`${at}.port`, value, problem)));
    if (hasEnd) {
      if (endPort < value) causes.push(invalid(`${at}.endPort`, endPort, 'must be greater than or equal to `port`'));
      causes.push(...portNumberProblems(endPort).map((problem) => invalid(`${at}.endPort`, endPort, problem)));
    }
  } else if (typeof value === 'string') {
    if (hasEnd) causes.push(invalid(`${at}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    causes.push(...portNameProblems(value).map((problem) => invalid(`${at}.port`, value, problem)));
  } else if (hasEnd) {
    causes.push(invalid(`${at}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return causes;
}

function ipBlockCauses(block: Fields, at: string, allowed: ReadonlySet<string>): StatusCause[] {
  const cidrText = typeof block['cidr'] === 'string' ? block['cidr'] : '';
  if (cidrText === '') return [required(`${at}.cidr`)];
  const causes = allowed.has(cidrText) ? [] : legacyCidrProblems(cidrText).map((problem) => invalid(`${at}.cidr`, cidrText, problem));
  const cidr = parseCidrSloppy(cidrText);
  if (cidr === undefined) return causes;
  strings(block['except']).forEach((exceptText, index) => {
    const path = `${at}.except[${index}]`;
    if (!allowed.has(exceptText)) causes.push(...legacyCidrProblems(exceptText).map((problem) => invalid(path, exceptText, problem)));
    const except = parseCidrSloppy(exceptText);
    if (except === undefined) return;
    if (!networkContains(cidr, except.ip) || cidr.bits >= except.bits) causes.push(invalid(path, exceptText, 'must be a strict subset of `cidr`'));
  });
  return causes;
}

function peerCauses(peer: Fields, at: string, allowed: ReadonlySet<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  if (isFields(peer['podSelector'])) { count++; causes.push(...labelSelectorCauses(peer['podSelector'], `${at}.podSelector`)); }
  if (isFields(peer['namespaceSelector'])) { count++; causes.push(...labelSelectorCauses(peer['namespaceSelector'], `${at}.namespaceSelector`)); }
  const hasBlock = isFields(peer['ipBlock']);
  if (hasBlock) { count++; causes.push(...ipBlockCauses(fields(peer['ipBlock']), `${at}.ipBlock`, allowed)); }
  if (count === 0) causes.push(required(at, 'must specify a peer'));
  else if (count > 1 && hasBlock) causes.push(forbidden(at, 'may not specify both ipBlock and another peer'));
  return causes;
}

function networkPolicySpecCauses(spec: Fields, allowed: ReadonlySet<string>): StatusCause[] {
  const causes = labelSelectorCauses(spec['podSelector'], 'spec.podSelector');
  for (const [direction, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    records(spec[direction]).forEach((rule, index) => {
      const at = `spec.${direction}[${index}]`;
      records(rule['ports']).forEach((port, position) => causes.push(...networkPolicyPortCauses(port, `${at}.ports[${position}]`)));
      records(rule[peers]).forEach((peer, position) => causes.push(...peerCauses(peer, `${at}.${peers}[${position}]`, allowed)));
    });
  }
  const policyTypes = strings(spec['policyTypes']);
  if (policyTypes.length > 2) return [...causes, invalidRendered('spec.policyTypes', `&${goStrings(policyTypes, '[]networking.PolicyType')}`, 'may not specify more than two policyTypes')];
  policyTypes.forEach((type, index) => {
    if (type !== 'Ingress' && type !== 'Egress') causes.push(notSupported(`spec.policyTypes[${index}]`, type, ['Ingress', 'Egress']));
  });
  return causes;
}

/** Every CIDR of a stored policy's ipBlocks: kept valid on update even when they no longer validate. */
function storedCidrs(old: KubeObject): Set<string> {
  const spec = specOf(old);
  const cidrs = new Set<string>();
  for (const [direction, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    for (const rule of records(spec[direction])) {
      for (const peer of records(rule[peers])) {
        if (!isFields(peer['ipBlock'])) continue;
        cidrs.add(String(peer['ipBlock']['cidr'] ?? ''));
        for (const except of strings(peer['ipBlock']['except'])) cidrs.add(except);
      }
    }
  }
  return cidrs;
}

export const networkPolicyStrategy: Strategy = {
  // kube: PUT of an absent NetworkPolicy is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    defaultNetworkPolicySpec(object);
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    defaultNetworkPolicySpec(object);
    bumpGeneration(object, old, object['spec'] as JsonValue | undefined, old['spec'] as JsonValue | undefined);
  },
  validateCreate: (object) => networkPolicySpecCauses(specOf(object), new Set()),
  validateUpdate: (object, old) => networkPolicySpecCauses(specOf(object), storedCidrs(old)),
};

// --- IPAddress ------------------------------------------------------------------------------------

/** The IPAddress name rule: an IP address (IsValidIP) in canonical form. */
function ipAddressNameCauses(name: string): StatusCause[] {
  if (name === '') return [];
  const { ip, causes } = strictIp('metadata.name', name);
  if (ip === undefined) return causes.map((cause) => ({ ...cause, field: 'metadata.name' }));
  const canonicalName = formatIp(ip);
  return canonicalName === name ? causes : [...causes, invalid('metadata.name', name, `must be in canonical form (${JSON.stringify(canonicalName)})`)];
}

function goParentReference(reference: JsonValue | undefined): string {
  if (!isFields(reference)) return 'null';
  const text = (key: string): string => JSON.stringify(typeof reference[key] === 'string' ? reference[key] : '');
  return `networking.ParentReference{Group:${text('group')}, Resource:${text('resource')}, Namespace:${text('namespace')}, Name:${text('name')}}`;
}

function parentReferenceCauses(reference: JsonValue | undefined): StatusCause[] {
  if (!isFields(reference)) return [required('spec.parentRef')];
  const at = 'spec.parentRef';
  const causes: StatusCause[] = [];
  const group = typeof reference['group'] === 'string' ? reference['group'] : '';
  if (group !== '') causes.push(...dns1123SubdomainProblems(group).map((problem) => invalid(`${at}.group`, group, problem)));
  for (const key of ['resource', 'name'] as const) {
    const value = typeof reference[key] === 'string' ? reference[key] : '';
    if (value === '') causes.push(required(`${at}.${key}`));
    else causes.push(...pathSegmentProblems(value).map((problem) => invalid(`${at}.${key}`, value, problem)));
  }
  const namespace = typeof reference['namespace'] === 'string' ? reference['namespace'] : '';
  if (namespace !== '') causes.push(...pathSegmentProblems(namespace).map((problem) => invalid(`${at}.namespace`, namespace, problem)));
  return causes;
}

export const ipAddressStrategy: Strategy = {
  // kube: PUT of an absent IPAddress is 404.
  allowCreateOnUpdate: false,
  validate: (object) => [...ipAddressNameCauses(object.metadata.name ?? ''), ...parentReferenceCauses(specOf(object)['parentRef'])],
  validateUpdate(object, old) {
    const reference = specOf(object)['parentRef'];
    return sameJson(reference, specOf(old)['parentRef']) ? [] : [invalidRendered('spec.parentRef', goParentReference(reference), 'field is immutable')];
  },
};

// --- ServiceCIDR ----------------------------------------------------------------------------------

function serviceCidrSpecCauses(spec: Fields): StatusCause[] {
  const at = 'spec.cidrs';
  const cidrs = strings(spec['cidrs']);
  if (cidrs.length === 0) return [required(at, 'at least one CIDR required')];
  if (cidrs.length > 2) return [invalidRendered(at, `&networking.ServiceCIDRSpec{CIDRs:${goStrings(cidrs)}}`, 'may only hold up to 2 values')];
  const causes = cidrs.flatMap((cidr, index) => strictCidrCauses(`${at}[${index}]`, cidr));
  if (cidrs.length === 2 && cidrFamily(cidrs[0]!) === cidrFamily(cidrs[1]!) && cidrFamily(cidrs[0]!) !== '') {
    causes.push(invalidRendered(at, goStrings(cidrs), 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return causes;
}

export const serviceCidrStrategy: Strategy = {
  // kube: PUT of an absent ServiceCIDR is 404. Its strategy leaves status and generation alone.
  allowCreateOnUpdate: false,
  validateCreate: (object) => serviceCidrSpecCauses(specOf(object)),
  validateUpdate(object, old, subresource) {
    if (subresource === 'status') return [];
    const cidrs = strings(specOf(object)['cidrs']);
    const oldCidrs = strings(specOf(old)['cidrs']);
    const immutable = 'field is immutable';
    if (cidrs.length === oldCidrs.length) {
      return oldCidrs.flatMap((cidr, index) => (cidr === cidrs[index] ? [] : [invalid(`spec.cidrs[${index}]`, cidrs[index], immutable)]));
    }
    if (oldCidrs.length === 1 && cidrs.length === 2) {
      // Adding a second CIDR converts to dual stack; the first may not change.
      const causes = cidrs[0] === oldCidrs[0] ? [] : [invalid('spec.cidrs[0]', cidrs[0], immutable)];
      return [...causes, ...serviceCidrSpecCauses(specOf(object))];
    }
    return [invalidRendered('spec.cidrs', goStrings(cidrs), immutable)];
  },
};

// --- EndpointSlice (discovery.k8s.io/v1) ------------------------------------------------------------

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const deprecatedAddressTypes = ['IP'];

/** SetDefaults_EndpointPort: name "" and protocol TCP. */
function defaultEndpointSlice(object: KubeObject): void {
  if (!Array.isArray(object['ports'])) return;
  object['ports'] = (object['ports'] as JsonValue[]).map((port) => {
    if (!isFields(port)) return port;
    const result: Fields = { ...port };
    if (result['name'] === undefined || result['name'] === null) result['name'] = '';
    if (result['protocol'] === undefined || result['protocol'] === null) result['protocol'] = 'TCP';
    return result;
  });
}

/** IsFullyQualifiedDomainName. */
function fqdnCauses(field: string, value: string): StatusCause[] {
  if (value === '') return [required(field)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const problems = dns1123SubdomainProblems(name);
  if (problems.length > 0) return [invalid(field, name, problems.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(field, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const labelProblems = dns1123LabelProblems(label);
    if (labelProblems.length > 0) return [invalid(field, label, labelProblems.join(','))];
  }
  return [];
}

function endpointAddressCauses(addressType: JsonValue | undefined, field: string, address: string): StatusCause[] {
  switch (addressType) {
    case 'IP':
      return legacyIpProblems(address).map((problem) => invalid(field, address, problem));
    case 'IPv4':
    case 'IPv6': {
      const { ip, causes } = strictIp(field, address);
      const family = addressType === 'IPv4' ? 4 : 16;
      if (ip !== undefined && causes.length === 0 && ip.bytes.length !== family) causes.push(invalid(field, address, `must be an ${addressType} address`));
      return [...causes, ...nonSpecialIpCauses(field, address)];
    }
    case 'FQDN':
      return fqdnCauses(field, address);
    default:
      return [];
  }
}

function endpointsCauses(object: KubeObject): StatusCause[] {
  const endpoints = records(object['endpoints'] as JsonValue | undefined);
  if (endpoints.length > 1000) return [tooMany('endpoints', endpoints.length, 1000)];
  const causes: StatusCause[] = [];
  endpoints.forEach((endpoint, index) => {
    const at = `endpoints[${index}]`;
    const addresses = strings(endpoint['addresses']);
    if (addresses.length === 0) causes.push(required(`${at}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > 100) causes.push(tooMany(`${at}.addresses`, addresses.length, 100));
    addresses.forEach((address, position) => causes.push(...endpointAddressCauses(object['addressType'] as JsonValue | undefined, `${at}.addresses[${position}]`, address)));
    const topology = fields(endpoint['deprecatedTopology']);
    if (Object.keys(topology).length > 16) causes.push(tooMany(`${at}.deprecatedTopology`, Object.keys(topology).length, 16));
    for (const [key, value] of Object.entries(topology)) {
      causes.push(...isQualifiedName(key).map((problem) => invalid(`${at}.deprecatedTopology`, key, problem)));
      causes.push(...labelValueProblems(String(value)).map((problem) => invalid(`${at}.deprecatedTopology`, String(value), problem)));
    }
    if (typeof endpoint['hostname'] === 'string') {
      const hostname = endpoint['hostname'];
      causes.push(...dns1123LabelProblems(hostname).map((problem) => invalid(`${at}.hostname`, hostname, problem)));
    }
    if (typeof endpoint['nodeName'] === 'string') {
      const nodeName = endpoint['nodeName'];
      causes.push(...dns1123SubdomainProblems(nodeName).map((problem) => invalid(`${at}.nodeName`, nodeName, problem)));
    }
  });
  return causes;
}

function endpointPortsCauses(object: KubeObject): StatusCause[] {
  const ports = records(object['ports'] as JsonValue | undefined);
  if (ports.length > 100) return [tooMany('ports', ports.length, 100)];
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((port, index) => {
    const at = `ports[${index}]`;
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (name !== '') causes.push(...dns1123LabelProblems(name).map((problem) => invalid(`${at}.name`, name, problem)));
    if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
    names.add(name);
    const protocol = port['protocol'];
    if (protocol === undefined || protocol === null) causes.push(required(`${at}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(String(protocol))) causes.push(notSupported(`${at}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
    if (typeof port['appProtocol'] === 'string') {
      const appProtocol = port['appProtocol'];
      causes.push(...isQualifiedName(appProtocol).map((problem) => invalid(`${at}.appProtocol`, appProtocol, problem)));
    }
  });
  return causes;
}

function addressTypeCauses(addressType: JsonValue | undefined, valid: readonly string[]): StatusCause[] {
  if (addressType === undefined || addressType === null || addressType === '') return [required('addressType')];
  return valid.includes(String(addressType)) ? [] : [notSupported('addressType', addressType, valid)];
}

/** What an update compares for the generation: everything but metadata, plus the labels. */
function endpointSliceContent(object: KubeObject): JsonValue {
  const { metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return { ...rest, labels: (metadata.labels ?? {}) as JsonValue } as JsonValue;
}

export const endpointSliceStrategy: Strategy = {
  // kube: PUT of an absent EndpointSlice is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    defaultEndpointSlice(object);
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    defaultEndpointSlice(object);
    bumpGeneration(object, old, endpointSliceContent(object), endpointSliceContent(old));
  },
  validate: (object) => [...endpointsCauses(object), ...endpointPortsCauses(object)],
  validateCreate: (object) => addressTypeCauses(object['addressType'] as JsonValue | undefined, addressTypes),
  validateUpdate(object, old) {
    const causes = addressTypeCauses(object['addressType'] as JsonValue | undefined, [...addressTypes, ...deprecatedAddressTypes].sort());
    if (object['addressType'] !== old['addressType']) causes.push(invalid('addressType', object['addressType'] ?? '', 'field is immutable'));
    return causes;
  },
};
