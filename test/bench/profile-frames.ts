// Owns: how the profile summaries (cpuprofile-summary.ts, heapprofile-summary.ts) name a V8
// profile's call frame: the function, then its file as a reader wants it (a dependency by
// package, the repository's files by path, node's own by `node:` name) and line.

/** A call frame as V8's CPU and sampling heap profiles both write it. */
export interface CallFrame { readonly functionName: string; readonly url: string; readonly lineNumber: number }

/** The repository's root as a file URL (with its trailing slash), to name its files by path. */
const repoUrl = new URL('../../', import.meta.url).href;

/** A file's name as a reader wants it: a dependency by package, the repository's files by path. */
export function moduleOf(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return url;
  const marker = url.lastIndexOf('/node_modules/');
  if (marker >= 0) {
    const rest = url.slice(marker + '/node_modules/'.length).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : rest[0]!}`;
  }
  if (url.startsWith(repoUrl)) return url.slice(repoUrl.length);
  return url.replace(/^file:\/\//, '');
}

/** `function module:line`, or the bare name of a frame without a file (native, GC, root). */
export function frameName(frame: CallFrame): string {
  const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  if (frame.url === '') return name;
  return `${name} ${moduleOf(frame.url)}:${frame.lineNumber + 1}`;
}
