// Owns: the create/update behaviour of the admissionregistration.k8s.io/v1 kinds as
// kube-apiserver 1.33 has it: MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
// ValidatingAdmissionPolicy (+status) and ValidatingAdmissionPolicyBinding. The v1 defaults
// (failurePolicy Fail, matchPolicy Equivalent, empty selectors, timeoutSeconds 10,
// reinvocationPolicy Never, rule scope "*", service port 443), generation (1 on create, +1 when
// the webhooks or the spec change), the policy's status (reset on create, kept on writes to the
// main resource) and the validation causes a user meets, in kube's words.
//
// These objects are stored and validated only: no webhook is called and no policy is enforced
// yet (a later issue). CEL expressions (matchConditions, validations, auditAnnotations,
// variables) are checked for presence and shape but not compiled; compiling them comes with
// the CEL issue.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, isQualifiedName, labelValueProblems, nameProblems } from './validation.ts';
import { fields, isFields, list, sameJson, specOf, text } from './json-fields.ts';
import type { Fields } from './json-fields.ts';
import { webhookServiceCauses, webhookUrlCauses } from './webhook-client-config.ts';

function unset(value: JsonValue | undefined): boolean {
  return value === undefined || value === null;
}

// --- field.Error forms (k8s.io/apimachinery/pkg/util/validation/field) ---

function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail === '' ? 'Required value' : `Required value: ${detail}`, field };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(value)}`, field };
}

function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

function tooMany(field: string, count: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${count}: must have at most ${max} items`, field };
}

// --- defaults (pkg/apis/admissionregistration/v1/defaults.go) ---

/** SetDefaults_Rule on each rule (scope "*"). */
function defaultRules(rules: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(rules)) return rules;
  return rules.map((rule) => (isFields(rule) && unset(rule['scope']) ? { ...rule, scope: '*' } : rule));
}

/** SetDefaults_ServiceReference (port 443) on a webhook's clientConfig.service. */
function defaultClientConfig(clientConfig: JsonValue | undefined): JsonValue | undefined {
  if (!isFields(clientConfig) || !isFields(clientConfig['service'])) return clientConfig;
  const service = clientConfig['service'];
  return unset(service['port']) ? { ...clientConfig, service: { ...service, port: 443 } } : clientConfig;
}

/** SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook (v1). */
function defaultWebhook(hook: Fields, mutating: boolean): Fields {
  const result: Fields = { ...hook };
  if (unset(result['failurePolicy'])) result['failurePolicy'] = 'Fail';
  if (unset(result['matchPolicy'])) result['matchPolicy'] = 'Equivalent';
  if (unset(result['namespaceSelector'])) result['namespaceSelector'] = {};
  if (unset(result['objectSelector'])) result['objectSelector'] = {};
  if (unset(result['timeoutSeconds'])) result['timeoutSeconds'] = 10;
  if (mutating && unset(result['reinvocationPolicy'])) result['reinvocationPolicy'] = 'Never';
  if (result['rules'] !== undefined) result['rules'] = defaultRules(result['rules']) ?? null;
  if (result['clientConfig'] !== undefined) result['clientConfig'] = defaultClientConfig(result['clientConfig']) ?? null;
  return result;
}

/** SetDefaults_MatchResources, and SetDefaults_Rule on its resource rules. */
function defaultMatchResources(match: Fields): Fields {
  const result: Fields = { ...match };
  if (unset(result['matchPolicy'])) result['matchPolicy'] = 'Equivalent';
  if (unset(result['namespaceSelector'])) result['namespaceSelector'] = {};
  if (unset(result['objectSelector'])) result['objectSelector'] = {};
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    if (result[key] !== undefined) result[key] = defaultRules(result[key]) ?? null;
  }
  return result;
}

function defaultWebhooks(object: KubeObject, mutating: boolean): void {
  if (Array.isArray(object['webhooks'])) {
    object['webhooks'] = object['webhooks'].map((hook) => (isFields(hook) ? defaultWebhook(hook, mutating) : hook));
  }
}

function defaultPolicySpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['failurePolicy'])) result['failurePolicy'] = 'Fail';
  if (isFields(result['matchConstraints'])) result['matchConstraints'] = defaultMatchResources(result['matchConstraints']);
  return result;
}

function defaultBindingSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (isFields(result['matchResources'])) result['matchResources'] = defaultMatchResources(result['matchResources']);
  return result;
}

// --- shared validation ---

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035LabelMessage = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** apimachinery's IsDNS1035Label. */
export function dns1035LabelProblems(value: string): string[] {
  const problems = value.length > 63 ? ['must be no more than 63 characters'] : [];
  return dns1035Label.test(value) ? problems : [...problems, dns1035LabelMessage];
}

/** apimachinery's IsDNS1123Subdomain. */
export function dns1123SubdomainProblems(value: string): string[] {
  return nameProblems(value, 'dns1123Subdomain');
}

/** apimachinery's IsFullyQualifiedName (webhook names). */
function fullyQualifiedNameCauses(field: string, name: string): StatusCause[] {
  if (name === '') return [required(field)];
  const problems = dns1123SubdomainProblems(name);
  if (problems.length > 0) return [invalidValue(field, name, problems.join(','))];
  if (name.split('.').length < 3) return [invalidValue(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** metav1validation.ValidateLabelSelector (strict label values). */
export function labelSelectorCauses(selector: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(fields(selector['matchLabels']))) {
    for (const problem of isQualifiedName(key)) causes.push(invalidValue(`${field}.matchLabels`, key, problem));
    for (const problem of labelValueProblems(text(value))) causes.push(invalidValue(`${field}.matchLabels`, text(value), problem));
  }
  list(selector['matchExpressions']).forEach((raw, index) => {
    const at = `${field}.matchExpressions[${index}]`;
    const requirement = fields(raw);
    const values = list(requirement['values']);
    const operator = text(requirement['operator']);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) causes.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) causes.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      causes.push(invalidValue(`${at}.operator`, operator, 'not a valid selector operator'));
    }
    const key = text(requirement['key']);
    for (const problem of isQualifiedName(key)) causes.push(invalidValue(`${at}.key`, key, problem));
    values.forEach((value, position) => {
      for (const problem of labelValueProblems(text(value))) causes.push(invalidValue(`${at}.values[${position}]`, text(value), problem));
    });
  });
  return causes;
}

function hasWildcard(values: readonly JsonValue[]): boolean {
  return values.includes('*');
}

/** validateResources: resources with subresources and their wildcard rules. */
function resourcesCauses(resources: readonly JsonValue[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (resources.length === 0) causes.push(required(field));
  const resourcesWithWildcardSubresources = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((raw, index) => {
    const resource = text(raw);
    if (resource === '') {
      causes.push(required(`${field}[${index}]`));
      return;
    }
    if (resource === '*/*') hasDoubleWildcard = true;
    if (resource === '*') hasSingleWildcard = true;
    const slash = resource.indexOf('/');
    if (slash < 0) {
      hasResourceWithoutSubresource = resource !== '*';
      return;
    }
    const [main, sub] = [resource.slice(0, slash), resource.slice(slash + 1)];
    if (resourcesWithWildcardSubresources.has(main)) causes.push(invalidValue(`${field}[${index}]`, resource, `if '${main}/*' is present, must not specify ${resource}`));
    if (subresourcesWithWildcardResource.has(sub)) causes.push(invalidValue(`${field}[${index}]`, resource, `if '*/${sub}' is present, must not specify ${resource}`));
    if (sub === '*') resourcesWithWildcardSubresources.add(main);
    if (main === '*') subresourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard) causes.push(invalidValue(field, resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) causes.push(invalidValue(field, resources, "if '*' is present, must not specify other resources without subresources"));
  return causes;
}

const scopes = ['*', 'Cluster', 'Namespaced'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** validateRuleWithOperations (the rule's fields at `field`). */
function ruleWithOperationsCauses(rule: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const ops = list(rule['operations']);
  if (ops.length === 0) causes.push(required(`${field}.operations`));
  if (ops.length > 1 && hasWildcard(ops)) causes.push(invalidValue(`${field}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((operation, index) => {
    if (!operations.includes(text(operation))) causes.push(notSupported(`${field}.operations[${index}]`, operation, operations));
  });
  const groups = list(rule['apiGroups']);
  if (groups.length === 0) causes.push(required(`${field}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) causes.push(invalidValue(`${field}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = list(rule['apiVersions']);
  if (versions.length === 0) causes.push(required(`${field}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) causes.push(invalidValue(`${field}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((version, index) => {
    if (text(version) === '') causes.push(required(`${field}.apiVersions[${index}]`));
  });
  causes.push(...resourcesCauses(list(rule['resources']), `${field}.resources`));
  const scope = rule['scope'];
  if (!unset(scope) && !scopes.includes(text(scope))) causes.push(notSupported(`${field}.scope`, scope!, scopes));
  return causes;
}

/** validateMatchConditions: names and presence of the expressions (CEL is not compiled here). */
function matchConditionsCauses(conditions: readonly JsonValue[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (conditions.length > 64) causes.push(tooMany(field, conditions.length, 64));
  const names = new Set<string>();
  conditions.forEach((raw, index) => {
    const condition = fields(raw);
    if (text(condition['expression']).trim() === '') causes.push(required(`${field}[${index}].expression`));
    const name = text(condition['name']);
    if (name === '') causes.push(required(`${field}[${index}].name`));
    else for (const problem of isQualifiedName(name)) causes.push(invalidValue(`${field}[${index}].name`, name, problem));
    if (name !== '') {
      if (names.has(name)) causes.push(duplicate(`${field}[${index}].name`, name));
      else names.add(name);
    }
  });
  return causes;
}

const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];
const reinvocationPolicies = ['IfNeeded', 'Never'];
const acceptedReviewVersions = ['v1', 'v1beta1'];

function enumCauses(field: string, value: JsonValue | undefined, supported: readonly string[]): StatusCause[] {
  return unset(value) || supported.includes(text(value)) ? [] : [notSupported(field, value!, supported)];
}

/** validateValidatingWebhook / validateMutatingWebhook, then validateAdmissionReviewVersions. */
function webhookCauses(hook: Fields, field: string, mutating: boolean): StatusCause[] {
  const causes = fullyQualifiedNameCauses(`${field}.name`, text(hook['name']));
  list(hook['rules']).forEach((rule, index) => causes.push(...ruleWithOperationsCauses(fields(rule), `${field}.rules[${index}]`)));
  causes.push(...enumCauses(`${field}.failurePolicy`, hook['failurePolicy'], failurePolicies));
  causes.push(...enumCauses(`${field}.matchPolicy`, hook['matchPolicy'], matchPolicies));
  if (unset(hook['sideEffects'])) causes.push(required(`${field}.sideEffects`, `must specify one of ${noSideEffectClasses.join(', ')}`));
  else causes.push(...enumCauses(`${field}.sideEffects`, hook['sideEffects'], noSideEffectClasses));
  const timeout = hook['timeoutSeconds'];
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) causes.push(invalidValue(`${field}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  if (isFields(hook['namespaceSelector'])) causes.push(...labelSelectorCauses(hook['namespaceSelector'], `${field}.namespaceSelector`));
  if (isFields(hook['objectSelector'])) causes.push(...labelSelectorCauses(hook['objectSelector'], `${field}.objectSelector`));
  if (mutating) causes.push(...enumCauses(`${field}.reinvocationPolicy`, hook['reinvocationPolicy'], reinvocationPolicies));
  const clientConfig = fields(hook['clientConfig']);
  const url = clientConfig['url'];
  const service = clientConfig['service'];
  if (unset(url) === unset(service)) causes.push(required(`${field}.clientConfig`, 'exactly one of url or service is required'));
  else if (!unset(url)) causes.push(...webhookUrlCauses(`${field}.clientConfig.url`, text(url)));
  else causes.push(...webhookServiceCauses(`${field}.clientConfig.service`, fields(service), typeof fields(service)['port'] === 'number' ? fields(service)['port'] as number : 0));
  causes.push(...matchConditionsCauses(list(hook['matchConditions']), `${field}.matchConditions`));
  causes.push(...reviewVersionsCauses(list(hook['admissionReviewVersions']), `${field}.admissionReviewVersions`));
  return causes;
}

/** validateAdmissionReviewVersions (a recognized version required). */
function reviewVersionsCauses(versions: readonly JsonValue[], field: string): StatusCause[] {
  if (versions.length === 0) return [required(field, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((raw, index) => {
    const version = text(raw);
    if (seen.has(version)) {
      causes.push(invalidValue(`${field}[${index}]`, version, 'duplicate version'));
      return;
    }
    seen.add(version);
    for (const problem of dns1035LabelProblems(version)) causes.push(invalidValue(`${field}[${index}]`, version, problem));
    if (acceptedReviewVersions.includes(version)) accepted = true;
  });
  if (!accepted) causes.push(invalidValue(field, versions, `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return causes;
}

function webhookConfigurationCauses(object: KubeObject, mutating: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  list(object['webhooks'] as JsonValue | undefined).forEach((raw, index) => {
    const hook = fields(raw);
    causes.push(...webhookCauses(hook, `webhooks[${index}]`, mutating));
    const name = text(hook['name']);
    if (name !== '') {
      if (names.has(name)) causes.push(duplicate(`webhooks[${index}].name`, name));
      else names.add(name);
    }
  });
  return causes;
}

/** A write that keeps the webhooks as they were bumps nothing; any change to them bumps generation. */
function webhookConfigurationStrategy(mutating: boolean): Strategy {
  return {
    // kube: PUT of an absent webhook configuration is 404.
    allowCreateOnUpdate: false,
    prepareForCreate(object) {
      defaultWebhooks(object, mutating);
      object.metadata.generation = 1;
    },
    prepareForUpdate(object, old) {
      defaultWebhooks(object, mutating);
      const generation = old.metadata.generation ?? 1;
      object.metadata.generation = sameJson(object['webhooks'] as JsonValue | undefined, old['webhooks'] as JsonValue | undefined) ? generation : generation + 1;
    },
    validate: (object) => webhookConfigurationCauses(object, mutating),
  };
}

export const mutatingWebhookConfigurationStrategy: Strategy = webhookConfigurationStrategy(true);
export const validatingWebhookConfigurationStrategy: Strategy = webhookConfigurationStrategy(false);

// --- ValidatingAdmissionPolicy and its binding ---

/** validateNamedRuleWithOperations. */
function namedRuleCauses(rule: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  list(rule['resourceNames']).forEach((raw, index) => {
    const name = text(raw);
    for (const problem of nameProblems(name, 'pathSegment')) causes.push(invalidValue(`${field}.resourceNames[${index}]`, name, problem));
    if (names.has(name)) causes.push(duplicate(`${field}.resourceNames[${index}]`, name));
    else names.add(name);
  });
  return [...causes, ...ruleWithOperationsCauses(rule, field)];
}

/** validateMatchResources. */
function matchResourcesCauses(match: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (unset(match['matchPolicy'])) causes.push(required(`${field}.matchPolicy`));
  else causes.push(...enumCauses(`${field}.matchPolicy`, match['matchPolicy'], matchPolicies));
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    if (!isFields(match[selector])) causes.push(required(`${field}.${selector}`));
    else causes.push(...labelSelectorCauses(match[selector], `${field}.${selector}`));
  }
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    list(match[key]).forEach((rule, index) => causes.push(...namedRuleCauses(fields(rule), `${field}.${key}[${index}]`)));
  }
  return causes;
}

/** validateParamKind. */
function paramKindCauses(paramKind: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const apiVersion = text(paramKind['apiVersion']);
  if (apiVersion === '') {
    causes.push(required(`${field}.apiVersion`));
  } else if (apiVersion !== '/' && apiVersion.split('/').length > 2) {
    causes.push(invalidValue(`${field}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  } else {
    const parts = apiVersion === '/' ? ['', ''] : apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const [group, version] = [parts[0]!, parts[1]!];
    if (group !== '') {
      const problems = dns1123SubdomainProblems(group);
      if (problems.length > 0) causes.push(invalidValue(`${field}.apiVersion`, group, problems.join(',')));
    }
    if (version === '') causes.push(invalidValue(`${field}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const problems = dns1035LabelProblems(version);
      if (problems.length > 0) causes.push(invalidValue(`${field}.apiVersion`, version, problems.join(',')));
    }
  }
  const kind = text(paramKind['kind']);
  if (kind === '') causes.push(required(`${field}.kind`));
  else {
    const problems = dns1035LabelProblems(kind.toLowerCase());
    if (problems.length > 0) causes.push(invalidValue(`${field}.kind`, kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  }
  return causes;
}

const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const validationReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;

function validationCauses(validation: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (text(validation['expression']).trim() === '') causes.push(required(`${field}.expression`, 'expression is not specified'));
  const messageExpression = text(validation['messageExpression']);
  if (messageExpression.length > 0 && messageExpression.trim() === '') causes.push(invalidValue(`${field}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  const message = text(validation['message']);
  if (message.length > 0 && message.trim() === '') causes.push(invalidValue(`${field}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) causes.push(invalidValue(`${field}.message`, message, 'message must not contain line breaks'));
  causes.push(...enumCauses(`${field}.reason`, validation['reason'], validationReasons));
  return causes;
}

function auditAnnotationCauses(policyName: string, annotation: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const key = text(annotation['key']);
  if (policyName !== '') {
    for (const problem of isQualifiedName(`${policyName}/${key}`)) causes.push(invalidValue(`${field}.key`, `${policyName}/${key}`, problem));
  } else {
    causes.push(invalidValue(`${field}.key`, key, 'requires metadata.name be non-empty'));
  }
  const valueExpression = text(annotation['valueExpression']).trim();
  if (valueExpression === '') causes.push(required(`${field}.valueExpression`, 'valueExpression is not specified'));
  else if (valueExpression.length > maxAuditAnnotationValueExpressionLength) causes.push(required(`${field}.valueExpression`, `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
  return causes;
}

/** validateValidatingAdmissionPolicySpec, without compiling the CEL expressions. */
function policySpecCauses(name: string, spec: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  if (unset(spec['failurePolicy'])) causes.push(required('spec.failurePolicy'));
  else causes.push(...enumCauses('spec.failurePolicy', spec['failurePolicy'], failurePolicies));
  if (isFields(spec['paramKind'])) causes.push(...paramKindCauses(spec['paramKind'], 'spec.paramKind'));
  if (!isFields(spec['matchConstraints'])) {
    causes.push(required('spec.matchConstraints'));
  } else {
    causes.push(...matchResourcesCauses(spec['matchConstraints'], 'spec.matchConstraints'));
    if (list(spec['matchConstraints']['resourceRules']).length === 0) causes.push(required('spec.matchConstraints.resourceRules'));
  }
  causes.push(...matchConditionsCauses(list(spec['matchConditions']), 'spec.matchConditions'));
  list(spec['variables']).forEach((raw, index) => {
    const variable = fields(raw);
    const variableName = text(variable['name']);
    if (variableName.trim() === '') causes.push(required(`spec.variables[${index}].name`, 'name is not specified'));
    else if (!celIdentifier.test(variableName) || celReserved.has(variableName)) causes.push(invalidValue(`spec.variables[${index}].name`, variableName, 'name is not a valid CEL identifier'));
    if (text(variable['expression']).trim() === '') causes.push(required(`spec.variables[${index}].expression`, 'expression is not specified'));
  });
  const validations = list(spec['validations']);
  const auditAnnotations = list(spec['auditAnnotations']);
  if (validations.length === 0 && auditAnnotations.length === 0) {
    causes.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    causes.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return causes;
  }
  validations.forEach((raw, index) => causes.push(...validationCauses(fields(raw), `spec.validations[${index}]`)));
  if (auditAnnotations.length > maxAuditAnnotations) causes.push(invalidValue('spec.auditAnnotations', auditAnnotations, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  const keys = new Set<string>();
  auditAnnotations.forEach((raw, index) => {
    const annotation = fields(raw);
    causes.push(...auditAnnotationCauses(name, annotation, `spec.auditAnnotations[${index}]`));
    const key = text(annotation['key']);
    if (keys.has(key)) causes.push(duplicate(`spec.auditAnnotations[${index}].key`, key));
    keys.add(key);
  });
  return causes;
}

const validationActions = ['Audit', 'Deny', 'Warn'];

/** validateValidationActions. */
function validationActionsCauses(actions: readonly JsonValue[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  actions.forEach((raw, index) => {
    const action = text(raw);
    if (!validationActions.includes(action)) causes.push(notSupported(`${field}[${index}]`, raw, validationActions));
    if (seen.has(action)) causes.push(duplicate(`${field}[${index}]`, raw));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    causes.push(invalidValue(field, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) causes.push(required(field, 'at least one validation action is required'));
  return causes;
}

/** validateParamRef. */
function paramRefCauses(paramRef: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = text(paramRef['name']);
  const selector = paramRef['selector'];
  if (name !== '') {
    for (const problem of nameProblems(name, 'pathSegment')) causes.push(invalidValue(`${field}.name`, name, problem));
    if (isFields(selector)) causes.push(forbidden(`${field}.name`, 'name and selector are mutually exclusive'));
  }
  if (isFields(selector)) {
    causes.push(...labelSelectorCauses(selector, `${field}.selector`));
    if (name !== '') causes.push(forbidden(`${field}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name === '' && !isFields(selector)) causes.push(required(field, 'one of name or selector must be specified'));
  const action = paramRef['parameterNotFoundAction'];
  if (unset(action) || action === '') causes.push(required(`${field}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') causes.push(notSupported(`${field}.parameterNotFoundAction`, action!, ['Deny', 'Allow']));
  return causes;
}

/** validateValidatingAdmissionPolicyBindingSpec (kube reports matchResources under its misspelt path "matchResouces"). */
function bindingSpecCauses(spec: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  const policyName = text(spec['policyName']);
  if (policyName === '') causes.push(required('spec.policyName'));
  else for (const problem of dns1123SubdomainProblems(policyName)) causes.push(invalidValue('spec.policyName', policyName, problem));
  if (isFields(spec['paramRef'])) causes.push(...paramRefCauses(spec['paramRef'], 'spec.paramRef'));
  if (isFields(spec['matchResources'])) causes.push(...matchResourcesCauses(spec['matchResources'], 'spec.matchResouces'));
  causes.push(...validationActionsCauses(list(spec['validationActions']), 'spec.validationActions'));
  return causes;
}

export const validatingAdmissionPolicyStrategy: Strategy = {
  // kube: PUT of an absent policy is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultPolicySpec(specOf(object));
    object['status'] = {};
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    if (old['status'] !== undefined) object['status'] = old['status'];
    else delete object['status'];
    const spec = defaultPolicySpec(specOf(object));
    object['spec'] = spec;
    const generation = old.metadata.generation ?? 1;
    object.metadata.generation = sameJson(spec, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
  },
  validate: (object) => policySpecCauses(object.metadata.name ?? '', specOf(object)),
};

export const validatingAdmissionPolicyBindingStrategy: Strategy = {
  // kube: PUT of an absent binding is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    object['spec'] = defaultBindingSpec(specOf(object));
    object.metadata.generation = 1;
  },
  prepareForUpdate(object, old) {
    const spec = defaultBindingSpec(specOf(object));
    object['spec'] = spec;
    const generation = old.metadata.generation ?? 1;
    object.metadata.generation = sameJson(spec, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
  },
  validate: (object) => bindingSpecCauses(specOf(object)),
};
