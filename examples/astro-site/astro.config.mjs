// @ts-check
import { defineConfig } from 'astro/config';
// Siegel's integration with this site's settings (the reader's mark: docs/mark.md), from siegel.mjs.
import siegel from './siegel.mjs';

// `site` is required: every signed page's event carries its absolute URL.
// Siegel goes LAST in `integrations`: anything that rewrites HTML after it would break the signatures.
export default defineConfig({
  site: 'https://astro-example.siegel.invalid',
  integrations: [siegel()],
});
