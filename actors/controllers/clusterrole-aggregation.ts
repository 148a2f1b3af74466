// Owns: kube-controller-manager's clusterrole-aggregation-controller
// (pkg/controller/clusterroleaggregation): a ClusterRole with aggregationRule.clusterRoleSelectors
// gets as `rules` the union of the rules of every other ClusterRole matching any selector
// (roles in name order, each rule once, in first-seen order), so admin, edit and view follow
// their system:aggregate-to-* parts and anything labelled to aggregate into them. Any ClusterRole
// change re-checks every aggregating ClusterRole. Leader-only; acts only by proposing updates
// with a resourceVersion precondition (a concurrent write brings the role back here).
import type { ChangeEvent } from '../events.ts';
import type { JsonValue, KubeObject } from '../object.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { KeyQueue } from './serial.ts';

export const clusterRoleAggregationIdentity = 'system:serviceaccount:kube-system:clusterrole-aggregation-controller';

const rbacGroup = 'rbac.authorization.k8s.io';
const clusterRoles = { group: rbacGroup, resource: 'clusterroles', namespace: '' } as const;

type Fields = Record<string, unknown>;

function fields(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Fields : {};
}

function selectorsOf(role: KubeObject): Fields[] | undefined {
  const rule = role['aggregationRule'];
  if (rule === undefined || rule === null) return undefined;
  const selectors = fields(rule)['clusterRoleSelectors'];
  return Array.isArray(selectors) ? selectors.map(fields) : [];
}

/** metav1.LabelSelectorAsSelector(...).Matches: matchLabels and matchExpressions, ANDed; empty matches all. */
export function labelSelectorMatches(selector: Fields, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(fields(selector['matchLabels']))) if (labels[key] !== value) return false;
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'].map(fields) : [];
  for (const expression of expressions) {
    const key = String(expression['key'] ?? '');
    const values = Array.isArray(expression['values']) ? expression['values'].map(String) : [];
    const present = Object.hasOwn(labels, key);
    switch (expression['operator']) {
      case 'In': if (!present || !values.includes(labels[key]!)) return false; break;
      case 'NotIn': if (present && values.includes(labels[key]!)) return false; break;
      case 'Exists': if (!present) return false; break;
      case 'DoesNotExist': if (present) return false; break;
      default: return false;
    }
  }
  return true;
}

/** The rules an aggregating ClusterRole should hold, given every ClusterRole. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): JsonValue[] {
  const selectors = selectorsOf(role) ?? [];
  const name = role.metadata.name ?? '';
  const matching: KubeObject[] = [];
  for (const selector of selectors) {
    for (const candidate of all) {
      if ((candidate.metadata.name ?? '') !== name && labelSelectorMatches(selector, candidate.metadata.labels ?? {})) matching.push(candidate);
    }
  }
  matching.sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const rules: JsonValue[] = [];
  const seen = new Set<string>();
  for (const candidate of matching) {
    for (const rule of Array.isArray(candidate['rules']) ? candidate['rules'] : []) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(structuredClone(rule));
    }
  }
  return rules;
}

export class ClusterRoleAggregationController implements Controller {
  readonly name = 'clusterrole-aggregation';
  readonly #context: ControllerContext;
  readonly #queue: KeyQueue<string>;
  #unsubscribe: (() => void) | undefined;

  constructor(context: ControllerContext) {
    this.#context = context;
    this.#queue = new KeyQueue((name) => this.#reconcile(name), (name, error) => {
      this.#context.log(`${this.name}: reconcile failed; retried on the next change`, { clusterRole: name, error: (error as Error).message });
    });
  }

  start(): void {
    this.#queue.resume();
    this.#unsubscribe = this.#context.state.subscribe((events) => this.#onEvents(events));
    this.#markAggregating();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  #onEvents(events: readonly ChangeEvent[]): void {
    if (events.some((event) => event.key.group === rbacGroup && event.key.resource === 'clusterroles')) this.#markAggregating();
  }

  #markAggregating(): void {
    for (const role of this.#context.state.list(clusterRoles).items) {
      if (selectorsOf(role) !== undefined) this.#queue.mark(role.metadata.name ?? '');
    }
  }

  async #reconcile(name: string): Promise<void> {
    const key = { ...clusterRoles, name };
    const role = this.#context.state.get(key);
    if (role === undefined || selectorsOf(role) === undefined || role.metadata.deletionTimestamp !== undefined) return;
    const rules = aggregatedRules(role, this.#context.state.list(clusterRoles).items);
    if (JSON.stringify(rules) === JSON.stringify(role['rules'] ?? [])) return;
    const object = { ...structuredClone(role), rules } as KubeObject;
    await this.#context.propose({
      type: 'update', key, object, at: this.#context.now(), by: clusterRoleAggregationIdentity,
      preconditions: { resourceVersion: role.metadata.resourceVersion ?? '' },
    });
  }
}
