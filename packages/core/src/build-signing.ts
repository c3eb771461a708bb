import { SiegelError } from './errors.js';
import type { SignSummary } from './sign-summary.js';

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
  if ((options.onError ?? 'fail') === 'fail') throw error;
  const message = error instanceof Error ? error.message : String(error);
  options.logger.warn(`${message}\nThe build finished without signatures (onError: 'warn').`);
}

/**
 * Run an integration's signing step (`signSite`), which logs the summary through the host's logger; count
 * failed pages as an error; apply `onError` to any error.
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
