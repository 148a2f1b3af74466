// Lint rules, including the import rules of the architecture:
//  1. Pure folders (raft/stdx, raft/core, actors except actors/controllers) import no I/O
//     module and use no clock, randomness, timers or process.
//  2. A folder imports another folder only through that folder's index.ts.
//  3. Dependencies point downward (the import matrix: allowedImports below).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import path from 'node:path';

const root = path.dirname(new URL(import.meta.url).pathname);

/** The "module folder" a file belongs to: raft/<sub>, actors, api, deploy, test. */
function moduleFolder(file) {
  const relative = path.relative(root, file).split(path.sep);
  if (relative[0] === 'raft' && relative.length > 2) return `raft/${relative[1]}`;
  if (relative[0] === 'actors' && relative[1] === 'controllers' && relative.length > 2) return 'actors/controllers';
  return relative[0];
}

/** Which module folders each folder may import (besides itself). */
const allowedImports = {
  'raft/stdx': [],
  'raft/core': ['raft/stdx'],
  'raft/storage': ['raft/stdx', 'raft/core'],
  'raft/transport': ['raft/stdx', 'raft/core'],
  'raft/node': ['raft/stdx', 'raft/core', 'raft/storage', 'raft/transport'],
  raft: ['raft/stdx', 'raft/core', 'raft/storage', 'raft/transport', 'raft/node'],
  actors: ['raft/stdx', 'raft'],
  'actors/controllers': ['raft/stdx', 'raft', 'actors'],
  api: ['raft/stdx', 'actors'],
  deploy: null, // may import anything
  test: null,
};

const importBoundaries = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = context.filename;
    const from = moduleFolder(file);
    const check = (node) => {
        if (!node.source) return;
        const source = node.source.value;
        if (typeof source !== 'string' || !source.startsWith('.')) return;
        const target = path.resolve(path.dirname(file), source);
        const to = moduleFolder(target);
        if (to === from) return;
        if (from === 'actors/controllers' && to === 'actors') return; // a controller is part of actors
        if (from === 'actors' && to === 'actors/controllers') {
          context.report({ node, message: 'actors/ must not import its impure controllers' });
          return;
        }
        const allowed = allowedImports[from];
        if (allowed !== null && allowed !== undefined && !allowed.includes(to)) {
          context.report({ node, message: `${from} may not import ${to} (allowedImports in eslint.config.js)` });
          return;
        }
        const indexFile = path.join(root, to, 'index.ts');
        if (from !== 'test' && target !== indexFile && to !== 'raft') {
          context.report({ node, message: `import ${to} only through ${path.relative(root, indexFile)}` });
        }
        if (from !== 'test' && to === 'raft' && target !== path.join(root, 'raft', 'index.ts')) {
          context.report({ node, message: 'import raft only through raft/index.ts' });
        }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

const ioModules = ['node:*', 'fs', 'fs/*', 'net', 'http', 'https', 'child_process', 'os', 'path', 'crypto',
  'fastify', 'fastify-*', '@fastify/*', '@nats-io/*', 'lmdb', 'pino'];
const impureGlobals = [
  { name: 'Date', message: 'pure modules get time from commands or ticks' },
  { name: 'setTimeout', message: 'pure modules have no timers' },
  { name: 'setInterval', message: 'pure modules have no timers' },
  { name: 'setImmediate', message: 'pure modules have no timers' },
  { name: 'process', message: 'pure modules do not touch the process' },
  { name: 'performance', message: 'pure modules have no clock' },
  { name: 'crypto', message: 'pure modules have no randomness' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.kstore/**', 'coverage/**', 'test-results/**', 'api/console/dist/**', 'deploy/.bundle/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', queueMicrotask: 'readonly' } },
    plugins: { kstore: { rules: { 'import-boundaries': importBoundaries } } },
    rules: {
      'kstore/import-boundaries': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['raft/stdx/**/*.ts', 'raft/core/**/*.ts', 'actors/**/*.ts'],
    ignores: ['actors/controllers/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ioModules, message: 'pure modules import no I/O' }] }],
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'pure modules use an injected seeded rng' }],
    },
  },
);
