// Bundle the browser scripts into dist/, each one classic, minified script. Run after `tsc --build`:
// - siegel-verify.js (src/verify/script/main.ts): the verify pages' check, with parse5 and the Schnorr
//   verifier inside;
// - siegel-mark.js (src/verify/mark/siegel-mark.ts): the reader's mark, `<siegel-mark>` (docs/mark.md), a few
//   KB with no dependency but core's npub encoder.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
await mkdir(`${root}dist`, { recursive: true });

/** Bundle `entry` into `dist/{name}` and print its size. */
async function bundle(entry, name) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: `dist/${name}`,
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
  console.log(`${name}: ${(bytes / 1024).toFixed(1)} KiB`);
}

await bundle('src/verify/script/main.ts', 'siegel-verify.js');
await bundle('src/verify/mark/siegel-mark.ts', 'siegel-mark.js');
