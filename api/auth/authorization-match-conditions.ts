// Owns: the matchConditions of an --authorization-config webhook authorizer: compiling each CEL
// expression against kube's `request` variable (the v1 SubjectAccessReviewSpec: user, groups, uid,
// extra, resourceAttributes, nonResourceAttributes; kube's staging/src/k8s.io/apiserver/pkg/
// authorization/cel/compile.go), evaluating them per request (kube's CELMatcher.Eval in
// matcher.go: any false skips the webhook, all true calls it, an error without a false yields the
// webhook's failurePolicy decision), the Authorizer wrapper that applies them in front of a
// webhook, and the match condition metrics' hooks (kube's cel/metrics.go).
import type { Environment } from '@marcbachmann/cel-js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, Decision } from './authz.ts';
import { baseEnvironment } from '../crd/cel/library.ts';
import { celTypeName } from '../crd/cel/engine.ts';
import type { EngineNode } from '../crd/cel/engine.ts';
import { CelObject } from '../crd/cel/values.ts';

/** The v1 SubjectAccessReviewSpec as the CEL `request` variable sees it (kube's convertObjectToUnstructured). */
export interface SubjectAccessReviewSpecV1 {
  readonly user: string;
  readonly groups: readonly string[];
  readonly uid: string;
  readonly extra: Readonly<Record<string, readonly string[]>>;
  readonly resourceAttributes?: {
    readonly namespace: string; readonly verb: string; readonly group: string; readonly version: string;
    readonly resource: string; readonly subresource: string; readonly name: string;
  };
  readonly nonResourceAttributes?: { readonly path: string; readonly verb: string };
}

/** The SubjectAccessReview spec kube's webhook authorizer builds from the request's attributes. */
export function subjectAccessReviewSpecOf(attributes: AuthorizationAttributes): SubjectAccessReviewSpecV1 {
  const { user } = attributes;
  const base = { user: user.name, groups: user.groups, uid: user.uid, extra: user.extra };
  if (attributes.isResourceRequest) {
    return {
      ...base,
      resourceAttributes: {
        namespace: attributes.namespace, verb: attributes.verb, group: attributes.apiGroup, version: attributes.apiVersion,
        resource: attributes.resource, subresource: attributes.subresource, name: attributes.name,
      },
    };
  }
  return { ...base, nonResourceAttributes: { path: attributes.path, verb: attributes.verb } };
}

// ---- the environment: kube's object types of the request variable ----

class SubjectAccessReviewSpecObject extends CelObject {}
class ResourceAttributesObject extends CelObject {}
class NonResourceAttributesObject extends CelObject {}

let environment: Environment | undefined;

function requestEnvironment(): Environment {
  if (environment !== undefined) return environment;
  const env = baseEnvironment().clone();
  env.registerType('kubernetes.ResourceAttributes', {
    ctor: ResourceAttributesObject,
    fields: { namespace: 'string', verb: 'string', group: 'string', version: 'string', resource: 'string', subresource: 'string', name: 'string' },
  });
  env.registerType('kubernetes.NonResourceAttributes', { ctor: NonResourceAttributesObject, fields: { path: 'string', verb: 'string' } });
  env.registerType('kubernetes.SubjectAccessReviewSpec', {
    ctor: SubjectAccessReviewSpecObject,
    fields: {
      resourceAttributes: 'kubernetes.ResourceAttributes', nonResourceAttributes: 'kubernetes.NonResourceAttributes',
      user: 'string', groups: 'list<string>', extra: 'map<string, list<string>>', uid: 'string',
    },
  });
  env.registerVariable('request', 'kubernetes.SubjectAccessReviewSpec');
  environment = env;
  return env;
}

/** The CEL value of the request variable: objects of the declared types, extra as a map (absent attributes stay unset for has()). */
function requestValue(spec: SubjectAccessReviewSpecV1): SubjectAccessReviewSpecObject {
  const request = Object.assign(new SubjectAccessReviewSpecObject(), {
    user: spec.user, groups: [...spec.groups], uid: spec.uid,
    extra: new Map(Object.entries(spec.extra).map(([key, values]) => [key, [...values]])),
  });
  if (spec.resourceAttributes !== undefined) Object.assign(request, { resourceAttributes: Object.assign(new ResourceAttributesObject(), spec.resourceAttributes) });
  if (spec.nonResourceAttributes !== undefined) Object.assign(request, { nonResourceAttributes: Object.assign(new NonResourceAttributesObject(), spec.nonResourceAttributes) });
  return request;
}

// ---- compiling ----

/** One compiled matchCondition expression. */
export interface CompiledMatchCondition {
  readonly expression: string;
  evaluate(request: SubjectAccessReviewSpecV1): unknown;
}

/** A compile failure as kube's apiservercel.Error: Invalid (the expression's fault) or Internal. */
export interface MatchConditionCompileError {
  readonly type: 'Invalid' | 'Internal';
  readonly detail: string;
}

interface EngineError {
  readonly code?: string;
  readonly summary?: string;
  readonly message: string;
  readonly node?: { readonly pos?: number; readonly op?: string };
  readonly range?: { readonly start: number };
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

/** cel-go's wording of the engine's common messages. */
function celGoMessage(error: EngineError): string {
  const summary = firstLine(error.summary ?? error.message);
  let match: RegExpExecArray | null;
  if (error.code === 'no_such_key' && (match = /^No such key: (.*)$/.exec(summary)) !== null) return `undefined field '${match[1]}'`;
  if (error.code === 'unknown_variable' && (match = /^Unknown variable: (.*)$/.exec(summary)) !== null) return `undeclared reference to '${match[1]}' (in container '')`;
  if ((error as { name?: string }).name === 'ParseError') return `Syntax error: ${summary}`;
  return summary;
}

/** cel-go's issue display: `ERROR: <input>:L:C: message`, the source line and a caret under the column. */
function displayIssue(source: string, error: EngineError): string {
  let offset = error.node?.pos ?? error.range?.start ?? 0;
  if (error.node?.op === '.') offset = Math.max(0, offset - 1);
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = source.indexOf('\n', lineStart) < 0 ? source.length : source.indexOf('\n', lineStart);
  const column = Array.from(source.slice(lineStart, offset)).length;
  const text = source.slice(lineStart, lineEnd);
  return `ERROR: <input>:${line}:${column + 1}: ${celGoMessage(error)}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

/** kube's CompileCELExpression for a SubjectAccessReviewMatchCondition (the result must be a bool). */
export function compileMatchCondition(expression: string): { readonly condition: CompiledMatchCondition } | { readonly error: MatchConditionCompileError } {
  const env = requestEnvironment();
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(expression);
  } catch (error) {
    return { error: { type: 'Invalid', detail: `compilation failed: ${displayIssue(expression, error as EngineError)}` } };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    return { error: { type: 'Invalid', detail: `compilation failed: ${displayIssue(expression, checked.error as unknown as EngineError)}` } };
  }
  if (checked.type !== 'bool') {
    const got = celTypeName((parsed.ast as unknown as EngineNode).checkedType?.name ?? String(checked.type));
    return { error: { type: 'Invalid', detail: `must evaluate to bool but got ${got}` } };
  }
  return { condition: { expression, evaluate: (request) => parsed({ request: requestValue(request) }) } };
}

// ---- evaluating ----

/** kube's cel MatcherMetrics: what the match conditions of one authorizer did. */
export interface MatchConditionMetrics {
  recordEvaluation(authorizerType: string, authorizerName: string, seconds: number): void;
  recordEvaluationFailure(authorizerType: string, authorizerName: string): void;
  recordExclusion(authorizerType: string, authorizerName: string): void;
}

export const noMatchConditionMetrics: MatchConditionMetrics = {
  recordEvaluation: () => undefined, recordEvaluationFailure: () => undefined, recordExclusion: () => undefined,
};

/**
 * The outcome of a request's match conditions: call the webhook, skip it, or an error (kube's
 * aggregate text). `failed` says whether any condition failed to evaluate, even when a false one
 * then excluded the request (kube counts both).
 */
export type MatchOutcome = { readonly matches: boolean; readonly failed: boolean } | { readonly error: string };

/** An evaluation error in cel-go's wording (the engine's first line, "no such key: x"). */
function evaluationMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const summary = firstLine((error as { summary?: string }).summary ?? error.message);
  return summary.replace(/^No such key: /, 'no such key: ');
}

/** kube's utilerrors aggregate text: one message alone, several in brackets. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * kube's CELMatcher.Eval: conditions in order; the first false skips the webhook (later errors
 * do not matter); errors are collected and, without a false, reported together.
 */
export function evaluateMatchConditions(conditions: readonly CompiledMatchCondition[], request: SubjectAccessReviewSpecV1): MatchOutcome {
  const errors: string[] = [];
  for (const condition of conditions) {
    let result: unknown;
    try {
      result = condition.evaluate(request);
    } catch (error) {
      errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: ${evaluationMessage(error)}`);
      continue;
    }
    if (typeof result !== 'boolean') {
      errors.push(`cel evaluation error: expression '${condition.expression}' eval result type should be bool but got ${typeof result}`);
      continue;
    }
    if (!result) return { matches: false, failed: errors.length > 0 };
  }
  return errors.length > 0 ? { error: aggregate(errors) } : { matches: true, failed: false };
}

export type FailurePolicy = 'NoOpinion' | 'Deny';

/** An authorization result that also carries kube's authorizer error (the filter answers 500 when nothing allows). */
export interface AuthorizationResultWithError extends AuthorizationResult {
  readonly error?: string;
}

export interface MatchConditionOptions {
  /** The authorizer's type and name, the metrics' labels (kube: "Webhook" and the configured name). */
  readonly authorizerType?: string;
  readonly authorizerName?: string;
  readonly metrics?: MatchConditionMetrics;
  /** Seconds since an arbitrary origin, for the evaluation histogram (injectable for tests). */
  readonly now?: () => number;
}

/**
 * Puts the match conditions in front of `inner` (kube's webhook authorizer evaluates them before
 * its cache and the SubjectAccessReview call): all true → ask `inner`; any false → no opinion with
 * an empty reason; an error → the failure policy's decision (Deny or NoOpinion) with an empty
 * reason, the error text in `error`. No conditions → `inner` itself.
 */
export function withMatchConditions(
  inner: Authorizer, conditions: readonly CompiledMatchCondition[], failurePolicy: FailurePolicy, options: MatchConditionOptions = {},
): Authorizer {
  if (conditions.length === 0) return inner;
  const type = options.authorizerType ?? 'Webhook';
  const name = options.authorizerName ?? inner.name;
  const metrics = options.metrics ?? noMatchConditionMetrics;
  const now = options.now ?? (() => performance.now() / 1000);
  const decisionOnError: Decision = failurePolicy === 'Deny' ? 'deny' : 'noOpinion';
  return {
    name: inner.name,
    authorize(attributes: AuthorizationAttributes): Promise<AuthorizationResultWithError> | AuthorizationResultWithError {
      const start = now();
      const outcome = evaluateMatchConditions(conditions, subjectAccessReviewSpecOf(attributes));
      metrics.recordEvaluation(type, name, Math.max(0, now() - start));
      if ('error' in outcome) {
        metrics.recordEvaluationFailure(type, name);
        return { decision: decisionOnError, reason: '', error: outcome.error };
      }
      if (outcome.failed) metrics.recordEvaluationFailure(type, name);
      if (!outcome.matches) {
        metrics.recordExclusion(type, name);
        return { decision: 'noOpinion', reason: '' };
      }
      return inner.authorize(attributes);
    },
  };
}
