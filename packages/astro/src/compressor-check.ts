/** Integrations known to rewrite built HTML in `astro:build:done` (minifiers, compressors). */
export const KNOWN_HTML_REWRITERS = [
  'astro-compress',
  '@playform/compress',
  'astro-min',
  'astro-minify',
  'astro-minify-html',
  'astro-html-minifier',
  '@zokki/astro-minify',
  'astro-critters',
  '@playform/inline',
] as const;

// Minifiers by name. Not `astro-compressor` & co.: they only add .gz/.br copies and belong after Siegel.
const REWRITER_PATTERN = /minif|(^|[-/])min$/i;

/**
 * Names of the HTML-rewriting integrations listed after `ownName` in `integrations`. Astro runs
 * `astro:build:done` hooks in list order, so those rewrite pages after they were signed.
 *
 * @example
 * findRewritersAfter([{ name: '@siegel/astro' }, { name: 'astro-compress' }], '@siegel/astro') // ['astro-compress']
 */
export function findRewritersAfter(integrations: ReadonlyArray<{ name: string }>, ownName: string): string[] {
  const own = integrations.findIndex((integration) => integration.name === ownName);
  if (own === -1) return [];
  return integrations
    .slice(own + 1)
    .map((integration) => integration.name)
    .filter(
      (name) => (KNOWN_HTML_REWRITERS as readonly string[]).includes(name) || REWRITER_PATTERN.test(name),
    );
}

/** The warning for {@link findRewritersAfter}'s result, with the fix. */
export function formatRewriterWarning(names: string[], ownName: string): string {
  const list = names.map((name) => `\`${name}\``).join(', ');
  return (
    `${list} ${names.length === 1 ? 'is' : 'are'} listed after \`${ownName}\` in \`integrations\` and rewrite${names.length === 1 ? 's' : ''} ` +
    'the HTML after it was signed, which breaks every signature. ' +
    `Fix: move siegel() to the end of the list, e.g. integrations: [${names[0]}(), siegel()].`
  );
}
