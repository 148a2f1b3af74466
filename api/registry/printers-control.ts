// Owns: the Table cells of the control-plane configuration kinds as kube's printers compute them
// (pkg/printers/internalversion/printers.go and kube-aggregator's APIService table):
// webhook configurations, ValidatingAdmissionPolicies and their bindings, FlowSchemas,
// PriorityLevelConfigurations and APIServices.
import { nested, stringOf } from './printers.ts';

type Fields = Record<string, unknown>;

function listOf(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object') : [];
}

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The number of webhooks of a webhook configuration. */
export function webhookCount(object: Fields): number {
  return listOf(object['webhooks']).length;
}

/** printValidatingAdmissionPolicy: the number of validations. */
export function validationCount(object: Fields): number {
  return listOf(nested(object, 'spec', 'validations')).length;
}

/** printValidatingAdmissionPolicy's ParamKind cell: apiVersion/kind, or <unset>. */
export function paramKindCell(object: Fields): string {
  const paramKind = nested(object, 'spec', 'paramKind');
  if (!isFields(paramKind)) return '<unset>';
  return `${stringOf(paramKind['apiVersion'])}/${stringOf(paramKind['kind'])}`;
}

/** Go's %v of a []string: `[a b]`. */
function goStrings(values: unknown): string {
  return `[${(Array.isArray(values) ? values : []).map(stringOf).join(' ')}]`;
}

/** metav1.LabelSelector's generated String(), as kube prints a binding's selector. */
function goLabelSelector(selector: Fields): string {
  const labels = isFields(selector['matchLabels']) ? selector['matchLabels'] : {};
  const keys = Object.keys(labels).sort();
  const matchLabels = `map[string]string{${keys.map((key) => `${key}: ${stringOf(labels[key])},`).join('')}}`;
  const expressions = listOf(selector['matchExpressions'])
    .map((expression) => `LabelSelectorRequirement{Key:${stringOf(expression['key'])},Operator:${stringOf(expression['operator'])},Values:${goStrings(expression['values'])},},`)
    .join('');
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

/** printValidatingAdmissionPolicyBinding's ParamRef cell. */
export function paramRefCell(object: Fields): string {
  const paramRef = nested(object, 'spec', 'paramRef');
  if (!isFields(paramRef)) return '<unset>';
  const name = stringOf(paramRef['name']);
  if (name !== '') {
    const namespace = stringOf(paramRef['namespace']);
    return namespace !== '' ? `${namespace}/${name}` : `*/${name}`;
  }
  return isFields(paramRef['selector']) ? goLabelSelector(paramRef['selector']) : '<unset>';
}

/** printFlowSchema's DistinguisherMethod cell: the method's type, or "*". */
export function distinguisherMethodCell(object: Fields): string {
  const method = nested(object, 'spec', 'distinguisherMethod');
  return isFields(method) ? stringOf(method['type']) : '*';
}

/** printFlowSchema's MissingPL cell: the Dangling condition's status, or "?" before one is set. */
export function missingPriorityLevelCell(object: Fields): string {
  const dangling = listOf(nested(object, 'status', 'conditions')).find((condition) => condition['type'] === 'Dangling');
  return dangling === undefined ? '?' : stringOf(dangling['status']);
}

/** printPriorityLevelConfiguration's limited cells: NominalConcurrencyShares, Queues, HandSize, QueueLengthLimit ("<none>" when absent). */
export function priorityLevelCell(object: Fields, cell: 'nominalConcurrencyShares' | 'queues' | 'handSize' | 'queueLengthLimit'): number | string {
  const limited = nested(object, 'spec', 'limited');
  if (!isFields(limited)) return '<none>';
  if (cell === 'nominalConcurrencyShares') return Number(limited['nominalConcurrencyShares'] ?? 0);
  const queuing = nested(limited, 'limitResponse', 'queuing');
  return isFields(queuing) ? Number(queuing[cell] ?? 0) : '<none>';
}

/** The APIService table's Service cell: namespace/name, or Local. */
export function apiServiceServiceCell(object: Fields): string {
  const service = nested(object, 'spec', 'service');
  return isFields(service) ? `${stringOf(service['namespace'])}/${stringOf(service['name'])}` : 'Local';
}

/** The APIService table's Available cell: True, the status with its reason, or Unknown without the condition. */
export function apiServiceAvailableCell(object: Fields): string {
  const available = listOf(nested(object, 'status', 'conditions')).find((condition) => condition['type'] === 'Available');
  if (available === undefined) return 'Unknown';
  const status = stringOf(available['status']);
  const reason = stringOf(available['reason']);
  if (status === 'True') return status;
  return reason !== '' ? `${status} (${reason})` : status;
}
