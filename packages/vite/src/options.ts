import { INTEGRATION_DEFAULTS, integrationOptionsSchema, parseIntegrationOptions } from '@siegel/core';
import type { z } from 'zod';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Vite: those every Siegel integration shares. Every field is optional; unknown
 * fields are rejected so a typo never silently turns signing off.
 */
export const optionsSchema = integrationOptionsSchema;

/** Options of `siegel()` for Vite (see {@link optionsSchema} for defaults). */
export type SiegelViteOptions = z.input<typeof optionsSchema>;

/**
 * Validate user options.
 *
 * @throws {SiegelError} `invalid_options`, naming each bad field in backticks.
 */
export function parseOptions(input: unknown): SiegelViteOptions {
  return parseIntegrationOptions(optionsSchema, input, '@siegel/vite');
}
