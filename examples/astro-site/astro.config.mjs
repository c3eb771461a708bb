// @ts-check
import siegel from '@siegel/astro';
import { defineConfig } from 'astro/config';

// `site` is required: every signed page's event carries its absolute URL.
// Siegel goes LAST in `integrations`: anything that rewrites HTML after it would break the signatures.
// `mark: true` puts the reader's mark on every signed page: the layout's <siegel-mark> (docs/mark.md).
export default defineConfig({
  site: 'https://astro-example.siegel.invalid',
  integrations: [siegel({ mark: true })],
});
