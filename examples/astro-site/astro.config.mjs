// @ts-check
import siegel from '@siegel/astro';
import { defineConfig } from 'astro/config';

// `site` is required: every signed page's event carries its absolute URL.
// Siegel goes LAST in `integrations`: anything that rewrites HTML after it would break the signatures.
export default defineConfig({
  site: 'https://astro-example.siegel.invalid',
  integrations: [siegel()],
});
