// @ts-check
import { resolve } from 'node:path';
import siegelPlugin from '@siegel/vite';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

/** `@siegel/vite` with the reader's mark on every page: the <siegel-mark> in each footer (docs/mark.md). */
const siegel = (/** @type {Parameters<typeof siegelPlugin>[0]} */ options) =>
  siegelPlugin({ mark: true, ...options });

// A multi-page app: every HTML entry below becomes a page in dist/, and Siegel signs each one after the build.
export default defineConfig({
  plugins: [siegel({ site: 'https://vite-example.siegel.invalid' })],
  build: {
    rolldownOptions: {
      input: {
        main: resolve(root, 'index.html'),
        about: resolve(root, 'about/index.html'),
        blog: resolve(root, 'blog/index.html'),
        post: resolve(root, 'blog/hello-vite.html'),
      },
    },
  },
});
