// matchConditions of an --authorization-config webhook as kube 1.33 evaluates them: the
// `request` variable (the v1 SubjectAccessReviewSpec), compile errors, and the outcome table
// (all true → the webhook is asked; any false → skipped; an error → the failure policy) with
// kube's empty reasons, its aggregated error text, and the match condition metrics.
import { describe, expect, it } from 'vitest';
import {
  compileMatchCondition, evaluateMatchConditions, subjectAccessReviewSpecOf, withMatchConditions,
} from '../../../api/auth/authorization-match-conditions.ts';
import type { AuthorizationResultWithError, CompiledMatchCondition, FailurePolicy, MatchConditionMetrics } from '../../../api/auth/authorization-match-conditions.ts';
import type { AuthorizationAttributes, Authorizer } from '../../../api/auth/authz.ts';

const podRead: AuthorizationAttributes = {
  user: { name: 'alice', uid: 'uid-1', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['blue'] } },
  verb: 'get', isResourceRequest: true, path: '/apis/apps/v1/namespaces/default/deployments/web',
  apiGroup: 'apps', apiVersion: 'v1', namespace: 'default', resource: 'deployments', subresource: 'scale', name: 'web',
};
const healthz: AuthorizationAttributes = {
  user: { name: 'bob', uid: '', groups: [], extra: {} }, verb: 'get', isResourceRequest: false, path: '/healthz',
  apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '',
};

function compiled(...expressions: string[]): CompiledMatchCondition[] {
  return expressions.map((expression) => {
    const result = compileMatchCondition(expression);
    if ('error' in result) throw new Error(result.error.detail);
    return result.condition;
  });
}

describe('the request variable', () => {
  it('is the v1 SubjectAccessReviewSpec of the request', () => {
    expect(subjectAccessReviewSpecOf(podRead)).toEqual({
      user: 'alice', uid: 'uid-1', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['blue'] },
      resourceAttributes: { namespace: 'default', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
    });
    expect(subjectAccessReviewSpecOf(healthz)).toEqual({ user: 'bob', uid: '', groups: [], extra: {}, nonResourceAttributes: { path: '/healthz', verb: 'get' } });
  });

  it.each([
    ['request.user == "alice"', true, false],
    ['request.uid == "uid-1"', true, false],
    ['"dev" in request.groups', true, false],
    ['"example.com/team" in request.extra && request.extra["example.com/team"] == ["blue"]', true, false],
    ['has(request.resourceAttributes) && request.resourceAttributes.namespace == "default"', true, false],
    ['has(request.resourceAttributes) && request.resourceAttributes.group == "apps" && request.resourceAttributes.version == "v1"', true, false],
    ['has(request.resourceAttributes) && request.resourceAttributes.resource == "deployments" && request.resourceAttributes.subresource == "scale"', true, false],
    ['has(request.resourceAttributes) && request.resourceAttributes.name == "web" && request.resourceAttributes.verb == "get"', true, false],
    ['has(request.nonResourceAttributes) && request.nonResourceAttributes.path == "/healthz"', false, true],
    ['!has(request.resourceAttributes)', false, true],
    ['request.user.startsWith("system:")', false, false],
  ] as const)('%s is %s for a resource request and %s for /healthz', (expression, onResource, onHealthz) => {
    const [condition] = compiled(expression);
    expect(condition!.evaluate(subjectAccessReviewSpecOf(podRead))).toBe(onResource);
    expect(condition!.evaluate(subjectAccessReviewSpecOf(healthz))).toBe(onHealthz);
  });

  it('refuses what does not compile or is not a bool', () => {
    expect(compileMatchCondition('request.user')).toEqual({ error: { type: 'Invalid', detail: 'must evaluate to bool but got string' } });
    expect(compileMatchCondition('request.groups')).toEqual({ error: { type: 'Invalid', detail: 'must evaluate to bool but got list(string)' } });
    expect(compileMatchCondition('request.verb == "get"')).toEqual({
      error: { type: 'Invalid', detail: 'compilation failed: ERROR: <input>:1:8: undefined field \'verb\'\n | request.verb == "get"\n | .......^' },
    });
    expect(compileMatchCondition('object.user == "a"')).toEqual({
      error: { type: 'Invalid', detail: 'compilation failed: ERROR: <input>:1:1: undeclared reference to \'object\' (in container \'\')\n | object.user == "a"\n | ^' },
    });
  });
});

describe('evaluation', () => {
  it('the first false skips (errors before it do not matter); errors without a false are aggregated', () => {
    const spec = subjectAccessReviewSpecOf(healthz);
    expect(evaluateMatchConditions(compiled('request.user == "bob"', '"x" in request.groups'), spec)).toEqual({ matches: false, failed: false });
    expect(evaluateMatchConditions(compiled('request.resourceAttributes.name == "x"', 'request.user == "eve"'), spec)).toEqual({ matches: false, failed: true });
    expect(evaluateMatchConditions(compiled('request.user == "bob"'), spec)).toEqual({ matches: true, failed: false });
    expect(evaluateMatchConditions(compiled('request.resourceAttributes.name == "x"'), spec)).toEqual({
      error: 'cel evaluation error: expression \'request.resourceAttributes.name == "x"\' resulted in error: no such key: resourceAttributes',
    });
    expect(evaluateMatchConditions(compiled('request.resourceAttributes.name == "x"', 'request.extra["k"][0] == "v"'), spec)).toEqual({
      error: '[cel evaluation error: expression \'request.resourceAttributes.name == "x"\' resulted in error: no such key: resourceAttributes, '
        + 'cel evaluation error: expression \'request.extra["k"][0] == "v"\' resulted in error: no such key: k]',
    });
  });
});

describe('withMatchConditions', () => {
  interface Recorded { evaluations: number; failures: number; exclusions: number }
  const recorder = (): { metrics: MatchConditionMetrics; recorded: Recorded; labels: string[] } => {
    const recorded: Recorded = { evaluations: 0, failures: 0, exclusions: 0 };
    const labels: string[] = [];
    return {
      recorded, labels,
      metrics: {
        recordEvaluation: (type, name) => {
          recorded.evaluations += 1;
          labels.push(`${type}/${name}`);
        },
        recordEvaluationFailure: () => {
          recorded.failures += 1;
        },
        recordExclusion: () => {
          recorded.exclusions += 1;
        },
      },
    };
  };
  const webhook = (asked: string[]): Authorizer => ({
    name: 'policy', authorize: (attributes) => {
      asked.push(attributes.user.name);
      return { decision: 'allow', reason: 'policy says yes' };
    },
  });

  const table: readonly (readonly [string, string, FailurePolicy, AuthorizationResultWithError, boolean, Partial<Recorded>])[] = [
    ['all true', 'request.user == "alice"', 'Deny', { decision: 'allow', reason: 'policy says yes' }, true, { failures: 0, exclusions: 0 }],
    ['all true', 'request.user == "alice"', 'NoOpinion', { decision: 'allow', reason: 'policy says yes' }, true, { failures: 0, exclusions: 0 }],
    ['a false', 'request.user == "carol"', 'Deny', { decision: 'noOpinion', reason: '' }, false, { failures: 0, exclusions: 1 }],
    ['a false', 'request.user == "carol"', 'NoOpinion', { decision: 'noOpinion', reason: '' }, false, { failures: 0, exclusions: 1 }],
    ['an error', 'request.nonResourceAttributes.path == "/"', 'Deny', {
      decision: 'deny', reason: '', error: 'cel evaluation error: expression \'request.nonResourceAttributes.path == "/"\' resulted in error: no such key: nonResourceAttributes',
    }, false, { failures: 1, exclusions: 0 }],
    ['an error', 'request.nonResourceAttributes.path == "/"', 'NoOpinion', {
      decision: 'noOpinion', reason: '', error: 'cel evaluation error: expression \'request.nonResourceAttributes.path == "/"\' resulted in error: no such key: nonResourceAttributes',
    }, false, { failures: 1, exclusions: 0 }],
  ];
  it.each(table)('%s (%s) under failurePolicy %s', async (_case, expression, policy, expected, asksWebhook, counts) => {
    const asked: string[] = [];
    const { metrics, recorded, labels } = recorder();
    const guarded = withMatchConditions(webhook(asked), compiled('request.uid != ""', expression), policy, { authorizerName: 'policy-hook', metrics });
    expect(await guarded.authorize(podRead)).toEqual(expected);
    expect(asked).toEqual(asksWebhook ? ['alice'] : []);
    expect(recorded).toMatchObject({ evaluations: 1, ...counts });
    expect(labels).toEqual(['Webhook/policy-hook']);
  });

  it('without conditions the webhook is asked directly', () => {
    const inner = webhook([]);
    expect(withMatchConditions(inner, [], 'Deny')).toBe(inner);
  });
});
