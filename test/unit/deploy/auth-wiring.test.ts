// What deploy/auth-wiring.ts makes of the flags: kube-apiserver's fallback to the serving key for
// service account token verification (used when it can read it, else a warning and no key of
// its own, never a start-up failure), and the mode chain in the order given.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiMetrics, StoreClient } from '../../../api/index.ts';
import { authFlagOptions, parseAuthFlags } from '../../../deploy/auth-flags.ts';
import { wireAuth } from '../../../deploy/auth-wiring.ts';
import { ImmediateBackend } from '../api/harness.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('kstore-auth-wiring-');
});
afterEach(async () => {
  await dir.remove();
});

async function wire(args: string[], servingKey: string) {
  const servingKeyFile = path.join(dir.path, 'server.key');
  await writeFile(servingKeyFile, servingKey);
  const logged: string[] = [];
  const { values } = parseArgs({ args, options: authFlagOptions, strict: true, allowPositionals: false });
  const wiring = await wireAuth({
    flags: parseAuthFlags(values), store: new StoreClient(new ImmediateBackend()), clientCa: '', metrics: new ApiMetrics(), serverId: 'test',
    servingKeyFile, externalAddress: '127.0.0.1:6443', log: (message) => logged.push(message),
  });
  wiring.close();
  return { wiring, logged };
}

describe('auth wiring', () => {
  it('starts with a serving key it cannot use for tokens (EC in PKCS#8), warning as kube-apiserver does', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { wiring, logged } = await wire([], ec);
    expect(logged).toContain('No TLS key provided, service account token authentication disabled');
    expect(wiring.serviceAccountTokens).toBeUndefined();
    expect(wiring.authorizers.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'RBAC']);
  });

  it('verifies with an RSA serving key, and mints only with a signing key and an issuer', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const plain = await wire(['--authorization-mode', 'Node,RBAC'], rsa);
    expect(plain.logged).toEqual([]);
    expect(plain.wiring.serviceAccountTokens).toBeUndefined();
    expect(plain.wiring.authorizers.map((authorizer) => authorizer.name)).toEqual(['system:masters', 'Node', 'RBAC']);
    const signingKeyFile = path.join(dir.path, 'sa.key');
    await writeFile(signingKeyFile, rsa);
    const minting = await wire(['--service-account-issuer', 'https://issuer.example', '--service-account-signing-key-file', signingKeyFile], rsa);
    expect(minting.wiring.serviceAccountTokens?.issuer).toBe('https://issuer.example');
    expect(minting.wiring.openIdMetadata).toBeDefined();
  });
});
