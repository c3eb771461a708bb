// Build the unpacked extension into dist/unpacked/: the background worker, the content script, the popup
// and the options page bundled by esbuild (one classic script each, @siegel/core's built code inside: no
// remote code, nothing loaded at run time), the static files, and one icon per state (a filled circle in the
// state's colour, written as PNG here so no image is kept in git). Run after `tsc --build` (core's dist).
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/unpacked`;
await rm(out, { recursive: true, force: true });
await mkdir(`${out}/icons`, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    background: 'src/background/background.ts',
    content: 'src/content/content.ts',
    popup: 'src/popup/popup.ts',
    options: 'src/options/options.ts',
  },
  outdir: out,
  bundle: true,
  // Readable for store review: not minified.
  minify: false,
  format: 'iife',
  platform: 'browser',
  target: ['chrome125', 'firefox128'],
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
await cp(`${root}static`, out, { recursive: true });

/** The states' colours (src/common/states.ts). */
const COLOURS = {
  valid: '#1a7f37',
  invalid: '#cf222e',
  changed: '#bc4c00',
  new_signer: '#9a6700',
  unverified: '#57606a',
  checking: '#8c959f',
};

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `size`×`size` RGBA PNG: a disc of `colour` on transparent, with a white ring. */
function disc(size, colour) {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(colour.slice(at, at + 2), 16));
  const rows = [];
  const centre = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x - centre, y - centre) / (size / 2);
      const pixel =
        distance <= 0.78 ? [r, g, b, 255] : distance <= 0.95 ? [255, 255, 255, 255] : [0, 0, 0, 0];
      row.set(pixel, 1 + x * 4);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
for (const [state, colour] of Object.entries(COLOURS))
  for (const size of [16, 32, 48, 128])
    await writeFile(`${out}/icons/${state}-${size}.png`, disc(size, colour));

const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`@siegel/extension: dist/unpacked (${(bytes / 1024).toFixed(1)} KiB of scripts)`);
