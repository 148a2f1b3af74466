// Types of deploy/entry-loader.mjs (plain JavaScript: it runs before tsx is registered).

export interface EntryLoader {
  /** The module of entry `name`: from the bundle, or the source through tsx. */
  load(name: string): Promise<unknown>;
  /** The bundled file of entry `name` (for a worker thread), or undefined when the sources run. */
  locate(name: string): Promise<URL | undefined>;
  /** Where entries come from once decided: a bundle's directory, or undefined for the sources. */
  source(): Promise<string | undefined>;
}

export interface EntryLoaderOptions {
  readonly sourceDir: string;
  readonly bundleDir: string;
  /** Entry name → path relative to sourceDir. */
  readonly entries: Readonly<Record<string, string>>;
  /** A file that changes whenever the installed packages change (undefined: none checked). */
  readonly packagesRecord: string | undefined;
  readonly useBundle?: boolean;
  readonly warn?: (text: string) => void;
}

export const kstoreEntries: Readonly<Record<string, string>>;
export function createEntryLoader(options: EntryLoaderOptions): EntryLoader;
export function kstoreEntryLoader(): EntryLoader;
export function buildBundle(options: Omit<EntryLoaderOptions, 'useBundle' | 'warn'>): Promise<string>;
