import { INTEGRATION_DEFAULTS, integrationOptionsSchema, parseIntegrationOptions } from '@siegel/core';
import { z } from 'zod';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Astro: those every Siegel integration shares. Every field is optional; unknown
 * fields are rejected so a typo never silently turns signing off.
 */
export const optionsSchema = integrationOptionsSchema.extend({
  /** Absolute site URL, e.g. `https://example.com`. Default: Astro's `site`. */
  site: z.url().optional(),
});

/** Options of `siegel()` for Astro (see {@link optionsSchema} for defaults). */
export type SiegelAstroOptions = z.input<typeof optionsSchema>;

/**
 * Validate user options.
 *
 * @throws {SiegelError} `invalid_options`, naming each bad field in backticks.
 */
export function parseOptions(input: unknown): SiegelAstroOptions {
  return parseIntegrationOptions(optionsSchema, input, '@siegel/astro');
}
