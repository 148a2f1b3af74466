// Owns: the console's build (Vite): sources in web/, output in dist/ (not committed; built by
// `npm run build:console`, which `npm ci` runs through the prepare script), served by the API
// tier at /console/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
});
