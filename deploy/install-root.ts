// Owns: finding the kstore installation's root directory (the one holding package.json and
// deploy/kstore.mjs) from a module's URL, whether the module runs from its source file or from
// the bundle the executable builds (deploy/.bundle/<build>/, see deploy/entry-loader.mjs).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest ancestor of `moduleUrl`'s directory that holds deploy/kstore.mjs. */
export function kstoreInstallRoot(moduleUrl: string): string {
  const moduleDir = path.dirname(fileURLToPath(moduleUrl));
  for (let dir = moduleDir; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'deploy', 'kstore.mjs'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no kstore installation above ${moduleDir}`);
  }
}
