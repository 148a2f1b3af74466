// Owns: the named formats of the CEL format library (format.named(name) and format.<name>()):
// each format's validation with apimachinery's problem texts and its MaxRegexSize used by cost.

import { parseRequestURL } from './net.ts';

/** A named format (kube's cel.Format). */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly validate: (value: string) => string[],
    readonly maxRegexSize: number,
  ) {}
}

const dns1123LabelPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123LabelMessage = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1123SubdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1123SubdomainMessage = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const dns1035LabelPattern = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035LabelMessage = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const qualifiedNamePattern = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const qualifiedNameMessage = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const labelValueMessage = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function dns1123Label(value: string): string[] {
  const problems = value.length > 63 ? ['must be no more than 63 characters'] : [];
  return dns1123LabelPattern.test(value) ? problems : [...problems, dns1123LabelMessage];
}

function dns1123Subdomain(value: string): string[] {
  const problems = value.length > 253 ? ['must be no more than 253 characters'] : [];
  return dns1123SubdomainPattern.test(value) ? problems : [...problems, dns1123SubdomainMessage];
}

function dns1035Label(value: string): string[] {
  const problems = value.length > 63 ? ['must be no more than 63 characters'] : [];
  return dns1035LabelPattern.test(value) ? problems : [...problems, dns1035LabelMessage];
}

/** apimachinery's mask for name prefixes (generateName): a trailing '-' is allowed. */
function prefixed(validate: (value: string) => string[]): (value: string) => string[] {
  return (value) => validate(value.endsWith('-') ? value.slice(0, -1) : value);
}

function qualifiedName(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return [`a qualified name ${qualifiedNameMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const name = parts.at(-1)!;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...dns1123Subdomain(prefix).map((problem) => `prefix part ${problem}`));
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (!qualifiedNamePattern.test(name)) problems.push(`name part ${qualifiedNameMessage}`);
  return problems;
}

function labelValue(value: string): string[] {
  const problems = value.length > 63 ? ['must be no more than 63 characters'] : [];
  return labelValuePattern.test(value) ? problems : [...problems, labelValueMessage];
}

function uri(value: string): string[] {
  try {
    parseRequestURL(value);
    return [];
  } catch (error) {
    return [(error as Error).message.replace(/^URL parse error during conversion from string: /, '')];
  }
}

const uuidPattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidPatternText = '(?i)(^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)';
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePatternText = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';

function validDate(value: string): boolean {
  const match = datePattern.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= days[month - 1]!;
}

function validDateTime(value: string): boolean {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/.exec(value);
  if (match === null || !validDate(match[1]!)) return false;
  return Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 61;
}

function validBase64(value: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value);
}

/** kube's ConstantFormats, by the name format.named takes. */
export const namedFormats: ReadonlyMap<string, NamedFormat> = new Map([
  ['dns1123Label', new NamedFormat('DNS1123Label', dns1123Label, 30)],
  ['dns1123Subdomain', new NamedFormat('DNS1123Subdomain', dns1123Subdomain, 60)],
  ['dns1035Label', new NamedFormat('DNS1035Label', dns1035Label, 30)],
  ['qualifiedName', new NamedFormat('QualifiedName', qualifiedName, 60)],
  ['dns1123LabelPrefix', new NamedFormat('DNS1123LabelPrefix', prefixed(dns1123Label), 30)],
  ['dns1123SubdomainPrefix', new NamedFormat('DNS1123SubdomainPrefix', prefixed(dns1123Subdomain), 60)],
  ['dns1035LabelPrefix', new NamedFormat('DNS1035LabelPrefix', prefixed(dns1035Label), 30)],
  ['labelValue', new NamedFormat('LabelValue', labelValue, 40)],
  ['uri', new NamedFormat('URI', uri, 1103)],
  ['uuid', new NamedFormat('uuid', (value) => (uuidPattern.test(value) ? [] : ['does not match the UUID format']), uuidPatternText.length)],
  ['byte', new NamedFormat('byte', (value) => (validBase64(value) ? [] : ['invalid base64']), 84)],
  ['date', new NamedFormat('date', (value) => (validDate(value) ? [] : ['invalid date']), dateTimePatternText.length)],
  ['datetime', new NamedFormat('datetime', (value) => (validDateTime(value) ? [] : ['invalid datetime']), dateTimePatternText.length)],
]);
