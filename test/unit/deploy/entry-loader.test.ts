// The executable's entry loader (deploy/entry-loader.mjs): entries run from a bundle built from
// the sources, rebuilt when a source changes, shared module state stays one instance across
// entries, and the sources run as they are when bundling is off or impossible.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEntryLoader } from '../../../deploy/entry-loader.mjs';

interface CounterModule {
  readonly count: () => number;
  readonly label: string;
}

let root: string;
let sourceDir: string;
let bundleDir: string;
const warnings: string[] = [];

function writeSources(label: string): void {
  writeFileSync(path.join(sourceDir, 'state.ts'), 'let calls = 0;\nexport function bump(): number { calls += 1; return calls; }\n');
  writeFileSync(path.join(sourceDir, 'label.ts'), `export const label: string = ${JSON.stringify(label)};\n`);
  writeFileSync(path.join(sourceDir, 'main.ts'), "import { bump } from './state.ts';\nexport { label } from './label.ts';\nexport function count(): number { return bump(); }\n");
  writeFileSync(path.join(sourceDir, 'other.ts'), "import { bump } from './state.ts';\nexport function count(): number { return bump(); }\nexport const label = 'other';\n");
}

function loader(useBundle = true) {
  return createEntryLoader({
    sourceDir, bundleDir, entries: { main: 'main.ts', other: 'other.ts' }, packagesRecord: undefined, useBundle,
    warn: (text: string) => warnings.push(text),
  });
}

function builds(): string[] {
  return readdirSync(bundleDir).filter((name) => name.startsWith('build-')).sort();
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'kstore-entry-loader-'));
  sourceDir = path.join(root, 'src');
  bundleDir = path.join(root, 'src', '.bundle');
  mkdirSync(sourceDir);
  warnings.length = 0;
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('entry loader', () => {
  it('builds a bundle on first use, then reuses it while the sources are unchanged', async () => {
    writeSources('first');
    const first = loader();
    const main = await first.load('main') as CounterModule;
    expect(main.label).toBe('first');
    const firstBuild = await first.source();
    expect(firstBuild).toBeDefined();
    expect(builds()).toHaveLength(1);

    const second = loader();
    expect(await second.source()).toBe(firstBuild);
    expect(builds()).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('rebuilds when a file the bundle was built from changed', async () => {
    writeSources('before');
    const before = await loader().source();
    writeFileSync(path.join(sourceDir, 'label.ts'), "export const label: string = 'after, and longer';\n");
    const later = loader();
    const main = await later.load('main') as CounterModule;
    expect(main.label).toBe('after, and longer');
    expect(await later.source()).not.toBe(before);
  });

  it('notices an edit that keeps the size, by its modification time', async () => {
    writeSources('aaaa');
    const before = await loader().source();
    const labelFile = path.join(sourceDir, 'label.ts');
    writeFileSync(labelFile, readFileSync(labelFile, 'utf8').replace('aaaa', 'bbbb'));
    const future = new Date(Date.now() + 60_000);
    utimesSync(labelFile, future, future);
    const later = loader();
    expect(((await later.load('main')) as CounterModule).label).toBe('bbbb');
    expect(await later.source()).not.toBe(before);
  });

  it('keeps module state shared by two entries as one instance', async () => {
    writeSources('shared');
    const entries = loader();
    const main = await entries.load('main') as CounterModule;
    const other = await entries.load('other') as CounterModule;
    expect(main.count()).toBe(1);
    expect(other.count()).toBe(2);
  });

  it('runs the sources through tsx when bundling is off', async () => {
    writeSources('sources');
    const entries = loader(false);
    expect(((await entries.load('main')) as CounterModule).label).toBe('sources');
    expect(await entries.source()).toBeUndefined();
    expect(() => readdirSync(bundleDir)).toThrow();
  });

  it('falls back to the sources, with a warning, when the bundle cannot be built', async () => {
    writeSources('broken');
    writeFileSync(path.join(sourceDir, 'other.ts'), "import { missing } from './nowhere.ts';\nexport const label = missing;\n");
    const entries = loader();
    expect(((await entries.load('main')) as CounterModule).label).toBe('broken');
    expect(await entries.source()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/running the sources through tsx/);
  });

  it('locates an entry\'s bundled file (for a worker thread), and none when the sources run', async () => {
    writeSources('located');
    const entries = loader();
    const file = await entries.locate('other');
    expect(file).toBeInstanceOf(URL);
    const located = await import(file!.href) as CounterModule;
    expect(located.label).toBe('other');
    expect(path.dirname(file!.pathname)).toBe(await entries.source());
    expect(await loader(false).locate('other')).toBeUndefined();
  });

  it('refuses an entry it does not know', async () => {
    writeSources('x');
    await expect(loader().load('nope')).rejects.toThrow(/unknown kstore entry nope/);
    await expect(loader().locate('nope')).rejects.toThrow(/unknown kstore entry nope/);
  });
});
