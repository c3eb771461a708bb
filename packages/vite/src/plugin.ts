import { resolve } from 'node:path';
import { signSite } from '@siegel/core';
import { runBuildSigning, toSignSiteOptions } from '@siegel/core/integration';
import type { Plugin, ResolvedConfig } from 'vite';
import { PLUGIN_NAME, parseOptions, prefixLogger, type SiegelViteOptions } from './options.js';
import { chainVitePressBuildEnd, type VitePressSiteConfigLike } from './vitepress.js';

/** What a build hook sees of Vite 6+'s per-environment context (absent in older Vite). */
interface EnvironmentContext {
  environment?: { name: string; config: ResolvedConfig };
}

/** VitePress's site config, which VitePress puts on the Vite config it builds with. */
function vitePressOf(config: ResolvedConfig): VitePressSiteConfigLike | undefined {
  const site = (config as { vitepress?: VitePressSiteConfigLike }).vitepress;
  return site && typeof site.outDir === 'string' && typeof site.root === 'string' ? site : undefined;
}

/**
 * Vite plugin that signs every built HTML page's `<main>` with the author's Nostr key, once, after the
 * client build has written its output. Not in dev (`apply: 'build'`), not for SSR or other environments,
 * not after a failed build. In a VitePress build (`vite.plugins` in `.vitepress/config`), where the pages
 * are rendered only after Vite's builds, it signs in VitePress's `buildEnd` instead, after yours, with
 * `.env` from the project root (see `@siegel/vite/vitepress`).
 *
 * @example
 * // vite.config.js
 * import siegel from '@siegel/vite';
 * export default defineConfig({ plugins: [siegel({ site: 'https://example.com' })] });
 * @throws {SiegelError} `invalid_options` for unknown or malformed options; with `onError: 'fail'` (default)
 *   signing errors (`BUNKER_API_TOKEN nicht gesetzt`, `Key nicht gefunden`, `Key ist gesperrt`, …) fail the build.
 */
export function siegel(options?: SiegelViteOptions): Plugin {
  const settings = parseOptions(options);
  let resolved: ResolvedConfig | undefined;
  /** Per environment name: did this build write its bundle without an error? */
  const state = new Map<string, { written: boolean; failed: boolean }>();

  const environmentOf = (context: unknown): { name: string; config: ResolvedConfig } | undefined => {
    const environment = (context as EnvironmentContext).environment;
    if (environment) return environment;
    return resolved ? { name: resolved.build.ssr ? 'ssr' : 'client', config: resolved } : undefined;
  };

  return {
    name: PLUGIN_NAME,
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      resolved = config;
      const site = vitePressOf(config);
      if (site) chainVitePressBuildEnd(site, settings);
    },
    buildStart() {
      const environment = environmentOf(this);
      if (environment) state.set(environment.name, { written: false, failed: false });
    },
    buildEnd(error) {
      const environment = environmentOf(this);
      if (environment && error) state.set(environment.name, { written: false, failed: true });
    },
    renderError() {
      const environment = environmentOf(this);
      if (environment) state.set(environment.name, { written: false, failed: true });
    },
    writeBundle() {
      const environment = environmentOf(this);
      const current = environment && state.get(environment.name);
      if (current && !current.failed) current.written = true;
    },
    async closeBundle() {
      const environment = environmentOf(this);
      if (!environment) return;
      const current = state.get(environment.name);
      state.delete(environment.name);
      const { config } = environment;
      // VitePress has not rendered any page yet: its `buildEnd` signs them (see configResolved).
      if (vitePressOf(config)) return;
      const isClient = environment.name === 'client' && !config.build.ssr;
      if (!isClient || !current?.written || current.failed) return;
      const outDir = resolve(config.root, config.build.outDir);
      const logger = prefixLogger(config.logger);
      await runBuildSigning(
        () => signSite(outDir, toSignSiteOptions(settings, { root: config.root, logger })),
        { onError: settings.onError, logger },
      );
    },
  };
}
