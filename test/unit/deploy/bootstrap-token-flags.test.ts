// The command-line flags of bootstrap tokens: --enable-bootstrap-token-auth on `kstore api`, and a
// bad --controllers value refused by `kstore server` before anything starts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../deploy/cli.ts';
import { parseApiFlags } from '../../../deploy/roles/api.ts';

const required = ['--nats', 'nats://127.0.0.1:4222', '--tls-cert-file', 'c.pem', '--tls-private-key-file', 'k.pem', '--client-ca-file', 'ca.pem'];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('bootstrap token flags', () => {
  it('kstore api takes --enable-bootstrap-token-auth (off unless given)', () => {
    expect(parseApiFlags([...required, '--enable-bootstrap-token-auth'])?.auth.enableBootstrapTokenAuth).toBe(true);
    expect(parseApiFlags(required)?.auth.enableBootstrapTokenAuth).toBe(false);
  });

  it('kstore server refuses an unknown controller name', async () => {
    let stderr = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      return true;
    });
    expect(await main(['server', '--controllers', '*,tokenclean'])).toBe(1);
    expect(stderr).toContain('--controllers: "tokenclean" is not in the list of known controllers');
  });

  it('the help documents both flags', async () => {
    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    expect(await main(['server', '--help'])).toBe(0);
    expect(stdout).toContain('--enable-bootstrap-token-auth');
    expect(stdout).toContain("--controllers '*,tokencleaner,bootstrapsigner'");
  });
});
