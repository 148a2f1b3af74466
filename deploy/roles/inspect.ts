// Owns: `kstore inspect <resource> <name> [-n ns]` — an object's lifecycle for a terminal: for
// each machine that governs it, the statechart drawn as text with the current state marked,
// what it waits for in plain words, and the history of transitions (revision, time, event,
// from, to, user). It reads the `lifecycle` subresource through the kubeconfig's credentials,
// like kubectl; `--watch` prints it again at every transition until the object is removed.
import { parseArgs } from 'node:util';
import { drawStatechart } from '../../actors/index.ts';
import type { ObjectLifecycleView } from '../../api/index.ts';
import { kubeconfigPath, kubeGet, kubeWatch, loadKubeconfig, objectPath, resolveResource } from '../kube-api-client.ts';

export const inspectUsage = `Usage: kstore inspect <resource> <name> [-n namespace] [flags]

Shows an object's lifecycle: each machine that governs it, drawn with its current state marked,
what it is waiting for, and its history of transitions (who caused each).

Flags:
  -n, --namespace <ns>     the object's namespace (default: the context's, else default)
  -w, --watch              print it again at every transition, until the object is removed
  --kubeconfig <file>      kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
  --context <name>         kubeconfig context (default: the current context)
  -o, --output <format>    text (default) or json (the ObjectLifecycle as the API returns it)
  -h, --help               show this help

Examples:
  kstore inspect configmap settings -n team-a
  kstore inspect secret bootstrap-token-abcdef -n kube-system --watch
  kstore inspect ns team-a -o json
`;

/** The API's ObjectLifecycle document (api/console/view-types.ts). */
export type LifecycleDocument = ObjectLifecycleView;

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd());
}

/** The text `kstore inspect` prints for one lifecycle document. */
export function renderLifecycle(document: LifecycleDocument): string {
  const { metadata, object } = document;
  const where = metadata.namespace === undefined ? metadata.name : `${metadata.namespace}/${metadata.name}`;
  const lines = [`${object.kind} ${where} (${object.apiVersion}, uid ${metadata.uid ?? '-'}, resourceVersion ${metadata.resourceVersion ?? '-'})`];
  for (const machine of document.machines) {
    lines.push('', `${machine.name} machine: ${machine.state}`, `  ${machine.waitingFor}`, '');
    lines.push(...drawStatechart(machine.statechart, machine.state).split('\n').map((line) => `  ${line}`));
    lines.push('', '  history:');
    const rows = [['REVISION', 'TIME', 'EVENT', 'FROM', 'TO', 'USER'], ...machine.history.map((entry) => [entry.revision, entry.time, entry.event, entry.from ?? '-', entry.to, entry.user ?? '-'])];
    lines.push(...table(rows).map((line) => `    ${line}`));
  }
  return `${lines.join('\n')}\n`;
}

export async function runInspect(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv], allowPositionals: true, strict: true,
    options: {
      namespace: { type: 'string', short: 'n' }, watch: { type: 'boolean', short: 'w', default: false },
      kubeconfig: { type: 'string' }, context: { type: 'string' }, output: { type: 'string', short: 'o', default: 'text' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(inspectUsage);
    return 0;
  }
  const [resourceName, name, ...extra] = positionals;
  if (resourceName === undefined || name === undefined || extra.length > 0) {
    process.stderr.write(`kstore inspect: expected <resource> <name>\n\n${inspectUsage}`);
    return 1;
  }
  if (values.output !== 'text' && values.output !== 'json') throw new Error(`--output must be text or json, got ${values.output}`);
  const target = await loadKubeconfig(kubeconfigPath(values.kubeconfig), values.context);
  const resource = await resolveResource(target, resourceName);
  const path = `${objectPath(resource, values.namespace ?? target.namespace, name)}/lifecycle`;
  const print = (document: LifecycleDocument): void => {
    process.stdout.write(values.output === 'json' ? `${JSON.stringify(document, null, 2)}\n` : renderLifecycle(document));
  };
  const response = await kubeGet(target, path);
  if (response.status !== 200) {
    let status: { message?: string; reason?: string } = {};
    try {
      status = JSON.parse(response.body) as typeof status;
    } catch {
      // not a Status body: print it as it came
    }
    process.stderr.write(`Error from server (${status.reason ?? response.status}): ${status.message ?? response.body}\n`);
    return 1;
  }
  const current = JSON.parse(response.body) as LifecycleDocument;
  print(current);
  if (!values.watch) return 0;
  const watch = kubeWatch(target, `${path}?watch=1`, (line) => {
    const event = JSON.parse(line) as { type: string; object: LifecycleDocument };
    // The stream starts with the current view; skip it when it is what was just printed.
    if (event.type === 'ADDED' && event.object.metadata.resourceVersion === current.metadata.resourceVersion) return;
    if (values.output === 'text') process.stdout.write(`\n--- ${event.type} ---\n`);
    print(event.object);
  });
  const status = await watch.done;
  return status === 200 ? 0 : 1;
}
