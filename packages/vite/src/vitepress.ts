// VitePress runs two Vite builds (client, then server) and only then renders the HTML pages, outside any
// Vite hook; its last step is the site config's `buildEnd`. So a Vite plugin's `closeBundle` sees no page
// at all in a VitePress build: signing has to happen in `buildEnd`. This module does that, both for the
// plugin (which finds VitePress's site config on the resolved Vite config, as `config.vitepress`) and for
// users who prefer to write `buildEnd: siegelBuildEnd()` themselves.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { signSite } from '@siegel/core';
import { runBuildSigning, toSignSiteOptions } from '@siegel/core/integration';
import { parseOptions, prefixLogger, type SiegelViteOptions } from './options.js';

/** The part of VitePress's `SiteConfig` (1.x) Siegel uses. */
export interface VitePressSiteConfigLike {
  /** The VitePress root (the folder given to `vitepress build`, such as `docs/`), absolute. */
  root: string;
  /** Where VitePress wrote the rendered site, absolute (after `--outDir`). */
  outDir: string;
  /** VitePress's logger (a Vite logger). */
  logger: {
    info(message: string): void;
    warn(message: string): void;
    error(message: string): void;
  };
  /** The user's `buildEnd` from `.vitepress/config`, called once the pages are rendered. */
  // biome-ignore lint/suspicious/noExplicitAny: VitePress passes its own SiteConfig type here.
  buildEnd?: (siteConfig: any) => unknown;
}

/**
 * Set on a site config once a signing run for it has started (a global symbol, so that it holds across
 * copies of this module): the plugin and `siegelBuildEnd` together sign a site once, not twice.
 */
const SIGNED = Symbol.for('@siegel/vite:vitepress-signed');
/** Set on a site config once the plugin has chained its signing onto `buildEnd` (configResolved runs twice). */
const CHAINED = Symbol.for('@siegel/vite:vitepress-chained');

type Marked = VitePressSiteConfigLike & { [SIGNED]?: true; [CHAINED]?: true };

/**
 * The project root of a VitePress site: the nearest folder at or above its VitePress root (`docs/`) that
 * holds a `package.json` — where `npm run build` runs and `.env` and `.sign-cache.json` live; the current
 * directory when there is none.
 *
 * @example
 * findProjectRoot('/site/docs'); // '/site' when /site/package.json exists
 * @throws nothing.
 */
export function findProjectRoot(vitepressRoot: string): string {
  for (let dir = resolve(vitepressRoot); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

/**
 * Sign a rendered VitePress site (its `outDir`) once: `.env` and the cache from the project root (see
 * {@link findProjectRoot}), messages through VitePress's logger, `onError` applied. A second call for the
 * same site config does nothing.
 *
 * @throws {SiegelError} with `onError: 'fail'` (default), signing errors (`BUNKER_API_TOKEN nicht gesetzt`, …).
 */
export async function signVitePressSite(
  siteConfig: VitePressSiteConfigLike,
  settings: ReturnType<typeof parseOptions>,
): Promise<void> {
  const site = siteConfig as Marked;
  if (site[SIGNED]) return;
  site[SIGNED] = true;
  const root = findProjectRoot(siteConfig.root);
  const logger = prefixLogger(siteConfig.logger);
  await runBuildSigning(() => signSite(siteConfig.outDir, toSignSiteOptions(settings, { root, logger })), {
    onError: settings.onError,
    logger,
  });
}

/**
 * Chain signing onto a VitePress site config's `buildEnd`: the user's own `buildEnd` runs first, then the
 * rendered pages are signed. Called by the plugin from `configResolved`; chains once per site config.
 *
 * @throws nothing itself; the chained `buildEnd` throws as {@link signVitePressSite} does.
 */
export function chainVitePressBuildEnd(
  siteConfig: VitePressSiteConfigLike,
  settings: ReturnType<typeof parseOptions>,
): void {
  const site = siteConfig as Marked;
  if (site[CHAINED]) return;
  site[CHAINED] = true;
  const own = siteConfig.buildEnd;
  siteConfig.buildEnd = async (config: VitePressSiteConfigLike) => {
    await own?.(config);
    await signVitePressSite(config, settings);
  };
}

/**
 * A VitePress `buildEnd` that signs every rendered page's `<main>`, for `.vitepress/config.mts`. The
 * same as adding `siegel()` to `vite.plugins` (which finds VitePress and does this itself); use one of
 * the two. With both, the site is signed once, by whichever runs first (this one, as the plugin calls
 * your `buildEnd` before signing). To run your own steps too, call it from your `buildEnd`.
 *
 * @example
 * // docs/.vitepress/config.mts
 * import { siegelBuildEnd } from '@siegel/vite/vitepress';
 * export default defineConfig({ buildEnd: siegelBuildEnd({ site: 'https://example.com' }) });
 * @throws {SiegelError} `invalid_options` at once for unknown or malformed options; in the build, with
 *   `onError: 'fail'` (default), signing errors (`BUNKER_API_TOKEN nicht gesetzt`, `Key nicht gefunden`,
 *   `Key ist gesperrt`, …) fail `vitepress build`.
 */
export function siegelBuildEnd(
  options?: SiegelViteOptions,
): (siteConfig: VitePressSiteConfigLike) => Promise<void> {
  const settings = parseOptions(options);
  return (siteConfig) => signVitePressSite(siteConfig, settings);
}
