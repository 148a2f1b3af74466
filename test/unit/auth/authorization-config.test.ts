// --authorization-config files read and validated as kube-apiserver 1.33 does: each rule of
// ValidateAuthorizationConfiguration with kube's field paths and messages (all errors reported
// together), the versioned defaults, strict decoding, kube-apiserver's own name and reload-type
// checks, Go durations, the flag conflict, and the authorizer chain built in order.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthorizationConfigError, authorizationConfigFlagsError, buildAuthorizerChain, decodeAuthorizationConfig, formatGoDurationNanos,
  loadAuthorizationConfig,
} from '../../../api/auth/authorization-config.ts';
import type { AuthorizerFactories, WebhookAuthorizerConfig } from '../../../api/auth/authorization-config.ts';
import { authorize } from '../../../api/auth/authz.ts';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../../api/auth/authz.ts';
import { parseGoDurationNanos } from '../../../api/go-duration.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

let dir: TempDir;
let kubeconfig = '';

beforeAll(async () => {
  dir = await makeTempDir('kstore-authz-config-');
  kubeconfig = path.join(dir.path, 'webhook.kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
});
afterAll(async () => {
  await dir.remove();
});

const header = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n';

function webhookYaml(fields: Record<string, string> = {}, extra = ''): string {
  const merged: Record<string, string> = {
    timeout: '3s', subjectAccessReviewVersion: 'v1', failurePolicy: 'Deny', ...fields,
  };
  const lines = Object.entries(merged).filter(([, value]) => value !== '').map(([key, value]) => `    ${key}: ${value}`);
  return `- type: Webhook\n  name: webhook\n  webhook:\n${lines.join('\n')}\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: KUBECONFIG_PATH\n${extra}`;
}

/** The test files' paths are known only once beforeAll ran: placeholders are filled in when a file is read. */
function resolve(data: string): string {
  return data.replace(/KUBECONFIG_PATH/g, kubeconfig).replace(/DIR/g, dir.path);
}

function load(data: string, required?: ReadonlySet<string>): ReturnType<typeof loadAuthorizationConfig> {
  return loadAuthorizationConfig(resolve(data), required);
}

function errorOf(data: string, required?: ReadonlySet<string>): string {
  try {
    load(data, required);
  } catch (error) {
    expect(error).toBeInstanceOf(AuthorizationConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('validation: kube\'s field paths and messages', () => {
  const cases: readonly (readonly [string, string, string])[] = [
    ['no authorizers', `${header}authorizers: []\n`, 'authorizers: Required value: at least one authorization mode must be defined'],
    ['empty file', '', 'authorizers: Required value: at least one authorization mode must be defined'],
    ['type missing', `${header}authorizers:\n- name: x\n`, 'authorizers[0].type: Required value'],
    ['unknown type', `${header}authorizers:\n- type: Foo\n  name: foo\n`,
      'authorizers[0].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"'],
    ['RBAC twice', `${header}authorizers:\n- type: RBAC\n  name: rbac\n- type: RBAC\n  name: rbac\n`, 'authorizers[1].type: Duplicate value: "RBAC"'],
    ['name missing', `${header}authorizers:\n- type: RBAC\n`, 'authorizers[0].name: Required value'],
    ['name repeated', `${header}authorizers:\n${webhookYaml()}${webhookYaml()}`, 'authorizers[1].name: Duplicate value: "webhook"'],
    ['name not a DNS subdomain', `${header}authorizers:\n${webhookYaml().replace('name: webhook', 'name: My_Webhook')}`,
      'authorizers[0].name: Invalid value: "My_Webhook": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
    ['webhook missing', `${header}authorizers:\n- type: Webhook\n  name: w\n`, 'authorizers[0].webhook: Required value: required when type=Webhook'],
    ['webhook on RBAC', `${header}authorizers:\n- type: RBAC\n  name: rbac\n  webhook: {}\n`,
      'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook'],
    ['timeout missing', `${header}authorizers:\n${webhookYaml({ timeout: '' })}`, 'authorizers[0].timeout: Required value'],
    ['timeout over 30s', `${header}authorizers:\n${webhookYaml({ timeout: '1m30s' })}`, 'authorizers[0].timeout: Invalid value: "1m30s": must be > 0s and <= 30s'],
    ['timeout negative', `${header}authorizers:\n${webhookYaml({ timeout: '-1s' })}`, 'authorizers[0].timeout: Invalid value: "-1s": must be > 0s and <= 30s'],
    ['authorizedTTL negative', `${header}authorizers:\n${webhookYaml({ authorizedTTL: '-5m' })}`, 'authorizers[0].authorizedTTL: Invalid value: "-5m0s": must be > 0s'],
    ['unauthorizedTTL negative', `${header}authorizers:\n${webhookYaml({ unauthorizedTTL: '-1.5s' })}`, 'authorizers[0].unauthorizedTTL: Invalid value: "-1.5s": must be > 0s'],
    ['subjectAccessReviewVersion missing', `${header}authorizers:\n${webhookYaml({ subjectAccessReviewVersion: '' })}`,
      'authorizers[0].subjectAccessReviewVersion: Required value'],
    ['subjectAccessReviewVersion unknown', `${header}authorizers:\n${webhookYaml({ subjectAccessReviewVersion: 'v2' })}`,
      'authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"'],
    ['matchConditionSubjectAccessReviewVersion unknown', `${header}authorizers:\n${webhookYaml({ matchConditionSubjectAccessReviewVersion: 'v1beta1' })}`,
      'authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"'],
    ['matchConditionSubjectAccessReviewVersion missing with conditions',
      `${header}authorizers:\n${webhookYaml({}, '    matchConditions:\n    - expression: request.user == "a"\n')}`,
      'authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified'],
    ['failurePolicy missing', `${header}authorizers:\n${webhookYaml({ failurePolicy: '' })}`, 'authorizers[0].failurePolicy: Required value'],
    ['failurePolicy unknown', `${header}authorizers:\n${webhookYaml({ failurePolicy: 'Allow' })}`,
      'authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"'],
    ['connectionInfo.type missing', `${header}authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n`,
      'authorizers[0].connectionInfo.type: Required value'],
    ['connectionInfo.type unknown', `${header}authorizers:\n${webhookYaml().replace('type: KubeConfigFile', 'type: Remote')}`,
      'authorizers[0].connectionInfo.type: Unsupported value: apiserver.WebhookConnectionInfo{Type:"Remote", KubeConfigFile:(*string)(<pointer>)}: supported values: "InClusterConfig", "KubeConfigFile"'],
    ['kubeConfigFile with InClusterConfig', `${header}authorizers:\n${webhookYaml().replace('type: KubeConfigFile', 'type: InClusterConfig')}`,
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "KUBECONFIG_PATH": can only be set when type=KubeConfigFile'],
    ['kubeConfigFile missing', `${header}authorizers:\n${webhookYaml().replace(/\n\s+kubeConfigFile: .*/, '')}`,
      'authorizers[0].connectionInfo.kubeConfigFile: Required value'],
    ['kubeConfigFile relative', `${header}authorizers:\n${webhookYaml().replace(/kubeConfigFile: .*/, 'kubeConfigFile: conf/webhook.yaml')}`,
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "conf/webhook.yaml": must be an absolute path'],
    ['kubeConfigFile absent', `${header}authorizers:\n${webhookYaml().replace(/kubeConfigFile: .*/, 'kubeConfigFile: /nonexistent/webhook.yaml')}`,
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/webhook.yaml": error loading file: stat /nonexistent/webhook.yaml: no such file or directory'],
    ['kubeConfigFile a directory', `${header}authorizers:\n${webhookYaml().replace(/kubeConfigFile: .*/, 'kubeConfigFile: DIR')}`,
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "DIR": must be a regular file'],
    ['match condition empty', `${header}authorizers:\n${webhookYaml({ matchConditionSubjectAccessReviewVersion: 'v1' }, '    matchConditions:\n    - expression: "  "\n')}`,
      'authorizers[0].matchConditions[0].expression: Required value'],
    ['match condition repeated',
      `${header}authorizers:\n${webhookYaml({ matchConditionSubjectAccessReviewVersion: 'v1' }, '    matchConditions:\n    - expression: request.user == "a"\n    - expression: request.user == "a"\n')}`,
      'authorizers[0].matchConditions[1].expression: Duplicate value: "request.user == \\"a\\""'],
    ['match condition not a bool', `${header}authorizers:\n${webhookYaml({ matchConditionSubjectAccessReviewVersion: 'v1' }, '    matchConditions:\n    - expression: request.user\n')}`,
      'authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string'],
    ['match condition on an unknown field',
      `${header}authorizers:\n${webhookYaml({ matchConditionSubjectAccessReviewVersion: 'v1' }, '    matchConditions:\n    - expression: request.userName == "a"\n')}`,
      'authorizers[0].matchConditions[0].expression: Invalid value: "request.userName == \\"a\\"": compilation failed: ERROR: <input>:1:8: undefined field \'userName\'\n | request.userName == "a"\n | .......^'],
  ];
  it.each(cases)('%s', (_name, data, message) => {
    expect(errorOf(data)).toBe(resolve(message));
  });

  it('more than 64 match conditions is one error', () => {
    const conditions = Array.from({ length: 65 }, (_, index) => `    - expression: request.user == "u${index}"\n`).join('');
    const data = `${header}authorizers:\n${webhookYaml({ matchConditionSubjectAccessReviewVersion: 'v1' }, `    matchConditions:\n${conditions}`)}`;
    expect(errorOf(data)).toBe('authorizers[0].matchConditions: Too many: 65: must have at most 64 items');
  });

  it('reports every error together, as kube\'s aggregate', () => {
    const data = `${header}authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: 45s\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: rel\n- type: Nope\n  name: n\n`;
    const error = (() => {
      try {
        load(data);
      } catch (caught) {
        return caught as AuthorizationConfigError;
      }
      throw new Error('expected an error');
    })();
    expect(error.message).toBe('[authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s, '
      + 'authorizers[0].subjectAccessReviewVersion: Required value, authorizers[0].failurePolicy: Required value, '
      + 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "rel": must be an absolute path, '
      + 'authorizers[1].type: Unsupported value: "Nope": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"]');
    expect(error.fieldErrors.map((fieldError) => fieldError.field)).toEqual([
      'authorizers[0].timeout', 'authorizers[0].subjectAccessReviewVersion', 'authorizers[0].failurePolicy',
      'authorizers[0].connectionInfo.kubeConfigFile', 'authorizers[1].type',
    ]);
  });

  it('kube-apiserver wants built-in authorizers named after their lowercased type', () => {
    expect(errorOf(`${header}authorizers:\n- type: RBAC\n  name: my-rbac\n- type: Node\n  name: nodes\n`))
      .toBe('[expected name rbac for authorizer RBAC instead of my-rbac, expected name node for authorizer Node instead of nodes]');
  });

  it('a reload must keep the built-in types the server started with', () => {
    expect(errorOf(`${header}authorizers:\n${webhookYaml()}`, new Set(['RBAC', 'Node']))).toBe('missing required types: [Node RBAC]');
    expect(() => load(`${header}authorizers:\n- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n`, new Set(['RBAC', 'Node']))).not.toThrow();
  });
});

describe('decoding', () => {
  it('accepts v1, v1beta1 and v1alpha1, YAML and JSON, and applies the webhook defaults', () => {
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const config = load(`apiVersion: apiserver.config.k8s.io/${version}\nkind: AuthorizationConfiguration\nauthorizers:\n${webhookYaml()}- type: RBAC\n  name: rbac\n`);
      expect(config.authorizers.map((authorizer) => authorizer.type)).toEqual(['Webhook', 'RBAC']);
      const webhook = (config.authorizers[0] as { webhook: WebhookAuthorizerConfig }).webhook;
      expect(webhook).toMatchObject({
        name: 'webhook', timeoutMs: 3000, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, failurePolicy: 'Deny',
        subjectAccessReviewVersion: 'v1', connectionType: 'KubeConfigFile', kubeConfigFile: kubeconfig, matchConditions: [],
      });
    }
    const json = JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration',
      authorizers: [{
        type: 'Webhook', name: 'w', webhook: {
          timeout: '1.5s', authorizedTTL: '1m30s', unauthorizedTTL: '500ms', subjectAccessReviewVersion: 'v1beta1', failurePolicy: 'NoOpinion',
          connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
        },
      }],
    });
    const webhook = (loadAuthorizationConfig(json).authorizers[0] as { webhook: WebhookAuthorizerConfig }).webhook;
    expect(webhook).toMatchObject({ timeoutMs: 1500, authorizedTtlMs: 90_000, unauthorizedTtlMs: 500, subjectAccessReviewVersion: 'v1beta1', failurePolicy: 'NoOpinion' });
  });

  const decodeCases: readonly (readonly [string, string, string])[] = [
    ['an unknown field (strict)', `${header}authorizers:\n- type: RBAC\n  name: rbac\n  mode: strict\n`, 'strict decoding error: unknown field "authorizers[0].mode"'],
    ['a repeated key (strict)', `${header}authorizers:\n- type: RBAC\n  name: rbac\n  name: rbac\n`,
      'strict decoding error: yaml: unmarshal errors:\n  line 6: key "name" already set in map'],
    ['a field of the wrong case', `${header}Authorizers: []\n`, 'strict decoding error: unknown field "Authorizers"'],
    ['a number for a string', `${header}authorizers:\n- type: RBAC\n  name: 7\n`,
      'json: cannot unmarshal number into Go struct field AuthorizerConfiguration.authorizers.name of type string'],
    ['an object for the list', `${header}authorizers: {}\n`,
      'json: cannot unmarshal object into Go struct field AuthorizationConfiguration.authorizers of type []v1.AuthorizerConfiguration'],
    ['a number for a duration', `${header}authorizers:\n${webhookYaml({ timeout: '3' })}`, 'json: cannot unmarshal number into Go value of type string'],
    ['a bad duration', `${header}authorizers:\n${webhookYaml({ timeout: '3 seconds' })}`, 'time: unknown unit " seconds" in duration "3 seconds"'],
    ['an unknown version', 'apiVersion: apiserver.config.k8s.io/v2\nkind: AuthorizationConfiguration\n',
      'no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v2" in scheme "k8s.io/apiserver/pkg/apis/apiserver/load/load.go:32"'],
    ['another kind of the group', 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n',
      'expected AuthorizationConfiguration, got *apiserver.AuthenticationConfiguration'],
    ['no kind', 'apiVersion: apiserver.config.k8s.io/v1\nauthorizers: []\n', 'Object \'Kind\' is missing in \'apiVersion: apiserver.config.k8s.io/v1\nauthorizers: []\n\''],
    ['no apiVersion', 'kind: AuthorizationConfiguration\n', 'Object \'apiVersion\' is missing in \'kind: AuthorizationConfiguration\n\''],
  ];
  it.each(decodeCases)('refuses %s with kube\'s message', (_name, data, message) => {
    expect(() => decodeAuthorizationConfig(resolve(data))).toThrow(`failed to load AuthorizationConfiguration from file: ${message}`);
  });
});

describe('Go durations', () => {
  it.each([
    ['5m0s', 300_000_000_000n, '5m0s'], ['30s', 30_000_000_000n, '30s'], ['1m30s', 90_000_000_000n, '1m30s'], ['1.5s', 1_500_000_000n, '1.5s'],
    ['300ms', 300_000_000n, '300ms'], ['1h', 3_600_000_000_000n, '1h0m0s'], ['-2m', -120_000_000_000n, '-2m0s'], ['0', 0n, '0s'],
    ['1500us', 1_500_000n, '1.5ms'], ['250ns', 250n, '250ns'], ['2µs', 2_000n, '2µs'], ['1h2m3.004s', 3_723_004_000_000n, '1h2m3.004s'],
  ] as const)('%s is %d ns and prints as %s', (text, nanos, printed) => {
    expect(parseGoDurationNanos(text)).toBe(nanos);
    expect(formatGoDurationNanos(nanos)).toBe(printed);
  });

  it.each([['', 'time: invalid duration ""'], ['5', 'time: missing unit in duration "5"'], ['5d', 'time: unknown unit "d" in duration "5d"'], ['.s', 'time: invalid duration ".s"']])(
    '%j is refused with Go\'s error', (text, message) => {
      expect(() => parseGoDurationNanos(text)).toThrow(message);
    },
  );
});

describe('the flag conflict', () => {
  it('refuses --authorization-config beside the legacy flags, with kube\'s message', () => {
    const message = '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined';
    expect(authorizationConfigFlagsError('/etc/authz.yaml', new Set(['authorization-mode']))).toBe(message);
    expect(authorizationConfigFlagsError('/etc/authz.yaml', new Set(['authorization-webhook-cache-authorized-ttl']))).toBe(message);
    expect(authorizationConfigFlagsError('/etc/authz.yaml', new Set(['authorization-policy-file']))).toBeUndefined();
    expect(authorizationConfigFlagsError('', new Set(['authorization-mode']))).toBeUndefined();
  });
});

describe('the chain', () => {
  const attributes: AuthorizationAttributes = {
    user: { name: 'alice', uid: '1', groups: ['system:authenticated'], extra: {} }, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/default/pods',
    apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'pods', subresource: '', name: '',
  };
  const fake = (name: string, decision: Decision, asked: string[]): Authorizer => ({
    name, authorize: () => {
      asked.push(name);
      return { decision, reason: decision === 'noOpinion' ? `${name} has no opinion` : `${name} decided` };
    },
  });
  const chainOf = (yaml: string, decisions: Record<string, Decision>, asked: string[], recorded: string[] = []): Authorizer[] => buildAuthorizerChain(
    load(`${header}authorizers:\n${yaml}`),
    {
      node: () => fake('node', decisions['node'] ?? 'noOpinion', asked),
      rbac: () => fake('rbac', decisions['rbac'] ?? 'noOpinion', asked),
      webhook: (webhook) => fake(webhook.name, decisions[webhook.name] ?? 'noOpinion', asked),
    },
    { decisionMetrics: { recordDecision: (type, name, decision) => recorded.push(`${type}/${name}/${decision}`) } },
  );
  const webhookNamed = (name: string): string => webhookYaml().replace('name: webhook', `name: ${name}`);

  it('asks system:masters, then each authorizer in the file\'s order; the first allow wins and is counted', async () => {
    const asked: string[] = [];
    const recorded: string[] = [];
    const chain = chainOf(`- type: Node\n  name: node\n${webhookNamed('first')}- type: RBAC\n  name: rbac\n${webhookNamed('second')}`, { rbac: 'allow' }, asked, recorded);
    expect(chain.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'node', 'first', 'rbac', 'second']);
    expect(await authorize(chain, attributes)).toEqual({ decision: 'allow', reason: 'rbac decided' });
    expect(asked).toEqual(['node', 'first', 'rbac']);
    expect(recorded).toEqual(['RBAC/rbac/allowed']);
  });

  it('a deny stops the chain; with no decision the reasons are joined', async () => {
    const asked: string[] = [];
    const recorded: string[] = [];
    const denying = chainOf(`${webhookNamed('gate')}- type: RBAC\n  name: rbac\n`, { gate: 'deny', rbac: 'allow' }, asked, recorded);
    expect(await authorize(denying, attributes)).toEqual({ decision: 'deny', reason: 'gate decided' });
    expect(asked).toEqual(['gate']);
    expect(recorded).toEqual(['Webhook/gate/denied']);
    const silent = chainOf(`${webhookNamed('gate')}- type: RBAC\n  name: rbac\n`, {}, []);
    expect(await authorize(silent, attributes)).toEqual({ decision: 'noOpinion', reason: 'gate has no opinion\nrbac has no opinion' });
  });

  it('AlwaysAllow and AlwaysDeny are kube\'s', async () => {
    const allow = chainOf('- type: AlwaysDeny\n  name: alwaysdeny\n- type: AlwaysAllow\n  name: alwaysallow\n', {}, []);
    expect(await authorize(allow, attributes)).toEqual({ decision: 'allow', reason: '' });
    const deny = chainOf('- type: AlwaysDeny\n  name: alwaysdeny\n', {}, []);
    expect(await authorize(deny, attributes)).toEqual({ decision: 'noOpinion', reason: 'Everything is forbidden.' });
  });

  it('system:masters is allowed before any configured authorizer', async () => {
    const asked: string[] = [];
    const chain = chainOf('- type: AlwaysDeny\n  name: alwaysdeny\n', {}, asked);
    const admin = { ...attributes, user: { ...attributes.user, groups: ['system:masters'] } };
    expect((await authorize(chain, admin)).decision).toBe('allow');
  });

  it('refuses a built-in type without its factory, and an InClusterConfig webhook', () => {
    const factories: AuthorizerFactories = { webhook: () => fake('w', 'allow', []) };
    expect(() => buildAuthorizerChain(load(`${header}authorizers:\n- type: Node\n  name: node\n`), factories))
      .toThrow('authorizer type Node is not allowed if it was not enabled at initial server startup');
    const inCluster = load(`${header}authorizers:\n${webhookYaml().replace(/\n\s+kubeConfigFile: .*/, '').replace('type: KubeConfigFile', 'type: InClusterConfig')}`);
    expect(() => buildAuthorizerChain(inCluster, factories)).toThrow('connectionInfo.type InClusterConfig is not supported by kube-apiserver');
  });
});
