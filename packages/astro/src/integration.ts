import { fileURLToPath } from 'node:url';
import { SiegelError, signSite } from '@siegel/core';
import {
  defineIntegrationOptions,
  INTEGRATION_DEFAULTS,
  runBuildSigning,
  toSignSiteOptions,
} from '@siegel/core/integration';
import type { AstroConfig, AstroIntegration } from 'astro';
import type { z } from 'zod';
import { findRewritersAfter, formatRewriterWarning } from './compressor-check.js';
import { withBase } from './site-url.js';
import { toAstroError } from './user-error.js';

/** The integration's name: its npm name, so `astro add` and the compressor check can find it. */
export const INTEGRATION_NAME = '@siegel/astro';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Astro: those every Siegel integration shares (`site` defaults to Astro's
 * `site`), as a strict schema (a typo never silently turns signing off), and their validation.
 */
export const { optionsSchema, parseOptions } = defineIntegrationOptions(INTEGRATION_NAME);

/** Options of `siegel()` for Astro (see {@link optionsSchema} for defaults). */
export type SiegelAstroOptions = z.input<typeof optionsSchema>;

/**
 * Astro integration that signs every built page's `<main>` with the author's Nostr key, in
 * `astro:build:done`. List it last in `integrations`.
 *
 * @example
 * // astro.config.mjs
 * import siegel from '@siegel/astro';
 * export default defineConfig({ site: 'https://example.com', integrations: [siegel()] });
 * @throws Astro's user error (`AstroUserError`, the CLI's message and a hint, no stack trace) for unknown
 *   or malformed options (at config time), a missing `site`, and, with `onError: 'fail'` (default), any
 *   signing error (`BUNKER_API_TOKEN nicht gesetzt`, `Key nicht gefunden`, `Key ist gesperrt`, …) so the
 *   build fails.
 */
export function siegel(options?: SiegelAstroOptions): AstroIntegration {
  let settings: ReturnType<typeof parseOptions>;
  try {
    settings = parseOptions(options);
  } catch (error) {
    throw toAstroError(error);
  }
  let config: AstroConfig | undefined;
  let buildOutput: 'static' | 'server' = 'static';
  let onDemandRoutes: string[] = [];

  return {
    name: INTEGRATION_NAME,
    hooks: {
      'astro:config:setup': ({ config: astroConfig, command }) => {
        if (command === 'build' && !settings.site && !astroConfig.site) {
          throw toAstroError(
            new SiegelError(
              'invalid_options',
              '@siegel/astro needs the site URL: set `site` in astro.config (e.g. site: `https://example.com`) ' +
                'or pass siegel({ site }). Every signed page names its absolute URL.',
            ),
          );
        }
      },
      'astro:config:done': ({ config: astroConfig, buildOutput: output, logger }) => {
        config = astroConfig;
        buildOutput = output;
        const rewriters = findRewritersAfter(astroConfig.integrations, INTEGRATION_NAME);
        if (rewriters.length > 0) logger.warn(formatRewriterWarning(rewriters, INTEGRATION_NAME));
      },
      'astro:routes:resolved': ({ routes }) => {
        onDemandRoutes = routes
          .filter((route) => route.type === 'page' && !route.isPrerendered && route.origin === 'project')
          .map((route) => route.pattern);
      },
      'astro:build:done': async ({ dir, logger }) => {
        if (!config)
          throw new SiegelError('invalid_options', '@siegel/astro: `astro:config:done` did not run');
        const root = fileURLToPath(config.root);
        const site = withBase(settings.site ?? config.site ?? '', config.base);
        await runBuildSigning(
          () => signSite(fileURLToPath(dir), { ...toSignSiteOptions(settings, { root, logger }), site }),
          { onError: settings.onError, logger },
        ).catch((error: unknown) => {
          throw toAstroError(error);
        });
        if (buildOutput === 'server' && onDemandRoutes.length > 0) {
          logger.warn(
            `${onDemandRoutes.length} on-demand page${onDemandRoutes.length === 1 ? '' : 's'} ` +
              `(${onDemandRoutes.map((route) => `\`${route}\``).join(', ')}) cannot be signed at build time: ` +
              'they are rendered per request. Add `export const prerender = true` to sign them.',
          );
        }
      },
    },
  };
}
