// The Siegel integration with this site's own settings, so that astro.config.mjs keeps the plain
// `integrations: [siegel()]` that `astro add @siegel/astro` writes: the reader's mark on every signed page
// (`mark: true`, the <siegel-mark> in the layout's footer: docs/mark.md). Options given to `siegel()` win.
import siegelIntegration from '@siegel/astro';

/** @param {Parameters<typeof siegelIntegration>[0]} [options] */
export default function siegel(options = {}) {
  return siegelIntegration({ mark: true, ...options });
}
