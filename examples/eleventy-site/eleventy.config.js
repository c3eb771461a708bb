// @ts-check
import siegel from '@siegel/eleventy';

/** @param {import('@11ty/eleventy').UserConfig} eleventyConfig */
export default function (eleventyConfig) {
  // Signs the <main> of every HTML page this build wrote, once Eleventy has written them; feeds and JSON are left alone.
  // `mark: true`: the reader's mark, the <siegel-mark> in the layout's footer (docs/mark.md).
  eleventyConfig.addPlugin(siegel, { site: 'https://eleventy-example.siegel.invalid', mark: true });
}

export const config = {
  dir: { input: 'src', output: '_site' },
  markdownTemplateEngine: 'njk',
};
