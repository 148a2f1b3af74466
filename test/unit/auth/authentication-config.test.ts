// The --authentication-config file: strict decoding, kube's validation of `anonymous`, the
// refusal of JWT authenticators, and the combination with --anonymous-auth.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymousWithAlwaysAllowWarning } from '../../../api/auth/anonymous.ts';
import {
  anonymousFlagWithConfigError, loadAuthenticationConfiguration, parseAuthenticationConfiguration, resolveAnonymousAuth, validateAuthenticationConfiguration,
} from '../../../api/auth/authentication-config.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

const yamlConfig = `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
anonymous:
  enabled: true
  conditions:
  - path: /livez
  - path: /readyz
`;

describe('authentication config - decoding', () => {
  it('reads YAML and JSON, v1beta1 and v1alpha1', () => {
    expect(parseAuthenticationConfiguration(yamlConfig)).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1beta1', jwtCount: 0,
      anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] },
    });
    const json = JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1alpha1', kind: 'AuthenticationConfiguration', jwt: [], anonymous: { enabled: false } });
    expect(parseAuthenticationConfiguration(json)).toEqual({ apiVersion: 'apiserver.config.k8s.io/v1alpha1', jwtCount: 0, anonymous: { enabled: false, conditions: [] } });
  });

  it('treats an absent or null anonymous as not configured', () => {
    expect(parseAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous: null\n').anonymous).toBeUndefined();
    expect(parseAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n').anonymous).toBeUndefined();
  });

  it('refuses unknown fields (strict decoding), naming each', () => {
    const text = `${yamlConfig}  extra: 1\nfoo: bar\n`;
    expect(() => parseAuthenticationConfiguration(text)).toThrow('strict decoding error: unknown field "anonymous.extra", unknown field "foo"');
    expect(() => parseAuthenticationConfiguration(`${yamlConfig}  - path: /x\n    verb: get\n`)).toThrow('strict decoding error: unknown field "anonymous.conditions[2].verb"');
  });

  it('refuses duplicate keys, wrong types, an empty file, a missing kind or apiVersion and unserved versions', () => {
    expect(() => parseAuthenticationConfiguration(`${yamlConfig}anonymous: {}\n`)).toThrow(/^strict decoding error: yaml: Map keys must be unique/);
    expect(() => parseAuthenticationConfiguration(yamlConfig.replace('enabled: true', 'enabled: "yes"'))).toThrow(
      'json: cannot unmarshal string into Go struct field AnonymousAuthConfig.anonymous.enabled of type bool');
    expect(() => parseAuthenticationConfiguration('')).toThrow('empty config data');
    expect(() => parseAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\n')).toThrow("Object 'Kind' is missing in 'apiVersion: apiserver.config.k8s.io/v1beta1\n'");
    expect(() => parseAuthenticationConfiguration('kind: AuthenticationConfiguration\n')).toThrow("Object 'apiVersion' is missing in");
    expect(() => parseAuthenticationConfiguration(yamlConfig.replace('v1beta1', 'v1'))).toThrow('no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io/v1"');
  });
});

describe('authentication config - validation', () => {
  it('requires enabled when conditions are given, worded as kube\'s field error', () => {
    const config = parseAuthenticationConfiguration(yamlConfig.replace('enabled: true', 'enabled: false'));
    expect(validateAuthenticationConfiguration(config)).toEqual([
      'anonymous.conditions: Invalid value: []apiserver.AnonymousAuthCondition{apiserver.AnonymousAuthCondition{Path:"/livez"}, apiserver.AnonymousAuthCondition{Path:"/readyz"}}: enabled should be set to true when conditions are defined',
    ]);
  });

  it('accepts duplicate and empty paths, as kube does', () => {
    const config = parseAuthenticationConfiguration(`${yamlConfig}  - path: /livez\n  - path: ""\n`);
    expect(validateAuthenticationConfiguration(config)).toEqual([]);
  });

  it('refuses JWT authenticators (kstore has none)', () => {
    const config = parseAuthenticationConfiguration(`${yamlConfig}jwt:\n- issuer:\n    url: https://issuer.example.com\n    audiences: [a]\n`);
    expect(config.jwtCount).toBe(1);
    expect(validateAuthenticationConfiguration(config)).toEqual(['jwt: Forbidden: JWT authenticators are not supported by kstore']);
  });
});

describe('authentication config - anonymous with --anonymous-auth', () => {
  const file = parseAuthenticationConfiguration(yamlConfig);

  it('takes the file\'s anonymous part, even with AlwaysAllow', () => {
    expect(resolveAnonymousAuth({ config: file, anonymousAuthFlag: undefined, authorizationModes: ['AlwaysAllow'] })).toEqual({
      anonymous: { enabled: true, paths: ['/livez', '/readyz'] },
    });
  });

  it('refuses --anonymous-auth together with a file that configures anonymous, whatever its value', () => {
    for (const flag of [true, false]) {
      expect(() => resolveAnonymousAuth({ config: file, anonymousAuthFlag: flag, authorizationModes: ['RBAC'] })).toThrow(anonymousFlagWithConfigError);
    }
    expect(anonymousFlagWithConfigError).toBe('anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  });

  it('uses the flag when the file has no anonymous part or there is no file', () => {
    const withoutAnonymous = parseAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n');
    expect(resolveAnonymousAuth({ config: withoutAnonymous, anonymousAuthFlag: false, authorizationModes: ['RBAC'] })).toEqual({ anonymous: { enabled: false } });
    expect(resolveAnonymousAuth({ anonymousAuthFlag: undefined, authorizationModes: ['AlwaysAllow'] })).toEqual({ anonymous: { enabled: false }, warning: anonymousWithAlwaysAllowWarning });
  });

  it('fails an invalid file with kube\'s wrapper', () => {
    const invalid = parseAuthenticationConfiguration(yamlConfig.replace('enabled: true', 'enabled: false'));
    expect(() => resolveAnonymousAuth({ config: invalid, anonymousAuthFlag: undefined, authorizationModes: ['RBAC'] })).toThrow(
      /^invalid authentication configuration: anonymous\.conditions: Invalid value: /);
  });
});

describe('authentication config - loading', () => {
  let dir: TempDir;
  beforeAll(async () => { dir = await makeTempDir('kstore-authn-config-'); });
  afterAll(async () => { await dir.remove(); });

  it('reads the file and wraps its errors with the file name', async () => {
    const file = path.join(dir.path, 'authn.yaml');
    await writeFile(file, yamlConfig);
    expect((await loadAuthenticationConfiguration(file)).anonymous?.enabled).toBe(true);
    const empty = path.join(dir.path, 'empty.yaml');
    await writeFile(empty, '');
    await expect(loadAuthenticationConfiguration(empty)).rejects.toThrow(`failed to load authentication configuration from file "${empty}": empty config data`);
    const missing = path.join(dir.path, 'missing.yaml');
    await expect(loadAuthenticationConfiguration(missing)).rejects.toThrow(`failed to load authentication configuration from file "${missing}": open ${missing}: no such file or directory`);
  });
});
