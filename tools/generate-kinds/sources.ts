// Owns: which Go packages the generator reads (the group/versions kube-apiserver 1.33 serves by
// default, the apimachinery packages they use, kube-aggregator's apiregistration.k8s.io/v1 and
// apiextensions-apiserver's apiextensions.k8s.io/v1) and
// where their files come from: a checkout directory per repository, or a tag of bare git
// repositories extracted into a temporary directory.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GoSourceFile } from './go-source.ts';

export type Repository = 'api' | 'apimachinery' | 'kube-aggregator' | 'apiextensions-apiserver';

export const repositories: readonly Repository[] = ['api', 'apimachinery', 'kube-aggregator', 'apiextensions-apiserver'];

export interface PackageSource {
  readonly repository: Repository;
  /** The package's folder inside its repository. */
  readonly folder: string;
  /** The Go import path. */
  readonly importPath: string;
  /** The generated module's file name without `.ts`; absent for a package read only to resolve types. */
  readonly module?: string;
  /**
   * Only types marked `+protobuf=true` are protobuf messages (apimachinery's runtime, intstr and
   * resource packages, whose other types are Go machinery); elsewhere every exported struct is,
   * unless marked `+protobuf=false`.
   */
  readonly protobufOptIn?: true;
}

export const repositoryImportPaths: Record<Repository, string> = {
  api: 'k8s.io/api', apimachinery: 'k8s.io/apimachinery', 'kube-aggregator': 'k8s.io/kube-aggregator', 'apiextensions-apiserver': 'k8s.io/apiextensions-apiserver',
};

/**
 * The group/versions kube-apiserver 1.33 serves with its default --runtime-config. Every one is
 * GA: 1.33 turns on no beta group/version by default (apiextensions.k8s.io and apiregistration.k8s.io
 * are not in k8s.io/api; apiregistration.k8s.io/v1 is read from k8s.io/kube-aggregator and
 * apiextensions.k8s.io/v1 from k8s.io/apiextensions-apiserver below).
 */
const servedGroupVersions: readonly string[] = [
  'core/v1', 'apps/v1', 'batch/v1', 'autoscaling/v1', 'autoscaling/v2', 'policy/v1', 'networking/v1', 'discovery/v1',
  'storage/v1', 'scheduling/v1', 'node/v1', 'certificates/v1', 'coordination/v1', 'admissionregistration/v1',
  'flowcontrol/v1', 'rbac/v1', 'events/v1', 'authentication/v1', 'authorization/v1',
];

export const packageSources: readonly PackageSource[] = [
  ...servedGroupVersions.map((folder): PackageSource => ({
    repository: 'api', folder, importPath: `k8s.io/api/${folder}`, module: folder.replace('/', '-'),
  })),
  { repository: 'apimachinery', folder: 'pkg/apis/meta/v1', importPath: 'k8s.io/apimachinery/pkg/apis/meta/v1', module: 'meta-v1' },
  { repository: 'apimachinery', folder: 'pkg/apis/meta/v1beta1', importPath: 'k8s.io/apimachinery/pkg/apis/meta/v1beta1', module: 'meta-v1beta1' },
  { repository: 'apimachinery', folder: 'pkg/runtime', importPath: 'k8s.io/apimachinery/pkg/runtime', module: 'runtime', protobufOptIn: true },
  { repository: 'apimachinery', folder: 'pkg/util/intstr', importPath: 'k8s.io/apimachinery/pkg/util/intstr', module: 'intstr', protobufOptIn: true },
  { repository: 'apimachinery', folder: 'pkg/api/resource', importPath: 'k8s.io/apimachinery/pkg/api/resource', module: 'resource', protobufOptIn: true },
  { repository: 'apimachinery', folder: 'pkg/types', importPath: 'k8s.io/apimachinery/pkg/types' },
  {
    repository: 'kube-aggregator', folder: 'pkg/apis/apiregistration/v1',
    importPath: 'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1', module: 'apiregistration-v1',
  },
  {
    repository: 'apiextensions-apiserver', folder: 'pkg/apis/apiextensions/v1',
    importPath: 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1', module: 'apiextensions-v1',
  },
];

/** The checkout folders of the repositories. */
export type Checkouts = Record<Repository, string>;

/** Files that are Go API source (not tests, not code generated from the types). */
function isTypeSource(name: string): boolean {
  return name.endsWith('.go') && !name.endsWith('_test.go') && name !== 'generated.pb.go'
    && !name.startsWith('zz_generated') && !name.endsWith('_swagger_doc_generated.go');
}

/** The Go source files of one package. */
export function readGoFiles(checkouts: Checkouts, source: PackageSource): GoSourceFile[] {
  const folder = path.join(checkouts[source.repository], source.folder);
  return readdirSync(folder).filter(isTypeSource).sort().map((name) => ({
    path: `${repositoryImportPaths[source.repository]}/${source.folder}/${name}`,
    text: readFileSync(path.join(folder, name), 'utf8'),
  }));
}

/** The package's generated.proto, or undefined when it has none. */
export function readGeneratedProto(checkouts: Checkouts, source: PackageSource): string | undefined {
  const file = path.join(checkouts[source.repository], source.folder, 'generated.proto');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/**
 * Extracts the package folders at `tag` from the bare git repositories into a new temporary
 * directory. The caller removes it with the returned `dispose`.
 */
export function extractCheckouts(gitDirectories: Record<Repository, string>, tag: string): { checkouts: Checkouts; dispose: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'kstore-generate-kinds-'));
  const dispose = (): void => rmSync(root, { recursive: true, force: true });
  try {
    const checkouts = Object.fromEntries(repositories.map((repository) => [repository, path.join(root, repository)])) as Checkouts;
    for (const repository of repositories) {
      const gitDirectory = gitDirectories[repository];
      const folders = packageSources.filter((source) => source.repository === repository).map((source) => source.folder);
      const archive = path.join(root, `${repository}.tar`);
      execFileSync('git', ['--git-dir', gitDirectory, 'archive', '--format=tar', '-o', archive, tag, '--', ...folders], { stdio: ['ignore', 'ignore', 'pipe'] });
      mkdirSync(checkouts[repository], { recursive: true });
      execFileSync('tar', ['-x', '-f', archive, '-C', checkouts[repository]]);
    }
    return { checkouts, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}
