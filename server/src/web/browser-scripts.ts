import { readFileSync } from 'node:fs';

/** A page script: `src/web/browser/{name}.ts`, bundled by `npm run build:assets` into `dist/assets/{name}.js`. */
export type BrowserScriptName = 'sign' | 'verify';

/**
 * The bundled source of a page script, read from the package's `dist/assets/` (from `dist/web/` and from
 * `src/web/` alike, `../../dist` is that folder). Read once when the routes are built, so a missing bundle
 * stops the service at start instead of failing its pages.
 *
 * @example
 * ```ts
 * const source = readBrowserScript('sign'); // served at /assets/sign.js
 * ```
 * @throws {Error} when the bundle is missing (the server's assets were not built: run `npm run build`).
 */
export function readBrowserScript(name: BrowserScriptName): string {
  const url = new URL(`../../dist/assets/${name}.js`, import.meta.url);
  try {
    return readFileSync(url, 'utf8');
  } catch (cause) {
    throw new Error(
      `The browser script \`${url.pathname}\` is missing; build the server's assets first (\`npm run build\`, or \`npm run build:assets -w @siegel/server\`).`,
      { cause },
    );
  }
}
