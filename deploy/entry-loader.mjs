// Owns: how the `kstore` executable loads its TypeScript entry modules. By default each entry
// comes from a bundle that esbuild builds from the sources and their packages: an ES
// module per entry, with the code they share in chunks, under deploy/.bundle/<build>/. Node then reads one file
// instead of resolving and transforming hundreds of modules through tsx's loader thread, which
// takes most of a second of CPU off every process start (a restart, `cluster up`'s children,
// every test's servers). A bundle is used only while every file it was built from is unchanged
// (size and mtime, from esbuild's metafile, plus npm's record of the installed packages), so
// edited sources always run: a stale bundle is rebuilt by the first process that finds it so.
// Builds are published by an atomic rename of current.json, so processes starting together
// may each build, and each runs a complete one of its own. If the bundle cannot be built or read (no
// esbuild, a read-only install), the sources run through tsx. KSTORE_BUNDLE=0 always runs the
// sources through tsx (stack traces then name the source files).
// Superseded builds are removed after ten minutes (a process starting meanwhile may have
// chosen one and not yet loaded it).
// Plain JavaScript: it runs before any TypeScript loader is registered.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The entry modules the executable loads, by name, relative to deploy/. */
export const kstoreEntries = {
  cli: 'cli.ts',
  supervise: 'roles/supervise.ts',
  'snapshot-prefetch': 'snapshot-prefetch.ts',
  'wal-prefetch-worker': 'wal-prefetch-worker.ts',
};

/** Changes when the way bundles are built changes: older manifests are then stale. */
const bundleFormat = 1;
/** Superseded builds are removed once this old: a process that just read the manifest may still be loading one. */
const supersededBuildRemoveAfterMs = 10 * 60_000;

const deployDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(deployDir);

/**
 * A loader for `entries` (name → path relative to `sourceDir`), bundled into `bundleDir`.
 * `packagesRecord` is a file that changes whenever the installed packages change.
 */
export function createEntryLoader({ sourceDir, bundleDir, entries, packagesRecord, useBundle = true, warn = defaultWarn }) {
  let bundle; // undefined: not decided yet; null: run the sources; else { dir }
  let tsxRegistered = false;

  async function decide() {
    if (bundle !== undefined) return bundle;
    bundle = null;
    if (!useBundle) return bundle;
    try {
      const current = readCurrentBuild(bundleDir);
      if (current !== undefined && isFresh(current, bundleDir, sourceDir, entries, packagesRecord)) {
        bundle = { dir: path.join(bundleDir, current.build) };
      } else {
        bundle = { dir: await buildBundle({ sourceDir, bundleDir, entries, packagesRecord }) };
      }
    } catch (error) {
      warn(`kstore: running the sources through tsx (no bundle: ${error instanceof Error ? error.message : String(error)})`);
    }
    return bundle;
  }

  async function registerTsx() {
    if (tsxRegistered) return;
    const { register } = await import('tsx/esm/api');
    register();
    tsxRegistered = true;
  }

  return {
    /** The module of entry `name`: from the bundle, or the source through tsx. */
    async load(name) {
      const relative = entries[name];
      if (relative === undefined) throw new Error(`unknown kstore entry ${name}`);
      const chosen = await decide();
      if (chosen !== null) return import(pathToFileURL(path.join(chosen.dir, bundledFileName(name))).href);
      await registerTsx();
      return import(pathToFileURL(path.join(sourceDir, relative)).href);
    },
    /**
     * The bundled file of entry `name`, for a worker thread to run; undefined when the sources
     * run through tsx (a worker thread would need its own loader).
     */
    async locate(name) {
      if (entries[name] === undefined) throw new Error(`unknown kstore entry ${name}`);
      const chosen = await decide();
      return chosen === null ? undefined : pathToFileURL(path.join(chosen.dir, bundledFileName(name)));
    },
    /** Where entries come from once decided: a bundle's directory, or undefined for the sources. */
    async source() {
      const chosen = await decide();
      return chosen === null ? undefined : chosen.dir;
    },
  };
}

/** The loader the `kstore` executable uses: deploy/'s entries, bundled into deploy/.bundle. */
export function kstoreEntryLoader() {
  return createEntryLoader({
    sourceDir: deployDir,
    bundleDir: path.join(deployDir, '.bundle'),
    entries: kstoreEntries,
    packagesRecord: path.join(repoRoot, 'node_modules', '.package-lock.json'),
    useBundle: process.env.KSTORE_BUNDLE !== '0',
  });
}

/**
 * Builds the bundle of `entries` into a new directory under `bundleDir`, publishes it as the
 * current build and removes superseded builds old enough. Returns the new build's directory.
 */
export async function buildBundle({ sourceDir, bundleDir, entries, packagesRecord }) {
  const { build } = await import('esbuild');
  mkdirSync(bundleDir, { recursive: true });
  const buildName = `build-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const outdir = path.join(bundleDir, buildName);
  const entryPoints = Object.fromEntries(Object.entries(entries).map(([name, relative]) => [bundledName(name), path.join(sourceDir, relative)]));
  const result = await build({
    entryPoints, outdir, outExtension: { '.js': '.mjs' }, absWorkingDir: sourceDir,
    bundle: true, platform: 'node', format: 'esm', target: `node${process.versions.node.split('.')[0]}`,
    // Code the entries share (module state included: snapshot-prefetch hands its reads to the
    // restore in cli) lives once, in chunks the entries import statically.
    splitting: true, entryNames: '[name]', chunkNames: 'chunk-[hash]',
    metafile: true, logLevel: 'silent', legalComments: 'none',
    // Packages written as CommonJS call require(); in an ES module it must be made.
    banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(sourceDir, input));
  if (packagesRecord !== undefined) inputs.push(packagesRecord);
  const manifest = { format: bundleFormat, build: buildName, entries, inputs: inputs.map((file) => ({ file, ...fileStamp(file) })) };
  const temporary = path.join(bundleDir, `current.json.${buildName}`);
  writeFileSync(temporary, JSON.stringify(manifest));
  renameSync(temporary, path.join(bundleDir, 'current.json'));
  // A process loads every file of its build when it starts, unless a chunk is imported
  // dynamically (loaded later, on first use): then superseded builds stay.
  if (!importsChunksLazily(result.metafile)) removeSupersededBuilds(bundleDir, buildName);
  return outdir;
}

function importsChunksLazily(metafile) {
  return Object.values(metafile.outputs).some((output) => output.imports.some((imported) => imported.kind === 'dynamic-import' && !imported.external));
}

function readCurrentBuild(bundleDir) {
  let text;
  try {
    text = readFileSync(path.join(bundleDir, 'current.json'), 'utf8');
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(text);
  return manifest.format === bundleFormat ? manifest : undefined;
}

function isFresh(manifest, bundleDir, sourceDir, entries, packagesRecord) {
  for (const [name, relative] of Object.entries(entries)) {
    if (manifest.entries[name] !== relative) return false;
    if (!manifest.inputs.some((input) => input.file === path.join(sourceDir, relative))) return false;
  }
  if (packagesRecord !== undefined && !manifest.inputs.some((input) => input.file === packagesRecord)) return false;
  for (const input of manifest.inputs) {
    const stamp = fileStamp(input.file);
    if (stamp.size !== input.size || stamp.mtimeMs !== input.mtimeMs) return false;
  }
  // A build removed by hand (or half copied) is rebuilt.
  for (const name of Object.keys(entries)) {
    if (fileStamp(path.join(bundleDir, manifest.build, bundledFileName(name))).size < 0) return false;
  }
  return true;
}

function fileStamp(file) {
  try {
    const stat = statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return { size: -1, mtimeMs: 0 };
  }
}

function removeSupersededBuilds(bundleDir, keep) {
  const now = Date.now();
  for (const entry of readdirSync(bundleDir, { withFileTypes: true })) {
    if (entry.name === keep || !entry.name.startsWith('build-')) continue;
    const file = path.join(bundleDir, entry.name);
    if (now - fileStamp(file).mtimeMs < supersededBuildRemoveAfterMs) continue;
    rmSync(file, { recursive: true, force: true });
  }
}

function bundledName(name) {
  return name.replaceAll('/', '-');
}

function bundledFileName(name) {
  return `${bundledName(name)}.mjs`;
}

function defaultWarn(text) {
  process.stderr.write(`${text}\n`);
}

// `node deploy/entry-loader.mjs` (npm run build:bundle) builds the executable's bundle now, as
// the first start would; an image built with a read-only install runs it at build time.
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await kstoreEntryLoader().source();
  if (dir === undefined) process.exitCode = 1;
  else process.stdout.write(`kstore bundle: ${path.relative(process.cwd(), dir) || dir}\n`);
}
