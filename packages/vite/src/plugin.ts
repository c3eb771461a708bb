import { resolve } from 'node:path';
import { signSite } from '@siegel/core';
import {
  defineIntegrationOptions,
  INTEGRATION_DEFAULTS,
  runBuildSigning,
  toSignSiteOptions,
} from '@siegel/core/integration';
import type { Plugin, ResolvedConfig } from 'vite';
import type { z } from 'zod';

/** The plugin's name: its npm name. */
export const PLUGIN_NAME = '@siegel/vite';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Vite: those every Siegel integration shares, as a strict schema (a typo never
 * silently turns signing off), and their validation.
 */
export const { optionsSchema, parseOptions } = defineIntegrationOptions(PLUGIN_NAME);

/** Options of `siegel()` for Vite (see {@link optionsSchema} for defaults). */
export type SiegelViteOptions = z.input<typeof optionsSchema>;

/** What a build hook sees of Vite 6+'s per-environment context (absent in older Vite). */
interface EnvironmentContext {
  environment?: { name: string; config: ResolvedConfig };
}

/**
 * Vite plugin that signs every built HTML page's `<main>` with the author's Nostr key, once, after the
 * client build has written its output. Not in dev (`apply: 'build'`), not for SSR or other environments,
 * not after a failed build.
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

/** Vite's logger, each message prefixed with the plugin's name. */
function prefixLogger(logger: ResolvedConfig['logger']) {
  const prefix = `[${PLUGIN_NAME}] `;
  return {
    info: (message: string) => logger.info(prefix + message),
    warn: (message: string) => logger.warn(prefix + message),
    error: (message: string) => logger.error(prefix + message),
  };
}
