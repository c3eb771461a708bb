// Package the unpacked build (dist/unpacked/, written by build.mjs) as the zip the Chrome Web Store and
// addons.mozilla.org take: dist/siegel-extension-<version>.zip, by web-ext's own `build` (its file filter:
// no dotfiles, no source maps left out by accident, the manifest at the zip's root). web-ext is the root
// devDependency; nothing is downloaded. `npm run build -w @siegel/extension` runs it after build.mjs.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import webExt from 'web-ext';

const root = fileURLToPath(new URL('..', import.meta.url));
const sourceDir = `${root}dist/unpacked`;
const { version } = JSON.parse(await readFile(`${sourceDir}/manifest.json`, 'utf8'));
const filename = `siegel-extension-${version}.zip`;
const result = await webExt.cmd.build(
  { sourceDir, artifactsDir: `${root}dist`, overwriteDest: true, filename },
  { showReadyMessage: false },
);
console.log(`@siegel/extension: dist/${filename} (${result.extensionPath})`);
