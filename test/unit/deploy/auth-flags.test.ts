// The authentication and authorization flags kstore server and kstore api share: defaults,
// kube-apiserver's start-up refusals, and what cluster up forwards to its API replicas.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { authFlagArguments, authFlagOptions, parseAuthFlags } from '../../../deploy/auth-flags.ts';
import { formatGoDuration, parseGoDuration, parseGoDurationNanos } from '../../../api/go-duration.ts';

function parse(args: string[]) {
  const { values } = parseArgs({ args, options: authFlagOptions, strict: true, allowPositionals: false });
  return { values, flags: parseAuthFlags(values) };
}

describe('auth flags', () => {
  it('defaults: RBAC, anonymous left to the modes, lookup on, webhook TTLs as kube-apiserver', () => {
    const { flags } = parse([]);
    expect(flags.authorizationModes).toEqual(['RBAC']);
    expect(flags.anonymousAuth).toBeUndefined();
    expect(flags.serviceAccount.lookup).toBe(true);
    expect(flags.requestHeader).toBeUndefined();
    const webhook = parse(['--authorization-mode', 'Node,Webhook,RBAC', '--authorization-webhook-config-file', 'w.yaml']).flags.authorizationWebhook;
    expect(webhook).toEqual({ configFile: path.resolve('w.yaml'), version: 'v1beta1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 });
  });

  it('audiences default to the issuers; booleans take Go spellings', () => {
    const { flags } = parse(['--service-account-issuer', 'https://a', '--service-account-issuer', 'https://b', '--service-account-lookup=f', '--anonymous-auth=false']);
    expect(flags.apiAudiences).toEqual(['https://a', 'https://b']);
    expect(flags.serviceAccount.lookup).toBe(false);
    expect(flags.anonymousAuth).toBe(false);
    expect(() => parse(['--anonymous-auth=maybe'])).toThrow('invalid argument "maybe" for "--anonymous-auth" flag');
  });

  it('refuses what kube-apiserver refuses at start-up', () => {
    expect(() => parse(['--authorization-mode', 'ABAC'])).toThrow("authorization-mode ABAC's authorization policy file not passed");
    expect(() => parse(['--authorization-policy-file', 'p.jsonl'])).toThrow('cannot specify --authorization-policy-file without mode ABAC');
    expect(() => parse(['--authorization-mode', 'Webhook'])).toThrow("authorization-mode Webhook's authorization config file not passed");
    expect(() => parse(['--authorization-config', 'c.yaml', '--authorization-mode', 'RBAC'])).toThrow('--authorization-config');
    expect(() => parse(['--authorization-mode', 'RBAC,RBAC'])).toThrow('has mode specified more than once');
    expect(() => parse(['--requestheader-username-headers', 'X-Remote-User'])).toThrow('needs --requestheader-client-ca-file');
    expect(() => parse(['--service-account-max-token-expiration', '30m'])).toThrow('at least 1h');
    expect(() => parse(['--authentication-token-webhook-config-file', 'k', '--authentication-token-webhook-version', 'v2'])).toThrow('unsupported version');
  });

  it('forwards the flags as given, file paths made absolute', () => {
    const { values } = parse(['--token-auth-file', 'tokens.csv', '--enable-bootstrap-token-auth', '--authorization-mode', 'Node,RBAC', '--service-account-issuer', 'https://a']);
    expect(authFlagArguments(values)).toEqual([
      '--token-auth-file', path.resolve('tokens.csv'), '--enable-bootstrap-token-auth', '--service-account-issuer', 'https://a', '--authorization-mode', 'Node,RBAC',
    ]);
  });
});

describe('Go durations', () => {
  it('parses and prints as Go does', () => {
    expect(parseGoDuration('1h30m')).toBe(5_400_000);
    expect(parseGoDuration('1.5s')).toBe(1_500);
    expect(parseGoDurationNanos('300us')).toBe(300_000n);
    expect(parseGoDuration('0')).toBe(0);
    expect(() => parseGoDuration('5')).toThrow('time: missing unit in duration "5"');
    expect(() => parseGoDuration('5d')).toThrow('time: unknown unit "d" in duration "5d"');
    expect(() => parseGoDuration('')).toThrow('time: invalid duration ""');
    expect(formatGoDuration(300_000)).toBe('5m0s');
    expect(formatGoDuration(30_000)).toBe('30s');
    expect(formatGoDuration(3_600_000)).toBe('1h0m0s');
    expect(formatGoDuration(1_500)).toBe('1.5s');
  });
});
