// @ts-check
import { resolve } from 'node:path';
import siegel from '@siegel/vite';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

// A multi-page app: every HTML entry below becomes a page in dist/, and Siegel signs each one after the build.
export default defineConfig({
  // `mark: true`: the reader's mark, the <siegel-mark> in each page's footer (docs/mark.md).
  plugins: [siegel({ site: 'https://vite-example.siegel.invalid', mark: true })],
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
