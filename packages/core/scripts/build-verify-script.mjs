// Bundle the browser scripts: the verify script (src/verify/script/main.ts) into dist/siegel-verify.js,
// one classic, minified script with parse5 and the Schnorr verifier inside. Run after `tsc --build`.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
await mkdir(`${root}dist`, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/verify/script/main.ts'],
  outfile: 'dist/siegel-verify.js',
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020'],
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`siegel-verify.js: ${(bytes / 1024).toFixed(1)} KiB`);

// The reader's mark (src/verify/mark/siegel-mark.ts) into dist/siegel-mark.js: a few KB, no dependency
// but core's npub encoder.
const mark = await build({
  absWorkingDir: root,
  entryPoints: ['src/verify/mark/siegel-mark.ts'],
  outfile: 'dist/siegel-mark.js',
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022'],
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
const markBytes = Object.values(mark.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`siegel-mark.js: ${(markBytes / 1024).toFixed(1)} KiB`);
