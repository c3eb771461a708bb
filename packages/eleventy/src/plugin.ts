import { relative, resolve } from 'node:path';
import { signSite } from '@siegel/core';
import {
  defineIntegrationOptions,
  INTEGRATION_DEFAULTS,
  runBuildSigning,
  toSignSiteOptions,
} from '@siegel/core/integration';
import { z } from 'zod';
import { checkEleventyVersion, type VersionCheckable } from './version-check.js';

/** The plugin's name: its npm name, the prefix of its messages. */
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
export interface EleventyConfigLike extends VersionCheckable {
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

/** One output Eleventy wrote in this run, as listed in `eleventy.after`'s `results`. */
export interface EleventyResult {
  /** Where it was written, relative to the working directory (or absolute); `false` when not written. */
  outputPath: string | false;
  inputPath?: string;
  url?: string | false;
}

/** Arguments of Eleventy's `eleventy.after` event (Eleventy 3). */
export interface EleventyEventArgs {
  directories: { output: string };
  runMode: 'build' | 'serve' | 'watch';
  outputMode: 'fs' | 'json' | 'ndjson';
  /** Every template output this run wrote (not passthrough copies, not `permalink: false`). */
  results?: EleventyResult[];
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
 * Eleventy plugin: in `eleventy.after`, signs exactly the HTML pages this run wrote — Eleventy's own list
 * of them, the event's `results` — with core's `signSite` (so they share few bunker requests), and writes
 * the signed pages, the cache, the verify pages and the summary. Pages are signed as written, after every
 * transform. Checks the Eleventy version when added (`eleventyConfig.versionCheck`).
 *
 * @example
 * // eleventy.config.js
 * import siegel from '@siegel/eleventy';
 * export default (eleventyConfig) => { eleventyConfig.addPlugin(siegel, { site: 'https://example.com' }); };
 * @throws {SiegelError} `invalid_options` for unknown or malformed options, or an Eleventy older than
 *   {@link ELEVENTY_VERSION_RANGE}; with `onError: 'fail'` (default) signing errors
 *   (`BUNKER_API_TOKEN nicht gesetzt`, `Key nicht gefunden`, `Key ist gesperrt`, …) fail the build.
 */
export function siegel(eleventyConfig: EleventyConfigLike, options?: SiegelEleventyOptions): void {
  const settings = parseOptions(options);
  checkEleventyVersion(eleventyConfig, PLUGIN_NAME);
  const log = createLog(eleventyConfig);

  // Why `results` and not the output directory: the directory also holds what this run did not write
  // (passthrough copies, files left by earlier builds or other tools), which are not this build's pages;
  // and an incremental build writes a few pages only. Why not a transform noting each page: a transform
  // also runs for pages that are then not written (`--dryrun`). The pages are read back from disk, as
  // written: transforms registered after this plugin (a minifier, say) are kept.
  eleventyConfig.on('eleventy.after', async ({ directories, runMode, outputMode, results }) => {
    const enabled = settings.enabled ?? runMode === 'build';
    if (!enabled || outputMode !== 'fs') return;
    const root = process.cwd();
    const outDir = resolve(root, directories.output);
    const files = new Set<string>();
    for (const { outputPath } of results ?? []) {
      if (typeof outputPath === 'string' && outputPath.endsWith('.html'))
        files.add(relative(outDir, resolve(root, outputPath)));
    }
    // Only this build's pages: the cache keeps the others' entries.
    await runBuildSigning(
      () => signSite(outDir, { ...toSignSiteOptions(settings, { root, logger: log }), files: [...files] }),
      { onError: settings.onError, logger: log },
    );
  });
}
