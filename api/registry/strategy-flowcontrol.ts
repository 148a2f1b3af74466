// Owns: the create/update behaviour of flowcontrol.apiserver.k8s.io/v1 FlowSchemas and
// PriorityLevelConfigurations as kube-apiserver 1.33 has it: the v1 defaults (matchingPrecedence
// 1000; a limited level's nominalConcurrencyShares 30 and lendablePercent 0; queuing 64 queues,
// hand size 8, queue length limit 50; an exempt level's shares and lendable percent 0),
// generation (1 on create, +1 on a spec change), status (reset on create, kept on writes to the
// main resource) and the validation causes a user meets, in kube's words — including that the
// mandatory objects (exempt, catch-all) keep their fixed spec. The fixed specs and the rest of
// kube's bootstrap configuration are in apf-bootstrap-configuration.ts. Priority and fairness
// is not enforced: the objects are stored and validated (enforcement is a later issue).
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from './apf-bootstrap-configuration.ts';
import type { Strategy } from './kind.ts';
import { invalidValue, nameProblems } from './validation.ts';
import { fields, isFields, list, numberOf, sameJson, specOf, text } from './json-fields.ts';
import type { Fields } from './json-fields.ts';

function unset(value: JsonValue | undefined): boolean {
  return value === undefined || value === null;
}

/** The value without false and null fields: what a Go struct holds the same whether they are written or left out. */
function semantic(value: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((item) => semantic(item) ?? null);
  if (!isFields(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== false && item !== null).map(([key, item]) => [key, semantic(item) ?? null]));
}

/** Whether two FlowSchema or PriorityLevelConfiguration specs are equal as kube compares them (defaults applied by the caller). */
export function sameApfSpec(left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  return sameJson(semantic(left), semantic(right));
}

function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail === '' ? 'Required value' : `Required value: ${detail}`, field };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(value)}`, field };
}

// --- defaults (pkg/apis/flowcontrol/v1/defaults.go) ---

/** SetDefaults_FlowSchemaSpec. */
export function defaultFlowSchemaSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (unset(result['matchingPrecedence']) || result['matchingPrecedence'] === 0) result['matchingPrecedence'] = 1000;
  return result;
}

/** SetDefaults_ExemptPriorityLevelConfiguration, _LimitedPriorityLevelConfiguration and _QueuingConfiguration. */
export function defaultPriorityLevelSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  if (isFields(result['exempt'])) {
    const exempt: Fields = { ...result['exempt'] };
    if (unset(exempt['nominalConcurrencyShares'])) exempt['nominalConcurrencyShares'] = 0;
    if (unset(exempt['lendablePercent'])) exempt['lendablePercent'] = 0;
    result['exempt'] = exempt;
  }
  if (isFields(result['limited'])) {
    const limited: Fields = { ...result['limited'] };
    if (unset(limited['nominalConcurrencyShares'])) limited['nominalConcurrencyShares'] = 30;
    if (unset(limited['lendablePercent'])) limited['lendablePercent'] = 0;
    const limitResponse: Fields = { ...fields(limited['limitResponse']) };
    if (isFields(limitResponse['queuing'])) {
      const queuing: Fields = { ...limitResponse['queuing'] };
      if (unset(queuing['handSize']) || queuing['handSize'] === 0) queuing['handSize'] = 8;
      if (unset(queuing['queues']) || queuing['queues'] === 0) queuing['queues'] = 64;
      if (unset(queuing['queueLengthLimit']) || queuing['queueLengthLimit'] === 0) queuing['queueLengthLimit'] = 50;
      limitResponse['queuing'] = queuing;
    }
    limited['limitResponse'] = limitResponse;
    result['limited'] = limited;
  }
  return result;
}

// --- FlowSchema validation (pkg/apis/flowcontrol/validation) ---

const flowSchemaMaxMatchingPrecedence = 10000;
const distinguisherMethods = ['ByNamespace', 'ByUser'];
const subjectKinds = ['Group', 'ServiceAccount', 'User'];
const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const namespaceIntro = "each member of this list must be '*' or a DNS-1123 label; ";

function subjectCauses(subject: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const kind = text(subject['kind']);
  const present = (name: string): boolean => isFields(subject[name]);
  const forbidOther = (name: string, message: string): void => {
    if (present(name)) causes.push(forbidden(`${field}.${name}`, message));
  };
  const userForbidden = "user is forbidden when subject kind is not 'User'";
  const groupForbidden = "group is forbidden when subject kind is not 'Group'";
  const serviceAccountForbidden = "serviceAccount is forbidden when subject kind is not 'ServiceAccount'";
  if (kind === 'ServiceAccount') {
    if (!present('serviceAccount')) causes.push(required(`${field}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
    else {
      const account = fields(subject['serviceAccount']);
      const name = text(account['name']);
      if (name === '') causes.push(required(`${field}.serviceAccount.name`));
      else if (name !== '*') for (const problem of nameProblems(name, 'dns1123Subdomain')) causes.push(invalidValue(`${field}.serviceAccount.name`, name, problem));
      const namespace = text(account['namespace']);
      if (namespace === '') causes.push(required(`${field}.serviceAccount.namespace`, 'must specify namespace for service account'));
      else for (const problem of nameProblems(namespace, 'dns1123Label')) causes.push(invalidValue(`${field}.serviceAccount.namespace`, namespace, problem));
    }
    forbidOther('user', userForbidden);
    forbidOther('group', groupForbidden);
  } else if (kind === 'User') {
    if (!present('user')) causes.push(required(`${field}.user`, "user is required when subject kind is 'User'"));
    else if (text(fields(subject['user'])['name']) === '') causes.push(required(`${field}.user.name`));
    forbidOther('serviceAccount', serviceAccountForbidden);
    forbidOther('group', groupForbidden);
  } else if (kind === 'Group') {
    if (!present('group')) causes.push(required(`${field}.group`, "group is required when subject kind is 'Group'"));
    else if (text(fields(subject['group'])['name']) === '') causes.push(required(`${field}.group.name`));
    forbidOther('serviceAccount', serviceAccountForbidden);
    forbidOther('user', userForbidden);
  } else {
    causes.push(notSupported(`${field}.kind`, kind, subjectKinds));
  }
  return causes;
}

function verbsCauses(ruleVerbs: readonly JsonValue[], field: string): StatusCause[] {
  if (ruleVerbs.length === 0) return [required(field, 'verbs must contain at least one value')];
  if (ruleVerbs.includes('*')) return ruleVerbs.length > 1 ? [invalidValue(field, ruleVerbs, "if '*' is present, must not specify other verbs")] : [];
  return ruleVerbs.every((verb) => verbs.includes(text(verb))) ? [] : [notSupported(field, ruleVerbs, verbs)];
}

/** ValidateNonResourceURLPath. */
function nonResourceUrlProblem(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return 'must start with slash';
  if (path.includes(' ')) return 'must not contain white-space';
  if (path.includes('//')) return 'must not contain double slash';
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

function resourceRuleCauses(rule: Fields, field: string): StatusCause[] {
  const causes = verbsCauses(list(rule['verbs']), `${field}.verbs`);
  const groups = list(rule['apiGroups']);
  if (groups.length === 0) causes.push(required(`${field}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) causes.push(invalidValue(`${field}.apiGroups`, groups, "if '*' is present, must not specify other api groups"));
  const resources = list(rule['resources']);
  if (resources.length === 0) causes.push(required(`${field}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) causes.push(invalidValue(`${field}.resources`, resources, "if '*' is present, must not specify other resources"));
  const namespaces = list(rule['namespaces']);
  if (namespaces.length === 0 && rule['clusterScope'] !== true) {
    causes.push(required(`${field}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) causes.push(invalidValue(`${field}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((raw, index) => {
      for (const problem of nameProblems(text(raw), 'dns1123Label')) causes.push(invalidValue(`${field}.namespaces[${index}]`, text(raw), namespaceIntro + problem));
    });
  }
  return causes;
}

function nonResourceRuleCauses(rule: Fields, field: string): StatusCause[] {
  const causes = verbsCauses(list(rule['verbs']), `${field}.verbs`);
  const urls = list(rule['nonResourceURLs']);
  if (urls.length === 0) causes.push(required(`${field}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) causes.push(invalidValue(`${field}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((raw, index) => {
      const problem = nonResourceUrlProblem(text(raw));
      if (problem !== undefined) causes.push(invalidValue(`${field}.nonResourceURLs[${index}]`, text(raw), problem));
    });
  }
  return causes;
}

function policyRulesCauses(rule: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const subjects = list(rule['subjects']);
  if (subjects.length === 0) causes.push(required(`${field}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((subject, index) => causes.push(...subjectCauses(fields(subject), `${field}.subjects[${index}]`)));
  const resourceRules = list(rule['resourceRules']);
  const nonResourceRules = list(rule['nonResourceRules']);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) causes.push(required(field, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((item, index) => causes.push(...resourceRuleCauses(fields(item), `${field}.resourceRules[${index}]`)));
  nonResourceRules.forEach((item, index) => causes.push(...nonResourceRuleCauses(fields(item), `${field}.nonResourceRules[${index}]`)));
  return causes;
}

/** The Go form kube prints a spec with in "must equal the fixed value" (a struct, not JSON); kstore writes its JSON. */
function fixedSpecCause(name: string, spec: Fields): StatusCause {
  return invalidValue('spec', spec, `spec of '${name}' must equal the fixed value`);
}

function conditionsCauses(status: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  const types = new Set<string>();
  list(status['conditions']).forEach((raw, index) => {
    const type = text(fields(raw)['type']);
    if (types.has(type)) causes.push(duplicate(`status.conditions[${index}].type`, type));
    types.add(type);
    if (type === '') causes.push(required(`status.conditions[${index}].type`, 'must not be empty'));
  });
  return causes;
}

/** ValidateFlowSchema (the spec and status parts; metadata is the generic pipeline's). */
export function flowSchemaCauses(object: KubeObject): StatusCause[] {
  const name = object.metadata.name ?? '';
  const spec = fields(object['spec'] as JsonValue | undefined);
  const causes: StatusCause[] = [];
  const precedence = numberOf(spec['matchingPrecedence']);
  if (precedence <= 0) causes.push(invalidValue('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > flowSchemaMaxMatchingPrecedence) causes.push(invalidValue('spec.matchingPrecedence', precedence, `must not be greater than ${flowSchemaMaxMatchingPrecedence}`));
  if (precedence === 1 && name !== 'exempt') causes.push(invalidValue('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (isFields(spec['distinguisherMethod']) && !distinguisherMethods.includes(text(spec['distinguisherMethod']['type']))) {
    causes.push(notSupported('spec.distinguisherMethod.type', spec['distinguisherMethod'], distinguisherMethods));
  }
  const level = text(fields(spec['priorityLevelConfiguration'])['name']);
  if (level === '') causes.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const problem of nameProblems(level, 'dns1123Subdomain')) causes.push(invalidValue('spec.priorityLevelConfiguration.name', level, problem));
  list(spec['rules']).forEach((rule, index) => causes.push(...policyRulesCauses(fields(rule), `spec.rules[${index}]`)));
  const mandatory = mandatoryFlowSchemas.find((schema) => schema.metadata.name === name);
  if (mandatory !== undefined && !sameApfSpec(spec, defaultFlowSchemaSpec(mandatory.spec))) causes.push(fixedSpecCause(name, spec));
  causes.push(...conditionsCauses(fields(object['status'] as JsonValue | undefined)));
  return causes;
}

const enablements = ['Exempt', 'Limited'];
const limitResponseTypes = ['Queue', 'Reject'];
const maxQueues = 10 * 1000 * 1000;
/** shufflesharding.MaxHashBits. */
const maxHashBits = 60;

/** shufflesharding.RequiredEntropyBits: ceil(log2(deckSize) * handSize). */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

function queuingCauses(queuing: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const queueLengthLimit = numberOf(queuing['queueLengthLimit']);
  if (queueLengthLimit <= 0) causes.push(invalidValue(`${field}.queueLengthLimit`, queueLengthLimit, 'must be positive'));
  const queues = numberOf(queuing['queues']);
  if (queues <= 0) causes.push(invalidValue(`${field}.queues`, queues, 'must be positive'));
  else if (queues > maxQueues) causes.push(invalidValue(`${field}.queues`, queues, `must not be greater than ${maxQueues}`));
  const handSize = numberOf(queuing['handSize']);
  if (handSize <= 0) causes.push(invalidValue(`${field}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) causes.push(invalidValue(`${field}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > maxHashBits) {
    causes.push(invalidValue(`${field}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${maxHashBits}`));
  }
  return causes;
}

function limitedCauses(limited: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  // A v1 request may set 0 shares (kube's AllowZeroLimitedNominalConcurrencyShares for v1).
  const shares = numberOf(limited['nominalConcurrencyShares']);
  if (shares < 0) causes.push(invalidValue(`${field}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  const limitResponse = fields(limited['limitResponse']);
  const type = text(limitResponse['type']);
  if (type === 'Reject') {
    if (isFields(limitResponse['queuing'])) causes.push(forbidden(`${field}.limitResponse.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (type === 'Queue') {
    if (!isFields(limitResponse['queuing'])) causes.push(required(`${field}.limitResponse.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
    else causes.push(...queuingCauses(limitResponse['queuing'], `${field}.limitResponse.queuing`));
  } else {
    causes.push(notSupported(`${field}.limitResponse.type`, type, limitResponseTypes));
  }
  const lendable = limited['lendablePercent'];
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) causes.push(invalidValue(`${field}.lendablePercent`, lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = limited['borrowingLimitPercent'];
  if (typeof borrowing === 'number' && borrowing < 0) causes.push(invalidValue(`${field}.borrowingLimitPercent`, borrowing, 'if specified, must be a non-negative integer'));
  return causes;
}

function exemptCauses(exempt: Fields, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const shares = exempt['nominalConcurrencyShares'];
  if (typeof shares === 'number' && shares < 0) causes.push(invalidValue(`${field}.nominalConcurrencyShares`, shares, 'must be a non-negative number'));
  const lendable = exempt['lendablePercent'];
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) causes.push(invalidValue(`${field}.lendablePercent`, lendable, 'must be between 0 and 100, inclusive'));
  return causes;
}

/** ValidatePriorityLevelConfiguration (spec and status parts). */
export function priorityLevelCauses(object: KubeObject): StatusCause[] {
  const name = object.metadata.name ?? '';
  const spec = fields(object['spec'] as JsonValue | undefined);
  const causes: StatusCause[] = [];
  const type = text(spec['type']);
  if ((name === 'exempt') !== (type === 'Exempt')) causes.push(invalidValue('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (isFields(spec['limited'])) causes.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (isFields(spec['exempt'])) causes.push(...exemptCauses(spec['exempt'], 'spec.exempt'));
  } else if (type === 'Limited') {
    if (isFields(spec['exempt'])) causes.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!isFields(spec['limited'])) causes.push(required('spec.limited', 'must not be empty when type is Limited'));
    else causes.push(...limitedCauses(spec['limited'], 'spec.limited'));
  } else {
    causes.push(notSupported('spec.type', type, enablements));
  }
  // The exempt level's shares and lendable percent are the operator's to tune (kube keeps them on
  // the mandatory object); every other part of a mandatory level's spec is fixed.
  const mandatory = mandatoryPriorityLevels.find((level) => level.metadata.name === name);
  if (mandatory !== undefined) {
    const wanted = defaultPriorityLevelSpec(mandatory.spec);
    const comparable = name === 'exempt' && isFields(spec['exempt']) ? { ...spec, exempt: wanted['exempt'] ?? null } : spec;
    if (!sameApfSpec(comparable, wanted)) causes.push(fixedSpecCause(name, spec));
  }
  causes.push(...conditionsCauses(fields(object['status'] as JsonValue | undefined)));
  return causes;
}

function specStrategy(defaults: (spec: Fields) => Fields, validate: (object: KubeObject) => StatusCause[]): Strategy {
  return {
    // kube: PUT of an absent FlowSchema or PriorityLevelConfiguration is 404.
    allowCreateOnUpdate: false,
    prepareForCreate(object) {
      object['spec'] = defaults(specOf(object));
      object['status'] = {};
      object.metadata.generation = 1;
    },
    prepareForUpdate(object, old) {
      if (old['status'] !== undefined) object['status'] = old['status'];
      else delete object['status'];
      const spec = defaults(specOf(object));
      object['spec'] = spec;
      const generation = old.metadata.generation ?? 1;
      object.metadata.generation = sameJson(spec, old['spec'] as JsonValue | undefined) ? generation : generation + 1;
    },
    validate,
  };
}

export const flowSchemaStrategy: Strategy = specStrategy(defaultFlowSchemaSpec, flowSchemaCauses);
export const priorityLevelConfigurationStrategy: Strategy = specStrategy(defaultPriorityLevelSpec, priorityLevelCauses);
