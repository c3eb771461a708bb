// The version check goes through Eleventy's own `versionCheck` — here the real one of the installed
// Eleventy (3.1.5; an older Eleventy cannot be installed beside it), asked for ranges it does and does not
// satisfy — and fails with a message that names the plugin and the range.
import { describe, expect, it } from 'vitest';
import { checkEleventyVersion, ELEVENTY_VERSION_RANGE, siegel } from '../src/index.js';

/** Eleventy's real `UserConfig` (its package exports it for types only, so it is imported by path). */
async function realEleventyConfig(): Promise<{ versionCheck(range: string): void }> {
  const url = new URL('../../../node_modules/@11ty/eleventy/src/UserConfig.js', import.meta.url);
  const { default: UserConfig } = (await import(url.href)) as {
    default: new () => { versionCheck(range: string): void };
  };
  return new UserConfig();
}

describe('checkEleventyVersion', () => {
  it('passes for the installed Eleventy 3 and the plugin’s own range', async () => {
    expect(ELEVENTY_VERSION_RANGE).toBe('>=3.0.0');
    const config = await realEleventyConfig();
    expect(() => checkEleventyVersion(config, '@siegel/eleventy')).not.toThrow();
  });

  it('fails, naming the plugin, the range and the version found, when Eleventy does not satisfy the range', async () => {
    const config = await realEleventyConfig();
    const check = () => checkEleventyVersion(config, '@siegel/eleventy', '>=4.0.0');
    expect(check).toThrow(
      /^@siegel\/eleventy needs Eleventy `>=4\.0\.0`: We found Eleventy version '3\.1\.5' which does not meet the required version range: '>=4\.0\.0'/,
    );
    expect(check).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });

  it('fails for an Eleventy without versionCheck (Eleventy 1), when the plugin is added', () => {
    expect(() => siegel({ on: () => {} }, { site: 'https://example.com' })).toThrow(
      '@siegel/eleventy needs Eleventy `>=3.0.0`: this Eleventy has no `eleventyConfig.versionCheck`, so it is older than 2.0',
    );
  });
});
