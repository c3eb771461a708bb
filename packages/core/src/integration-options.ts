import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { SiegelError } from './errors.js';
import type { SiegelLogger, SignSiteOptions } from './sign-site-options.js';
import { loadEnv } from './signer-config.js';

/**
 * Default values of the options every build integration (Astro, Vite, Eleventy) shares; `undefined` means
 * "taken from the host or from `.env`".
 */
export const INTEGRATION_DEFAULTS = {
  selector: 'main',
  dryRun: false,
  verbose: false,
  cacheFile: '.sign-cache.json',
  onError: 'fail',
} as const;

/**
 * The options every build integration shares, as a strict zod schema: every field is optional; unknown
 * fields are rejected so a typo never silently turns signing off. An integration adds its own fields with
 * `.extend({ … })` (which stays strict).
 *
 * @example
 * const optionsSchema = integrationOptionsSchema.extend({ enabled: z.boolean().optional() });
 */
export const integrationOptionsSchema = z.strictObject({
  /** Absolute site URL, e.g. `https://example.com`. Required for absolute page URLs (no default). */
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
  /**
   * Relay hints (`wss://` URLs) for the block's `nevent` link. Default: `SIEGEL_RELAYS` from `.env`
   * (comma-separated), else none. A change rewrites the blocks and re-signs nothing.
   */
  relays: z.array(z.url({ protocol: /^wss$/, error: 'must be a wss:// URL' })).optional(),
  /** Bunker base URL. Default: `BUNKER_URL` from `.env`, else `http://localhost:7777`. */
  bunkerUrl: z.url().optional(),
  /** Bunker API token. Default: `BUNKER_API_TOKEN` from `.env`. Prefer `.env`: configs get committed. */
  bunkerApiToken: z.string().optional(),
  /** Name of the bunker key. Default: `BUNKER_KEY_NAME` from `.env`, else `default`. */
  bunkerKeyName: z.string().min(1).optional(),
});

/** The options every build integration shares (see {@link integrationOptionsSchema} for defaults). */
export type IntegrationOptions = z.input<typeof integrationOptionsSchema>;

/**
 * Validate an integration's options against its schema (`undefined` counts as `{}`).
 *
 * @example
 * parseIntegrationOptions(integrationOptionsSchema, { dryrun: true }, '@siegel/vite');
 * // throws: @siegel/vite: unknown option `dryrun`
 * @throws {SiegelError} `invalid_options`, prefixed with `name` and naming each bad field in backticks.
 */
export function parseIntegrationOptions<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  name: string,
): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys')
      return `unknown option ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
    return `option \`${issue.path.join('.')}\`: ${issue.message}`;
  });
  throw new SiegelError('invalid_options', `${name}: ${problems.join('; ')}`);
}

/** What {@link toSignSiteOptions} takes from the host besides the options. */
export interface IntegrationContext {
  /** The project root: `cacheFile` is relative to it, `.env` is read from it. */
  root: string;
  /** The host's logger; its methods are called as methods, so a class instance (Astro's) works. */
  logger: Required<SiegelLogger>;
}

/**
 * The `signSite` options for an integration's options: defaults applied, `cacheFile` resolved against the
 * project root, `.env` of the root loaded as `env`, messages through the host's logger.
 *
 * @example
 * await signSite(outDir, toSignSiteOptions(settings, { root: config.root, logger: config.logger }));
 */
export function toSignSiteOptions(options: IntegrationOptions, context: IntegrationContext): SignSiteOptions {
  const { root, logger } = context;
  const cacheFile = options.cacheFile ?? INTEGRATION_DEFAULTS.cacheFile;
  return {
    site: options.site,
    selector: options.selector ?? INTEGRATION_DEFAULTS.selector,
    dryRun: options.dryRun ?? INTEGRATION_DEFAULTS.dryRun,
    verbose: options.verbose ?? INTEGRATION_DEFAULTS.verbose,
    cacheFile: isAbsolute(cacheFile) ? cacheFile : resolve(root, cacheFile),
    env: loadEnv(root),
    bunkerUrl: options.bunkerUrl,
    bunkerApiToken: options.bunkerApiToken,
    bunkerKeyName: options.bunkerKeyName,
    ...(options.relays ? { relays: options.relays } : {}),
    logger: {
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (message) => logger.error(message),
    },
  };
}
