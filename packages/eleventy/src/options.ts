import { INTEGRATION_DEFAULTS, integrationOptionsSchema, parseIntegrationOptions } from '@siegel/core';
import { z } from 'zod';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Eleventy: those every Siegel integration shares, plus `enabled`. Every field is
 * optional; unknown fields are rejected so a typo never silently turns signing off.
 */
export const optionsSchema = integrationOptionsSchema.extend({
  /**
   * `true`: sign in every run, also `--serve`/`--watch`. `false`: never sign. Default: sign in build runs
   * only (`runMode === 'build'`), so a dev server does not ask the bunker on every save.
   */
  enabled: z.boolean().optional(),
});

/** Options of `siegel()` for Eleventy (see {@link optionsSchema} for defaults). */
export type SiegelEleventyOptions = z.input<typeof optionsSchema>;

/**
 * Validate user options.
 *
 * @throws {SiegelError} `invalid_options`, naming each bad field in backticks.
 */
export function parseOptions(input: unknown): SiegelEleventyOptions {
  return parseIntegrationOptions(optionsSchema, input, '@siegel/eleventy');
}
