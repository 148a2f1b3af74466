// Owns: the `kstore` command line: parsing the role and its flags, printing help, and handing
// over to the role. Roles are wired in deploy/roles/*; nothing here does work itself.
import { parseArgs } from 'node:util';
import { runServer } from './roles/server.ts';

const usage = `Usage: kstore <command> [flags]

Commands:
  server    Run an all-in-one single-node kstore (API over HTTPS + a one-member Raft store).

Flags for server:
  --port <n>              HTTPS port to serve on (default 6443)
  --bind-address <ip>     address to listen on (default 127.0.0.1)
  --data-dir <dir>        where the Raft log, certificates and admin.kubeconfig live (default .kstore)
  --tls-san <name|ip>     extra subject alternative name for the serving certificate (repeatable)
  -h, --help              show this help
`;

export interface ServerFlags {
  readonly port: number;
  readonly bindAddress: string;
  readonly dataDir: string;
  readonly tlsSans: readonly string[];
}

function parseServerFlags(args: readonly string[]): ServerFlags | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '6443' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string', default: '.kstore' },
      'tls-san': { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535, got ${values.port}`);
  return { port, bindAddress: values['bind-address'], dataDir: values['data-dir'], tlsSans: values['tls-san'] };
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
      process.stdout.write(usage);
      return command === undefined ? 1 : 0;
    }
    if (command === 'server') {
      const flags = parseServerFlags(rest);
      if (!flags) {
        process.stdout.write(usage);
        return 0;
      }
      await runServer(flags);
      return 0;
    }
    process.stderr.write(`kstore: unknown command ${JSON.stringify(command)}\n\n${usage}`);
    return 1;
  } catch (error) {
    process.stderr.write(`kstore: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
