import { SiegelError } from '@siegel/core';
import { z } from 'zod';

/** Default values of every option; `undefined` means "taken from the host or from `.env`". */
export const DEFAULTS = {
  selector: 'main',
  dryRun: false,
  verbose: false,
  cacheFile: '.sign-cache.json',
  onError: 'fail',
} as const;

/**
 * Options of `siegel()` for Astro. Every field is optional; unknown fields are rejected so a typo never
 * silently turns signing off.
 */
export const optionsSchema = z.strictObject({
  /** Absolute site URL, e.g. `https://example.com`. Default: Astro's `site`. */
  site: z.url().optional(),
  /** CSS selector of the signed element. Default: `main`. */
  selector: z.string().min(1).optional(),
  /** Report what would be signed, write nothing. Default: `false`. */
  dryRun: z.boolean().optional(),
  /** List every page with its outcome. Default: `false`. */
  verbose: z.boolean().optional(),
  /** Signing cache, relative to the project root. Default: `.sign-cache.json`. */
  cacheFile: z.string().min(1).optional(),
  /** `fail`: a signing error fails the build. `warn`: the build finishes unsigned with a warning. Default: `fail`. */
  onError: z.enum(['fail', 'warn']).optional(),
  /** Bunker base URL. Default: `BUNKER_URL` from `.env`, else `http://localhost:7777`. */
  bunkerUrl: z.url().optional(),
  /** Bunker API token. Default: `BUNKER_API_TOKEN` from `.env`. Prefer `.env`: configs get committed. */
  bunkerApiToken: z.string().optional(),
  /** Name of the bunker key. Default: `BUNKER_KEY_NAME` from `.env`, else `default`. */
  bunkerKeyName: z.string().min(1).optional(),
});

/** Options of `siegel()` for Astro (see {@link optionsSchema} for defaults). */
export type SiegelAstroOptions = z.input<typeof optionsSchema>;

/**
 * Validate user options.
 *
 * @throws {SiegelError} `invalid_options`, naming each bad field in backticks.
 */
export function parseOptions(input: unknown): SiegelAstroOptions {
  const result = optionsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown option ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
    return `option \`${issue.path.join('.')}\`: ${issue.message}`;
  });
  throw new SiegelError('invalid_options', `@siegel/astro: ${problems.join('; ')}`);
}
