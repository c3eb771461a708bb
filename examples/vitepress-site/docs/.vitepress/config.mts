import siegel from '@siegel/vite';
import { defineConfig } from 'vitepress';

// VitePress renders the HTML pages after its Vite builds; the plugin notices VitePress and signs the
// rendered pages in VitePress's `buildEnd` (after any `buildEnd` of your own), with `.env` read from the
// project root.
export default defineConfig({
  title: 'Siegel VitePress example',
  description: 'A VitePress site signed with Siegel.',
  cleanUrls: true,
  vite: {
    // `mark: true`: the reader's mark. The theme has no <siegel-mark>, so its script appends one to
    // <body>, outside VitePress's app and its <main> (docs/mark.md).
    plugins: [siegel({ site: 'https://vitepress-example.siegel.invalid', mark: true })],
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'About', link: '/about' },
    ],
    sidebar: [
      { text: 'Guide', items: [{ text: 'Getting started', link: '/guide/getting-started' }] },
      {
        text: 'More',
        items: [
          { text: 'About', link: '/about' },
          { text: 'Changelog', link: '/changelog' },
        ],
      },
    ],
  },
});
