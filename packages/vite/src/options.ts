import { defineIntegrationOptions, INTEGRATION_DEFAULTS } from '@siegel/core/integration';
import type { z } from 'zod';

/** The plugin's name: its npm name. */
export const PLUGIN_NAME = '@siegel/vite';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = INTEGRATION_DEFAULTS;

/**
 * Options of `siegel()` for Vite (and of `siegelBuildEnd()` for VitePress): those every Siegel integration
 * shares, as a strict schema (a typo never silently turns signing off), and their validation.
 */
export const { optionsSchema, parseOptions } = defineIntegrationOptions(PLUGIN_NAME);

/** Options of `siegel()` for Vite (see {@link optionsSchema} for defaults). */
export type SiegelViteOptions = z.input<typeof optionsSchema>;

/** A host's logger (Vite's, VitePress's), each message prefixed with the plugin's name. */
export function prefixLogger(logger: {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}) {
  const prefix = `[${PLUGIN_NAME}] `;
  return {
    info: (message: string) => logger.info(prefix + message),
    warn: (message: string) => logger.warn(prefix + message),
    error: (message: string) => logger.error(prefix + message),
  };
}
