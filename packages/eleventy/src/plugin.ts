import { relative, resolve } from 'node:path';
import { signSite } from '@siegel/core';
import {
  defineIntegrationOptions,
  INTEGRATION_DEFAULTS,
  runBuildSigning,
  toSignSiteOptions,
} from '@siegel/core/integration';
import { z } from 'zod';

/** The plugin's name, used for its transform. */
export const PLUGIN_NAME = '@siegel/eleventy';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Eleventy: those every Siegel integration shares, plus `enabled`, as a strict
 * schema (a typo never silently turns signing off), and their validation.
 */
export const { optionsSchema, parseOptions } = defineIntegrationOptions(PLUGIN_NAME, {
  /**
   * `true`: sign in every run, also `--serve`/`--watch`. `false`: never sign. Default: sign in build runs
   * only (`runMode === 'build'`), so a dev server does not ask the bunker on every save.
   */
  enabled: z.boolean().optional(),
});

/** Options of `siegel()` for Eleventy (see {@link optionsSchema} for defaults). */
export type SiegelEleventyOptions = z.input<typeof optionsSchema>;

/** The part of Eleventy's `eleventyConfig` this plugin uses. */
export interface EleventyConfigLike {
  addTransform(
    name: string,
    callback: (this: { page: { outputPath: string | false } }, content: unknown) => unknown,
  ): void;
  on(event: string, callback: (args: EleventyEventArgs) => unknown): void;
  /** Eleventy's console logger (Eleventy 3 sets it on the config). */
  logger?: {
    logWithOptions?(options: {
      message: string;
      type?: LogType;
      color?: string;
      prefix?: string;
      force?: boolean;
    }): void;
  };
}

/** Arguments of Eleventy's `eleventy.before` / `eleventy.after` events. */
export interface EleventyEventArgs {
  directories: { output: string };
  runMode: 'build' | 'serve' | 'watch';
  outputMode: 'fs' | 'json' | 'ndjson';
}

type LogType = 'log' | 'warn' | 'error';

/** Log through Eleventy's own logger when it has one (its prefix and colours), else the console. */
function createLog(eleventyConfig: EleventyConfigLike) {
  const write = (message: string, type: LogType) => {
    const logger = eleventyConfig.logger;
    if (logger?.logWithOptions) {
      const color = type === 'warn' ? 'yellow' : type === 'error' ? 'red' : undefined;
      logger.logWithOptions({ message, type, color, prefix: `[${PLUGIN_NAME}]`, force: true });
    } else {
      console[type](`[${PLUGIN_NAME}] ${message}`);
    }
  };
  return {
    info: (message: string) => write(message, 'log'),
    warn: (message: string) => write(message, 'warn'),
    error: (message: string) => write(message, 'error'),
  };
}

/**
 * Eleventy plugin: a transform notes each HTML output Eleventy writes; `eleventy.after` signs exactly those
 * files with core's `signSite` (so they share few bunker requests) and writes the signed pages, the cache,
 * the verify pages and the summary. Pages are signed as written, after every transform.
 *
 * @example
 * // eleventy.config.js
 * import siegel from '@siegel/eleventy';
 * export default (eleventyConfig) => { eleventyConfig.addPlugin(siegel, { site: 'https://example.com' }); };
 * @throws {SiegelError} `invalid_options` for unknown or malformed options; with `onError: 'fail'` (default)
 *   signing errors (`BUNKER_API_TOKEN nicht gesetzt`, `Key nicht gefunden`, `Key ist gesperrt`, …) fail the build.
 */
export function siegel(eleventyConfig: EleventyConfigLike, options?: SiegelEleventyOptions): void {
  const settings = parseOptions(options);
  const log = createLog(eleventyConfig);
  let run: { outDir: string; pages: Set<string> } | undefined;

  eleventyConfig.on('eleventy.before', ({ directories, runMode, outputMode }) => {
    run = undefined;
    const enabled = settings.enabled ?? runMode === 'build';
    if (!enabled || outputMode !== 'fs') return;
    run = { outDir: resolve(process.cwd(), directories.output), pages: new Set() };
  });

  // The transform only notes each HTML output Eleventy is about to write. Pages of one paginated
  // template are rendered one after another (Eleventy awaits each page's transforms before rendering the
  // next), so awaiting a signature here would cost one bunker request per page. Signing them all in
  // `eleventy.after` lets `signSite` put them into few batches, and reading back what Eleventy wrote keeps
  // the work of transforms registered after this plugin (a minifier, say).
  eleventyConfig.addTransform(PLUGIN_NAME, function (content) {
    const outputPath = this.page.outputPath;
    if (!run || typeof outputPath !== 'string' || !outputPath.endsWith('.html')) return content;
    run.pages.add(resolve(outputPath));
    return content;
  });

  eleventyConfig.on('eleventy.after', async () => {
    if (!run) return;
    const { outDir, pages } = run;
    run = undefined;
    const root = process.cwd();
    // Only this build's pages (an incremental build writes a few): the cache keeps the others' entries.
    const files = [...pages].map((file) => relative(outDir, file));
    await runBuildSigning(
      () => signSite(outDir, { ...toSignSiteOptions(settings, { root, logger: log }), files }),
      { onError: settings.onError, logger: log },
    );
  });
}
