// integration/ owns what the build integrations (Astro, Vite, Eleventy) share, so that each of them stays a
// thin adapter: their options schema, derived from the one of `signSite` (options/), with the defaults
// they document; the translation of their options into `signSite` options; and what a build does with a
// signing error (`onError`). Published as `@siegel/core/integration`.
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { SiegelError } from '../errors.js';
import { loadEnv } from '../options/env.js';
import {
  DEFAULTS,
  must,
  type SiegelLogger,
  type SignSiteOptions,
  signSiteOptionsSchema,
} from '../options/options.js';
import type { SignSummary } from '../pipeline/summary.js';

/**
 * The defaults of the options every build integration shares (from the one table, `DEFAULTS`); an option
 * not listed here is taken from the host or from `.env`.
 */
export const INTEGRATION_DEFAULTS = {
  selector: DEFAULTS.selector,
  dryRun: DEFAULTS.dryRun,
  verbose: DEFAULTS.verbose,
  cacheFile: DEFAULTS.cacheFile,
  onError: DEFAULTS.onError,
} as const;

/**
 * The options every build integration shares, as a strict zod schema: the fields of `signSite`'s schema
 * that make sense in a build config, plus `onError`. Every field is optional; unknown fields are rejected so
 * a typo never silently turns signing off. An integration adds its own fields with `.extend({ … })` (which
 * stays strict), or with {@link defineIntegrationOptions}.
 *
 * @example
 * const optionsSchema = integrationOptionsSchema.extend({ enabled: z.boolean().optional() });
 */
export const integrationOptionsSchema = signSiteOptionsSchema
  .pick({
    site: true,
    mirrors: true,
    selector: true,
    dryRun: true,
    verbose: true,
    cacheFile: true,
    relays: true,
    publishTimeoutMs: true,
    bunkerUrl: true,
    bunkerApiToken: true,
    bunkerKeyName: true,
    signer: true,
    siteId: true,
    rootSite: true,
    siteTitle: true,
    siteDescription: true,
    blossom: true,
    mark: true,
  })
  .extend({
    /** `fail`: a signing error fails the build. `warn`: the build finishes unsigned with a warning. Default: `fail`. */
    onError: z.enum(['fail', 'warn'], must("'fail' or 'warn'")).optional(),
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
      return `unknown option ${issue.keys.map((k) => `\`${[...issue.path, k].join('.')}\``).join(', ')}`;
    return `option \`${issue.path.join('.')}\`: ${issue.message}`;
  });
  throw new SiegelError('invalid_options', `${name}: ${problems.join('; ')}`);
}

/**
 * An integration's options, derived from {@link integrationOptionsSchema}: its schema (the shared fields
 * plus `extra`, still strict) and a `parseOptions` that names the integration in every error.
 *
 * @example
 * export const { optionsSchema, parseOptions } = defineIntegrationOptions('@siegel/eleventy', {
 *   enabled: z.boolean().optional(),
 * });
 * @throws nothing itself; `parseOptions` throws {@link SiegelError} `invalid_options`.
 */
export function defineIntegrationOptions<Extra extends z.ZodRawShape = Record<never, never>>(
  name: string,
  extra?: Extra,
) {
  const optionsSchema = integrationOptionsSchema.extend(extra ?? ({} as Extra));
  return {
    optionsSchema,
    parseOptions: (input: unknown): z.output<typeof optionsSchema> =>
      parseIntegrationOptions(optionsSchema, input, name),
  };
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
  const cacheFile = options.cacheFile ?? DEFAULTS.cacheFile;
  return {
    site: options.site,
    selector: options.selector ?? DEFAULTS.selector,
    dryRun: options.dryRun ?? DEFAULTS.dryRun,
    verbose: options.verbose ?? DEFAULTS.verbose,
    cacheFile: isAbsolute(cacheFile) ? cacheFile : resolve(root, cacheFile),
    env: loadEnv(root),
    bunkerUrl: options.bunkerUrl,
    bunkerApiToken: options.bunkerApiToken,
    bunkerKeyName: options.bunkerKeyName,
    ...(options.relays ? { relays: options.relays } : {}),
    ...(options.publishTimeoutMs !== undefined ? { publishTimeoutMs: options.publishTimeoutMs } : {}),
    ...(options.mirrors ? { mirrors: options.mirrors } : {}),
    ...(options.signer ? { signer: options.signer } : {}),
    ...(options.siteId !== undefined ? { siteId: options.siteId } : {}),
    ...(options.rootSite !== undefined ? { rootSite: options.rootSite } : {}),
    ...(options.siteTitle !== undefined ? { siteTitle: options.siteTitle } : {}),
    ...(options.siteDescription !== undefined ? { siteDescription: options.siteDescription } : {}),
    ...(options.blossom ? { blossom: options.blossom } : {}),
    ...(options.mark !== undefined ? { mark: options.mark } : {}),
    logger: {
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (message) => logger.error(message),
    },
  };
}

/** How a build integration treats signing errors (its `onError` option and the host's logger). */
export interface BuildSigningOptions {
  /** `fail`: rethrow, so the build fails. `warn`: log a warning, the build finishes unsigned. Default: `fail`. */
  onError?: 'fail' | 'warn';
  /** The host's logger (already prefixed, if the host wants a prefix); only `warn` is used. */
  logger: { warn(message: string): void };
}

/**
 * Apply `onError` to a signing error: rethrow it (`fail`, the default) or log it as a warning (`warn`).
 *
 * @example
 * try { options = toSignSiteOptions(settings, context); } catch (error) { handleSigningError(error, { onError, logger }); }
 * @throws the `error` itself with `onError: 'fail'`.
 */
export function handleSigningError(error: unknown, options: BuildSigningOptions): void {
  if ((options.onError ?? DEFAULTS.onError) === 'fail') throw error;
  const message = error instanceof Error ? error.message : String(error);
  options.logger.warn(`${message}\nThe build finished without signatures (onError: 'warn').`);
}

/**
 * Run an integration's signing step (`signSite`), which logs the summary through the host's logger and
 * throws `nothing_signed` for a build that signs nothing; count failed pages as an error; apply `onError`
 * to any error.
 *
 * @example
 * await runBuildSigning(() => signSite(outDir, toSignSiteOptions(settings, { root, logger })), {
 *   onError: settings.onError,
 *   logger,
 * });
 * @returns the summary, or `undefined` when an error was turned into a warning.
 * @throws {SiegelError} `bunker_error` when pages could not be signed, or the step's own error, with
 *   `onError: 'fail'`.
 */
export async function runBuildSigning(
  run: () => Promise<SignSummary>,
  options: BuildSigningOptions,
): Promise<SignSummary | undefined> {
  try {
    const summary = await run();
    if (summary.failed > 0) {
      const first = summary.pages.find((page) => page.outcome === 'failed');
      throw new SiegelError(
        'bunker_error',
        `${summary.failed} page(s) could not be signed: ${first?.error ?? ''}`.trim(),
      );
    }
    return summary;
  } catch (error) {
    handleSigningError(error, options);
    return undefined;
  }
}
