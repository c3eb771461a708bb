import { SiegelError } from '@siegel/core';

/**
 * The Eleventy versions the plugin supports: 3 and later (it reads `eleventy.after`'s `results` and
 * Eleventy 3's `directories`).
 */
export const ELEVENTY_VERSION_RANGE = '>=3.0.0';

/** The part of `eleventyConfig` the version check uses (Eleventy 2.0+). */
export interface VersionCheckable {
  versionCheck?(compatibleRange: string): void;
}

/**
 * Check the running Eleventy against `range` with Eleventy's own `eleventyConfig.versionCheck` (which
 * compares its version, prereleases included, and throws when it does not satisfy the range), so that an
 * unsupported Eleventy fails when the plugin is added, with a message naming the plugin.
 *
 * @example
 * checkEleventyVersion(eleventyConfig);
 * // Eleventy 2.0.1 throws: @siegel/eleventy needs Eleventy `>=3.0.0`: We found Eleventy version '2.0.1' …
 * @throws {SiegelError} `invalid_options` when Eleventy is older than `range`, or has no `versionCheck`
 *   (Eleventy 1).
 */
export function checkEleventyVersion(
  eleventyConfig: VersionCheckable,
  name: string,
  range: string = ELEVENTY_VERSION_RANGE,
): void {
  const needs = `${name} needs Eleventy \`${range}\``;
  if (typeof eleventyConfig.versionCheck !== 'function') {
    throw new SiegelError(
      'invalid_options',
      `${needs}: this Eleventy has no \`eleventyConfig.versionCheck\`, so it is older than 2.0`,
    );
  }
  try {
    eleventyConfig.versionCheck(range);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SiegelError('invalid_options', `${needs}: ${reason}`, { cause: error });
  }
}
