// Owns: static checks of the deploy/ artefacts: every YAML parses; Kubernetes objects are
// well-formed and their selectors (workloads, Services, PodDisruptionBudgets) match pod
// labels; every `kstore` command line in compose, manifests and systemd units uses only flags
// that `kstore --help` documents for that command; NATS configs pass `nats-server -t`; and
// `docker compose config` accepts compose.yaml where docker compose exists (skipped otherwise);
// compose's stores and API replicas get the node flags and environment of co-located processes.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { colocatedEnvironment, colocatedNatsEnvironment, colocatedNodeFlags, serverNodeFlags } from '../../../deploy/node-flags.ts';
import { kubeconfigDocument, natsConfigText, parseClusterArgs } from '../../../deploy/roles/cluster.ts';
import { repoRoot } from '../../support/kstore-process.ts';

const deployDir = path.join(repoRoot, 'deploy');
const kubernetesDir = path.join(deployDir, 'kubernetes');
const systemdDir = path.join(deployDir, 'systemd');

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? value as Json : {});

/** The `kstore api` flags of the contract, used while `kstore --help` has no api section yet. */
const apiContractFlags = ['nats', 'port', 'bind-address', 'tls-cert-file', 'tls-private-key-file', 'client-ca-file', 'cluster', 'group'];

function documentedFlags(): Map<string, Set<string>> {
  const usage = execFileSync(process.execPath, [path.join(deployDir, 'kstore.mjs'), '--help'], { encoding: 'utf8' });
  const flags = new Map<string, Set<string>>();
  let current: Set<string>[] | undefined;
  for (const line of usage.split('\n')) {
    // "Flags for server:", and "... flags for server and api:" for flags both take.
    const section = /^(?:[A-Z][a-z ]* f|F)lags for ([a-z]+)(?: and ([a-z]+))?:/.exec(line);
    if (section?.[1] !== undefined) {
      current = [section[1], section[2]].flatMap((name) => (name === undefined ? [] : [name])).map((name) => {
        const existing = flags.get(name) ?? new Set<string>();
        flags.set(name, existing);
        return existing;
      });
      continue;
    }
    for (const match of line.matchAll(/^\s+(?:-\w, )?--([a-z][a-z-]*)/g)) if (match[1] !== undefined) for (const set of current ?? []) set.add(match[1]);
  }
  if (!flags.has('api')) flags.set('api', new Set([...apiContractFlags, 'help']));
  return flags;
}

function kubernetesDocuments(): { file: string; doc: Json }[] {
  const out: { file: string; doc: Json }[] = [];
  for (const file of readdirSync(kubernetesDir).filter((name) => name.endsWith('.yaml'))) {
    for (const document of parseAllDocuments(readFileSync(path.join(kubernetesDir, file), 'utf8'))) {
      expect(document.errors, file).toEqual([]);
      const doc = obj(document.toJS());
      if (Object.keys(doc).length > 0) out.push({ file, doc });
    }
  }
  return out;
}

function composeFile(): Json {
  return obj(parse(readFileSync(path.join(deployDir, 'compose.yaml'), 'utf8'), { merge: true }));
}

/** Every kstore command line in the artefacts: where it is and its argv after `kstore`. */
function kstoreCommandLines(): { where: string; argv: string[] }[] {
  const lines: { where: string; argv: string[] }[] = [];
  for (const [name, service] of Object.entries(obj(composeFile().services))) {
    const s = obj(service);
    if (typeof s.image === 'string' && s.image.startsWith('kstore') && Array.isArray(s.command) && s.command.length > 0) {
      lines.push({ where: `compose.yaml ${name}`, argv: s.command.map(String) });
    }
  }
  for (const { file, doc } of kubernetesDocuments()) {
    const containers = obj(obj(obj(obj(doc.spec).template).spec)).containers;
    if (!Array.isArray(containers)) continue;
    for (const container of containers.map(obj)) {
      if (typeof container.image === 'string' && container.image.startsWith('kstore') && Array.isArray(container.args)) {
        lines.push({ where: `kubernetes/${file} ${String(obj(doc.metadata).name)}`, argv: container.args.map(String) });
      }
    }
  }
  for (const file of readdirSync(systemdDir)) {
    for (const line of readFileSync(path.join(systemdDir, file), 'utf8').split('\n')) {
      const match = /^ExecStart=.*kstore\.mjs\s+(.*)$/.exec(line);
      if (match?.[1] !== undefined) lines.push({ where: `systemd/${file}`, argv: match[1].trim().split(/\s+/) });
    }
  }
  return lines;
}

function labelsMatch(selector: unknown, labels: unknown): boolean {
  const wanted = Object.entries(obj(selector));
  const have = obj(labels);
  return wanted.length > 0 && wanted.every(([key, value]) => have[key] === value);
}

describe('deploy artefacts', () => {
  it('every YAML file parses', () => {
    const files = [path.join(deployDir, 'compose.yaml'), ...readdirSync(kubernetesDir).filter((n) => n.endsWith('.yaml')).map((n) => path.join(kubernetesDir, n))];
    for (const file of files) {
      for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) expect(document.errors, file).toEqual([]);
    }
  });

  it('Kubernetes objects are well-formed and their selectors match pod labels', () => {
    const docs = kubernetesDocuments();
    expect(docs.length).toBeGreaterThan(5);
    const kinds = new Set(docs.map(({ doc }) => doc.kind));
    for (const kind of ['Namespace', 'StatefulSet', 'Deployment', 'Service', 'Secret', 'PodDisruptionBudget']) expect(kinds, kind).toContain(kind);
    const podLabels: Json[] = [];
    const services = new Set<string>();
    for (const { file, doc } of docs) {
      expect(typeof doc.apiVersion, file).toBe('string');
      expect(typeof doc.kind, file).toBe('string');
      expect(typeof obj(doc.metadata).name, file).toBe('string');
      if (doc.kind !== 'Namespace') expect(obj(doc.metadata).namespace, `${file} ${String(obj(doc.metadata).name)}`).toBe('kstore');
      if (doc.kind === 'Service') services.add(String(obj(doc.metadata).name));
      if (doc.kind === 'StatefulSet' || doc.kind === 'Deployment') {
        const spec = obj(doc.spec);
        const labels = obj(obj(obj(spec.template).metadata).labels);
        expect(labelsMatch(obj(spec.selector).matchLabels, labels), `${file}: selector vs template labels`).toBe(true);
        podLabels.push(labels);
      }
      if (doc.kind === 'StatefulSet') {
        const claims = obj(doc.spec).volumeClaimTemplates;
        expect(Array.isArray(claims) && claims.length > 0, `${file}: PersistentVolumeClaims`).toBe(true);
      }
    }
    for (const { file, doc } of docs) {
      const spec = obj(doc.spec);
      if (doc.kind === 'Service') expect(podLabels.some((labels) => labelsMatch(spec.selector, labels)), `${file}: Service ${String(obj(doc.metadata).name)} selects no pods`).toBe(true);
      if (doc.kind === 'PodDisruptionBudget') expect(podLabels.some((labels) => labelsMatch(obj(spec.selector).matchLabels, labels)), `${file}: PDB selects no pods`).toBe(true);
      if (doc.kind === 'StatefulSet') expect(services, `${file}: serviceName`).toContain(spec.serviceName);
    }
  });

  it('every kstore command line uses only flags the CLI documents for that command', () => {
    const flags = documentedFlags();
    const lines = kstoreCommandLines();
    // compose: 3 stores + 2 apis; kubernetes: store + api; systemd: store + api.
    expect(lines.length).toBeGreaterThanOrEqual(9);
    for (const { where, argv } of lines) {
      const [command, ...rest] = argv;
      const known = flags.get(command ?? '');
      expect(known, `${where}: unknown command ${String(command)}`).toBeDefined();
      const used = rest.filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2).split('=')[0] ?? '');
      for (const flag of used) expect(known?.has(flag), `${where}: --${flag} is not a flag of kstore ${String(command)}`).toBe(true);
      if (command === 'store') for (const flag of ['id', 'peers', 'nats', 'data-dir']) expect(used, `${where}: --${flag}`).toContain(flag);
      if (command === 'api') for (const flag of ['nats', 'tls-cert-file', 'tls-private-key-file', 'client-ca-file']) expect(used, `${where}: --${flag}`).toContain(flag);
    }
  });

  it('compose has 3 nats, 3 stores and 2 API replicas with healthchecks and volumes', () => {
    const services = obj(composeFile().services);
    const names = Object.keys(services);
    for (const name of ['nats1', 'nats2', 'nats3', 'store1', 'store2', 'store3', 'api1', 'api2']) {
      expect(names).toContain(name);
      expect(obj(services[name]).healthcheck, name).toBeDefined();
    }
    const volumes = Object.keys(obj(composeFile().volumes));
    for (const name of ['nats1', 'store1', 'pki']) expect(volumes).toContain(name);
  });

  it('compose runs its stores, API replicas and nats-servers as `cluster up` does processes that share a machine', () => {
    const services = obj(composeFile().services);
    for (const name of ['store1', 'store2', 'store3', 'api1', 'api2']) {
      const service = obj(services[name]);
      expect(service.entrypoint, name).toEqual(['node', ...colocatedNodeFlags, 'deploy/kstore.mjs']);
      expect(service.environment, name).toMatchObject(colocatedEnvironment);
    }
    for (const name of ['nats1', 'nats2', 'nats3']) expect(obj(services[name]).environment, name).toMatchObject(colocatedNatsEnvironment);
  });

  it('npm start runs kstore server with the node flags the tests and benchmarks give it', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts['start']).toBe(['node', ...serverNodeFlags, 'deploy/kstore.mjs', 'server'].join(' '));
  });

  it('cluster CLI parses its documented flags', () => {
    const parsed = parseClusterArgs(['up', '--data-dir', 'd', '--stores', '3', '--apis', '0', '--nats-servers', '3', '--events-max-age', '10m', '--port-base', '20000']);
    expect(parsed?.up).toMatchObject({ stores: 3, apis: 0, natsServers: 3, eventsMaxAge: '10m', portBase: 20000 });
    expect(() => parseClusterArgs(['up', '--data-dir', 'd', '--bogus'])).toThrow();
    expect(() => parseClusterArgs(['sideways', '--data-dir', 'd'])).toThrow();
  });

  const natsServer = spawnSync('nats-server', ['--version']).status === 0;
  it.skipIf(!natsServer)('nats-server accepts deploy/nats/cluster.conf and the configs cluster up writes', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kstore-nats-conf-'));
    try {
      const env = { ...process.env, SERVER_NAME: 'n1', NATS_HOST_1: '127.0.0.1', NATS_HOST_2: '127.0.0.2', NATS_HOST_3: '127.0.0.3' };
      const template = spawnSync('nats-server', ['-c', path.join(deployDir, 'nats', 'cluster.conf'), '-t'], { env, encoding: 'utf8' });
      expect(template.status, template.stderr).toBe(0);
      const generated = path.join(dir, 'n1.conf');
      writeFileSync(generated, natsConfigText('n1', 14222, 16222, 18222, path.join(dir, 'js'), [16223, 16224]));
      const result = spawnSync('nats-server', ['-c', generated, '-t'], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const kubectl = spawnSync('kubectl', ['version', '--client']).status === 0;
  it.skipIf(!kubectl)('kubectl reads the admin.kubeconfig cluster up writes: one context per replica, the first current', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kstore-kubeconfig-'));
    try {
      const file = path.join(dir, 'admin.kubeconfig');
      const pem = '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n';
      writeFileSync(file, stringify(kubeconfigDocument([{ name: 'a1', url: 'https://127.0.0.1:1' }, { name: 'a2', url: 'https://127.0.0.1:2' }], { caCert: pem, adminCert: pem, adminKey: pem })));
      const contexts = spawnSync('kubectl', ['config', 'get-contexts', '-o', 'name', '--kubeconfig', file], { encoding: 'utf8' });
      expect(contexts.status, contexts.stderr).toBe(0);
      expect(contexts.stdout.trim().split('\n')).toEqual(['kstore-a1', 'kstore-a2']);
      const current = spawnSync('kubectl', ['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}', '--kubeconfig', file], { encoding: 'utf8' });
      expect(current.stdout).toBe('https://127.0.0.1:1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const dockerCompose = spawnSync('docker', ['compose', 'version']).status === 0;
  it.skipIf(!dockerCompose)('docker compose config accepts compose.yaml', () => {
    const result = spawnSync('docker', ['compose', '-f', path.join(deployDir, 'compose.yaml'), 'config', '--quiet'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
  });
});
