// Bundle the web pages' scripts (src/web/browser/{sign,verify}.ts) into dist/assets/: one classic script
// per page, served by the page routes at /assets/{name}.js (src/web/browser-scripts.ts). esbuild only strips
// types: `npm run build:assets` type-checks them first (`tsc -p src/web/browser`, the DOM without Node's
// types). Run after `tsc --build`: the sign page bundles `@siegel/client` from its dist/ (tree-shaken).
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

await mkdir(`${root}dist/assets`, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { sign: 'src/web/browser/sign.ts', verify: 'src/web/browser/verify.ts' },
  outdir: 'dist/assets',
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020'],
  charset: 'utf8',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
for (const [file, output] of Object.entries(result.metafile.outputs))
  console.log(`${file}: ${(output.bytes / 1024).toFixed(1)} KiB`);
