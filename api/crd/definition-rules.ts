// Owns: the field rules of kube's apiextensions validation that a CustomResourceDefinition's
// parts meet one at a time, in kube's words and field paths: names (ValidateCustomResourceDefinitionNames),
// printer columns, subresources (scale paths), selectable fields (the JSON path walked through
// the structural schema), the deprecation warning, webhook conversion, stored versions and the
// API approval annotation of protected groups. Pure.
import type { JsonValue } from '../../actors/index.ts';
import { forbidden, required } from '../registry/strategy-quota.ts';
import { dns1035LabelProblems } from '../registry/strategy-admissionregistration.ts';
import { nameProblems } from '../registry/validation.ts';
import type { StatusCause } from '../status.ts';
import {
  duplicateText, goQuote, goStrings, invalidRendered, invalidText, isGoPrintable, notSupportedText, tooMany, utf8Length,
} from './definition-go.ts';
import type { InternalVersion } from './definition-go.ts';
import { fieldsOf, isFields, listOf, textOf } from './definition-internal.ts';
import type { Fields, InternalConversion } from './definition-internal.ts';
import { caBundleCauses, webhookServiceCauses, webhookUrlCauses } from './definition-webhook.ts';

/** ValidateCustomResourceDefinitionNames: formats only (which names are required is the spec's rule). */
export function namesCauses(names: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const plural = textOf(names['plural']);
  const singular = textOf(names['singular']);
  const kind = textOf(names['kind']);
  const listKind = textOf(names['listKind']);
  const label = (value: string): string => dns1035LabelProblems(value).join(',');
  if (plural !== '' && label(plural) !== '') causes.push(invalidText(`${field}.plural`, plural, label(plural)));
  if (singular !== '' && label(singular) !== '') causes.push(invalidText(`${field}.singular`, singular, label(singular)));
  if (kind !== '' && label(kind.toLowerCase()) !== '') {
    causes.push(invalidText(`${field}.kind`, kind, `may have mixed case, but should otherwise match: ${label(kind.toLowerCase())}`));
  }
  if (listKind !== '' && label(listKind.toLowerCase()) !== '') {
    causes.push(invalidText(`${field}.listKind`, listKind, `may have mixed case, but should otherwise match: ${label(listKind.toLowerCase())}`));
  }
  (listOf(names['shortNames']) ?? []).forEach((item, index) => {
    const shortName = textOf(item);
    if (label(shortName) !== '') causes.push(invalidText(`${field}.shortNames[${index}]`, shortName, label(shortName)));
  });
  if (kind !== '' && kind === listKind) causes.push(invalidText(`${field}.listKind`, listKind, 'kind and listKind may not be the same'));
  (listOf(names['categories']) ?? []).forEach((item, index) => {
    const category = textOf(item);
    if (label(category) !== '') causes.push(invalidText(`${field}.categories[${index}]`, category, label(category)));
  });
  return causes;
}

/** validateSimpleJSONPath (only its first two cases can fail). */
function simpleJsonPathCauses(path: string, field: string): StatusCause[] {
  if (path === '') return [invalidText(field, path, 'must not be empty')];
  if (!path.startsWith('.')) return [invalidText(field, path, 'must be a simple json path starting with .')];
  return [];
}

const columnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const columnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** ValidateCustomResourceColumnDefinition (kube names the path field `JSONPath`). */
export function columnCauses(value: JsonValue, field: string): StatusCause[] {
  const column = fieldsOf(value);
  const causes: StatusCause[] = [];
  if (textOf(column['name']) === '') causes.push(required(`${field}.name`));
  const type = textOf(column['type']);
  if (type === '') causes.push(required(`${field}.type`, `must be one of ${columnTypes.join(',')}`));
  else if (!columnTypes.includes(type)) causes.push(invalidText(`${field}.type`, type, `must be one of ${columnTypes.join(',')}`));
  const format = textOf(column['format']);
  if (format !== '' && !columnFormats.includes(format)) causes.push(invalidText(`${field}.format`, format, `must be one of ${columnFormats.join(',')}`));
  const jsonPath = textOf(column['jsonPath']);
  if (jsonPath === '') causes.push(required(`${field}.JSONPath`));
  else causes.push(...simpleJsonPathCauses(jsonPath, `${field}.JSONPath`));
  return causes;
}

/** ValidateCustomResourceDefinitionSubresources: the scale subresource's paths. */
export function subresourcesCauses(subresources: Fields | undefined, field: string): StatusCause[] {
  const scale = subresources?.['scale'];
  if (!isFields(scale)) return [];
  const causes: StatusCause[] = [];
  const path = (key: string, prefixes: readonly string[], detail: string, required_: boolean): void => {
    const value = textOf(scale[key]);
    const at = `${field}.scale.${key}`;
    if (value === '') {
      if (required_) causes.push(required(at));
      return;
    }
    const problems = simpleJsonPathCauses(value, at);
    if (problems.length > 0) causes.push(...problems);
    else if (!prefixes.some((prefix) => value.startsWith(prefix))) causes.push(invalidText(at, value, detail));
  };
  path('specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
  path('statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
  path('labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false);
  return causes;
}

/** A step of apiextensions' cel.ValidFieldPath through a structural schema. */
interface FieldPathResult {
  /** field.Path's String() of the path walked (`spec.labels[app]`). */
  readonly path: string;
  readonly root: string;
  readonly schema: Fields | undefined;
}

/** The tokens ValidFieldPath's scanner splits a path into: `.`, `[`, `]`, a single-quoted string, or the text between. */
function pathTokens(path: string): string[] {
  const tokens: string[] = [];
  let rest = path;
  while (rest.length > 0) {
    if (rest.startsWith("'")) {
      let end = -1;
      for (let index = 1; index < rest.length; index++) {
        if (rest[index] === "'" && rest[index - 1] !== '\\') {
          end = index;
          break;
        }
      }
      const token = end < 0 ? rest : rest.slice(0, end + 1);
      tokens.push(token);
      rest = rest.slice(token.length);
      continue;
    }
    if ('.[]'.includes(rest[0]!)) {
      tokens.push(rest[0]!);
      rest = rest.slice(1);
      continue;
    }
    const next = rest.search(/[.[\]]/);
    const token = next < 0 ? rest : rest.slice(0, next);
    tokens.push(token);
    rest = rest.slice(token.length);
  }
  return tokens;
}

/**
 * apiextensions' cel.ValidFieldPath with array notation refused, over the raw schema: `.a.b` and
 * `['a']` name properties (or keys of additionalProperties). Returns the error text or the path.
 */
export function validFieldPath(jsonPath: string, root: Fields | undefined): FieldPathResult | string {
  let schema = root;
  const segments: string[] = [];
  let rootName = '';
  const step = (name: string): string | undefined => {
    if (schema === undefined) return 'does not refer to a valid field';
    const properties = fieldsOf(schema['properties']);
    if (Object.keys(properties).length > 0) {
      if (segments.length === 0) rootName = name;
      segments.push(segments.length === 0 ? name : `.${name}`);
      const next = properties[name];
      if (!isFields(next)) return 'does not refer to a valid field';
      schema = next;
      return undefined;
    }
    const additional = schema['additionalProperties'];
    if (additional !== undefined && additional !== null) {
      if (segments.length === 0) rootName = `[${name}]`;
      segments.push(`[${name}]`);
      schema = isFields(additional) ? additional : undefined;
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  const tokens = pathTokens(jsonPath);
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token === '[') return 'array notation is not allowed';
    if (token !== '.') return `expected [ or . but got: ${token}`;
    const name = tokens[++index];
    if (name === undefined) return 'unexpected end of JSON path';
    const problem = step(name);
    if (problem !== undefined) return problem;
  }
  return { path: segments.join(''), root: rootName, schema };
}

/** ValidateCustomResourceSelectableFields against the version's (or the spec's) openAPIV3Schema. */
export function selectableFieldsCauses(selectable: readonly JsonValue[], schema: Fields | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const unique = new Set<string>();
  selectable.forEach((item, index) => {
    const at = `${field}[${index}].jsonPath`;
    const jsonPath = textOf(fieldsOf(item)['jsonPath']);
    if (jsonPath === '') {
      causes.push(required(at));
      return;
    }
    const found = validFieldPath(jsonPath, schema);
    if (typeof found === 'string') {
      causes.push(invalidText(at, jsonPath, `is an invalid path: ${found}`));
      return;
    }
    if (found.root === 'metadata') causes.push(invalidText(at, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(textOf(found.schema?.['type']))) {
      causes.push(invalidText(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(found.path)) causes.push(duplicateText(at, jsonPath));
    else unique.add(found.path);
  });
  if (unique.size > 8) causes.push(tooMany(field, unique.size, 8));
  return causes;
}

/** validateDeprecationWarning's problems. */
export function deprecationWarningProblems(version: InternalVersion): string[] {
  const warning = version.deprecationWarning;
  if (!version.deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const problems: string[] = [];
  if (utf8Length(warning) > 256) problems.push('must be <= 256 characters long');
  if (warning.length === 0) problems.push('must not be an empty string');
  let byteIndex = 0;
  for (const char of warning) {
    if (!isGoPrintable(char)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byteIndex}`);
      break;
    }
    byteIndex += utf8Length(char);
  }
  return problems;
}

/** The ConversionReview versions an API server understands. */
const acceptedReviewVersions = ['v1', 'v1beta1'];

/** Whether a list names a ConversionReview version the server understands, or is empty. */
export function hasAcceptedReviewVersionOrEmpty(versions: readonly JsonValue[] | undefined): boolean {
  return (versions ?? []).length === 0 || (versions ?? []).some((version) => acceptedReviewVersions.includes(textOf(version)));
}

function reviewVersionsCauses(versions: readonly JsonValue[] | undefined, requireRecognized: boolean, field: string): StatusCause[] {
  const listed = (versions ?? []).map(textOf);
  if (listed.length === 0) return [required(field)];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let accepted = false;
  listed.forEach((version, index) => {
    if (seen.has(version)) {
      causes.push(invalidText(`${field}[${index}]`, version, 'duplicate version'));
      return;
    }
    seen.add(version);
    for (const problem of dns1035LabelProblems(version)) causes.push(invalidText(`${field}[${index}]`, version, problem));
    if (acceptedReviewVersions.includes(version)) accepted = true;
  });
  if (requireRecognized && !accepted) causes.push(invalidRendered(field, goStrings(listed), `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return causes;
}

/** validateCustomResourceConversion of the internal conversion, at `spec.conversion`. */
export function conversionCauses(conversion: InternalConversion | undefined, options: { readonly requireRecognizedReviewVersion: boolean; readonly allowInvalidCaBundle: boolean }): StatusCause[] {
  if (conversion === undefined) return [];
  const field = 'spec.conversion';
  const causes: StatusCause[] = [];
  const strategies = ['None', 'Webhook'];
  if (conversion.strategy === '') causes.push(required(`${field}.strategy`));
  else if (!strategies.includes(conversion.strategy)) causes.push(notSupportedText(`${field}.strategy`, conversion.strategy, strategies));
  const clientConfig = conversion.webhookClientConfig;
  if (conversion.strategy === 'Webhook') {
    if (clientConfig === undefined) {
      causes.push(required(`${field}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    } else {
      const url = clientConfig['url'];
      const service = clientConfig['service'];
      const hasUrl = typeof url === 'string';
      const hasService = isFields(service);
      if (hasUrl === hasService) causes.push(required(`${field}.webhookClientConfig`, 'exactly one of url or service is required'));
      else if (hasUrl) causes.push(...webhookUrlCauses(`${field}.webhookClientConfig.url`, url));
      else causes.push(...webhookServiceCauses(`${field}.webhookClientConfig.service`, service as Fields));
      if (!options.allowInvalidCaBundle) causes.push(...caBundleCauses(`${field}.webhookClientConfig.caBundle`, clientConfig['caBundle']));
    }
    causes.push(...reviewVersionsCauses(conversion.conversionReviewVersions, options.requireRecognizedReviewVersion, `${field}.conversionReviewVersions`));
  } else {
    if (clientConfig !== undefined) causes.push(forbidden(`${field}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if ((conversion.conversionReviewVersions ?? []).length > 0) {
      causes.push(forbidden(`${field}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
    }
  }
  return causes;
}

/** ValidateCustomResourceDefinitionStoredVersions, at `status.storedVersions`. */
export function storedVersionsCauses(storedVersions: readonly string[] | undefined, versions: readonly InternalVersion[]): StatusCause[] {
  const field = 'status.storedVersions';
  if ((storedVersions ?? []).length === 0) return [invalidRendered(field, goStrings(storedVersions), 'must have at least one stored version')];
  const stored = storedVersions!;
  const causes: StatusCause[] = [];
  const remaining = new Map(stored.map((version, index) => [version, index] as const));
  for (const version of versions) {
    const known = remaining.has(version.name);
    if (version.storage && !known) causes.push(invalidRendered(field, goStrings(stored), `must have the storage version ${version.name}`));
    if (known) remaining.delete(version.name);
  }
  // Go ranges over a map here (random order); kstore reports in list order.
  for (const [version, index] of [...remaining].sort(([, left], [, right]) => left - right)) {
    causes.push(invalidText(`${field}[${index}]`, version,
      `missing from spec.versions; ${version} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${version} and removes ${version} from status.storedVersions`));
  }
  return causes;
}

const approvalAnnotation = 'api-approved.kubernetes.io';

/** IsProtectedCommunityGroup: k8s.io and kubernetes.io and their subdomains. */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

/** apihelpers.GetAPIApprovalState. */
function approvalState(annotations: Readonly<Record<string, string>> | undefined): { readonly state: ApprovalState; readonly reason: string } {
  const annotation = annotations?.[approvalAnnotation] ?? '';
  if (annotation === '') {
    return { state: 'missing', reason: `protected groups must have approval annotation ${goQuote(approvalAnnotation)}, see https://github.com/kubernetes/enhancements/pull/1111` };
  }
  if (annotation.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: ${goQuote(annotation)}` };
  // url.ParseRequestURI with a scheme and a host.
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#@\s]*@)?[^/?#\s@]+([/?#]\S*)?$/.test(annotation)) return { state: 'approved', reason: `approved in ${annotation}` };
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation ${goQuote(approvalAnnotation)} with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}

/** validateAPIApproval: a protected group needs the approval annotation, unless its state did not change. */
export function apiApprovalCauses(group: string, annotations: Readonly<Record<string, string>> | undefined, oldAnnotations?: Readonly<Record<string, string>>, isUpdate = false): StatusCause[] {
  if (!isProtectedGroup(group)) return [];
  const next = approvalState(annotations);
  if (isUpdate && approvalState(oldAnnotations).state === next.state) return [];
  const field = `metadata.annotations[${approvalAnnotation}]`;
  if (next.state === 'missing') return [required(field, next.reason)];
  if (next.state === 'invalid') return [invalidText(field, annotations?.[approvalAnnotation] ?? '', next.reason)];
  return [];
}

/** apimachinery's IsDNS1123Subdomain, joined as the group rule prints it. */
export function groupProblems(group: string): string {
  return nameProblems(group, 'dns1123Subdomain').join(',');
}
