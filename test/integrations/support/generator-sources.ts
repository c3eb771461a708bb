// The sources of the generated sites test/integrations/real-generators.test.ts builds, written into fresh
// projects outside the repository: file path → content. Docusaurus is not here: its classic template comes
// from `create-docusaurus` itself. Versions are exact so that a run installs what the last one did (with
// `npm install --before`, their dependencies too).

/** Astro Starlight: a splash home page, an aside and a code block, tabs, a plain page with a table. */
export const STARLIGHT: Record<string, string> = {
  'package.json': `{
  "name": "starlight-inventory",
  "private": true,
  "type": "module",
  "dependencies": {
    "@astrojs/starlight": "0.42.4",
    "astro": "7.3.5",
    "sharp": "0.35.5"
  }
}
`,
  'astro.config.mjs': `import starlight from '@astrojs/starlight';
import { defineConfig } from 'astro/config';

export default defineConfig({
  site: 'https://docs.example.org',
  integrations: [
    starlight({
      title: 'Example Docs',
      sidebar: [
        { label: 'Guides', items: [{ autogenerate: { directory: 'guides' } }] },
      ],
    }),
  ],
});
`,
  'src/content.config.ts': `import { defineCollection } from 'astro:content';
import { docsLoader } from '@astrojs/starlight/loaders';
import { docsSchema } from '@astrojs/starlight/schema';

export const collections = {
  docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),
};
`,
  'src/content/docs/index.mdx': `---
title: Welcome
description: The home page, in Starlight's splash template.
template: splash
hero:
  tagline: Docs written for the test.
  actions:
    - text: Read the guide
      link: /guides/install/
---

import { Card, CardGrid } from '@astrojs/starlight/components';

<CardGrid>
  <Card title="Signed">Every page is signed.</Card>
  <Card title="Verified">Every page is verified.</Card>
</CardGrid>
`,
  'src/content/docs/guides/install.md': `---
title: Install
description: How to install it.
---

Install the package.

:::note
An aside: Starlight renders it as a callout.
:::

:::caution[Careful]
A caution aside with a custom title.
:::

\`\`\`js title="example.js"
console.log('a code block');
\`\`\`
`,
  'src/content/docs/guides/tabs.mdx': `---
title: Tabs
description: A page with tabs.
---

import { Tabs, TabItem } from '@astrojs/starlight/components';

<Tabs>
  <TabItem label="npm">npm install example</TabItem>
  <TabItem label="pnpm">pnpm add example</TabItem>
</Tabs>

## A heading

Some text under a heading.
`,
  'src/content/docs/guides/reference.md': `---
title: Reference
description: A plain page.
---

A plain page with a [link](/guides/install/) and a table.

| a | b |
| - | - |
| 1 | 2 |
`,
};

/** The VitePress default theme: a home layout page, doc pages with custom containers and a code group, a `page` layout page. */
export const VITEPRESS: Record<string, string> = {
  'package.json': `{
  "name": "vitepress-inventory",
  "private": true,
  "type": "module",
  "devDependencies": {
    "vitepress": "1.6.4"
  }
}
`,
  'docs/.vitepress/config.mts': `import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'Example Docs',
  description: 'VitePress default theme, written for the test.',
  themeConfig: {
    nav: [{ text: 'Guide', link: '/guide/' }],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Introduction', link: '/guide/' },
          { text: 'Install', link: '/guide/install' },
        ],
      },
    ],
  },
});
`,
  'docs/index.md': `---
layout: home
hero:
  name: Example Docs
  tagline: The home layout.
  actions:
    - theme: brand
      text: Guide
      link: /guide/
features:
  - title: Signed
    details: Every page is signed.
  - title: Verified
    details: Every page is verified.
---
`,
  'docs/guide/index.md': `# Introduction

A doc page with a [link](./install).

::: tip
A custom container.
:::

::: warning
A warning container.
:::
`,
  'docs/guide/install.md': `# Install

\`\`\`js
console.log('a code block');
\`\`\`

::: code-group

\`\`\`sh [npm]
npm install example
\`\`\`

\`\`\`sh [pnpm]
pnpm add example
\`\`\`

:::
`,
  'docs/about.md': `---
layout: page
---

# About

A page in the \`page\` layout (no sidebar).
`,
};

/** An Eleventy site laid out as eleventy-base-blog (github.com/11ty/eleventy-base-blog) is: base.njk with a skip link, header and nav, `<main id="skip">` around `<heading-anchors>`, home, post and tag layouts, four posts. */
export const ELEVENTY_BASE_BLOG: Record<string, string> = {
  'package.json': `{
  "name": "eleventy-base-blog-inventory",
  "private": true,
  "type": "module",
  "devDependencies": {
    "@11ty/eleventy": "3.1.8",
    "@11ty/eleventy-navigation": "1.0.5",
    "@11ty/eleventy-plugin-syntaxhighlight": "5.0.2"
  }
}
`,
  'eleventy.config.js': `import pluginNavigation from '@11ty/eleventy-navigation';
import pluginSyntaxHighlight from '@11ty/eleventy-plugin-syntaxhighlight';
import { HtmlBasePlugin, IdAttributePlugin } from '@11ty/eleventy';

export default function (eleventyConfig) {
  eleventyConfig.addPlugin(pluginSyntaxHighlight);
  eleventyConfig.addPlugin(pluginNavigation);
  eleventyConfig.addPlugin(HtmlBasePlugin);
  eleventyConfig.addPlugin(IdAttributePlugin);
  eleventyConfig.addBundle('css');
  eleventyConfig.addBundle('js');
  eleventyConfig.addFilter('readableDate', (date) => new Date(date).toISOString().slice(0, 10));
  eleventyConfig.addFilter('htmlDateString', (date) => new Date(date).toISOString().slice(0, 10));
  eleventyConfig.addFilter('filterTagList', (tags) => (tags || []).filter((tag) => !['all', 'posts'].includes(tag)));
  eleventyConfig.addFilter('head', (array, n) => (n < 0 ? array.slice(n) : array.slice(0, n)));
  eleventyConfig.addFilter('min', (...numbers) => Math.min(...numbers));
  eleventyConfig.addFilter('getAllTags', (collection) => [...new Set(collection.flatMap((item) => item.data.tags || []))]);
  eleventyConfig.addShortcode('currentBuildDate', () => new Date().toISOString());
}

export const config = {
  templateFormats: ['md', 'njk', 'html'],
  markdownTemplateEngine: 'njk',
  htmlTemplateEngine: 'njk',
  dir: { input: 'content', includes: '../_includes', data: '../_data', output: '_site' },
};
`,
  '_data/metadata.js': `export default {
  title: 'Example Blog',
  url: 'https://blog.example.org/',
  language: 'en',
  description: 'A blog laid out as eleventy-base-blog is.',
};
`,
  '_includes/layouts/base.njk': `<!doctype html>
<html lang="{{ metadata.language }}">
	<head>
		<meta charset="utf-8">
		<meta name="viewport" content="width=device-width, initial-scale=1.0">
		<title>{{ title or metadata.title }}</title>
		<meta name="description" content="{{ description or metadata.description }}">
		<link rel="alternate" href="/feed/feed.xml" type="application/atom+xml" title="{{ metadata.title }}">
		<style>{% css %}.visually-hidden { clip: rect(0 0 0 0); clip-path: inset(50%); height: 1px; overflow: hidden; position: absolute; white-space: nowrap; width: 1px; }{% endcss %}{% getBundle "css" %}</style>
		<script type="module">{% getBundle "js" %}</script>
	</head>
	<body>
		<a href="#skip" class="visually-hidden">Skip to main content</a>

		<header>
			<a href="/" class="home-link">{{ metadata.title }}</a>
			<nav>
				<h2 class="visually-hidden">Top level navigation menu</h2>
				<ul class="nav">
				{%- for entry in collections.all | eleventyNavigation %}
					<li class="nav-item"><a href="{{ entry.url }}"{% if entry.url == page.url %} aria-current="page"{% endif %}>{{ entry.title }}</a></li>
				{%- endfor %}
				</ul>
			</nav>
		</header>

		<main id="skip">
			<heading-anchors>
				{{ content | safe }}
			</heading-anchors>
		</main>

		<footer>
			<p><em>Built with <a href="https://www.11ty.dev/">{{ eleventy.generator }}</a></em></p>
		</footer>

		<!-- This page \`{{ page.url }}\` was built on {% currentBuildDate %} -->
	</body>
</html>
`,
  '_includes/layouts/home.njk': `---
layout: layouts/base.njk
---
{{ content | safe }}
`,
  '_includes/layouts/post.njk': `---
layout: layouts/base.njk
---
<h1>{{ title }}</h1>

<ul class="post-metadata">
	<li><time datetime="{{ page.date | htmlDateString }}">{{ page.date | readableDate }}</time></li>
	{%- for tag in tags | filterTagList %}
	<li><a href="/tags/{{ tag | slugify }}/" class="post-tag">{{ tag }}</a>{%- if not loop.last %}, {% endif %}</li>
	{%- endfor %}
</ul>

{{ content | safe }}

{%- if collections.posts %}
{%- set previousPost = collections.posts | getPreviousCollectionItem %}
{%- set nextPost = collections.posts | getNextCollectionItem %}
{%- if nextPost or previousPost %}
<ul class="links-nextprev">
	{%- if previousPost %}<li class="links-nextprev-prev">← Previous<br> <a href="{{ previousPost.url }}">{{ previousPost.data.title }}</a></li>{% endif %}
	{%- if nextPost %}<li class="links-nextprev-next">Next →<br><a href="{{ nextPost.url }}">{{ nextPost.data.title }}</a></li>{% endif %}
</ul>
{%- endif %}
{%- endif %}
`,
  '_includes/postslist.njk': `<ol reversed class="postlist" style="counter-reset: start-from {{ (postslistCounter or postslist.length) + 1 }}">
{%- for post in postslist | reverse %}
	<li class="postlist-item{% if post.url == url %} postlist-item-active{% endif %}">
		<a href="{{ post.url }}" class="postlist-link">{% if post.data.title %}{{ post.data.title }}{% else %}<code>{{ post.url }}</code>{% endif %}</a>
		<time class="postlist-date" datetime="{{ post.date | htmlDateString }}">{{ post.date | readableDate }}</time>
	</li>
{%- endfor %}
</ol>
`,
  'content/index.njk': `---
layout: layouts/home.njk
eleventyNavigation:
  key: Home
  order: 1
numberOfLatestPostsToShow: 3
---
{% set postsCount = collections.posts | length %}
{% set latestPostsCount = postsCount | min(numberOfLatestPostsToShow) %}
<h1>Latest {{ latestPostsCount }} Post{% if latestPostsCount != 1 %}s{% endif %}</h1>

{% set postslist = collections.posts | head(-1 * numberOfLatestPostsToShow) %}
{% set postslistCounter = postsCount %}
{% include "postslist.njk" %}
`,
  'content/blog.njk': `---
layout: layouts/home.njk
eleventyNavigation:
  key: Archive
  order: 2
---
<h1>Archive</h1>

{% set postslist = collections.posts %}
{% include "postslist.njk" %}
`,
  'content/about.md': `---
layout: layouts/base.njk
eleventyNavigation:
  key: About
  order: 3
---
# About Me

I am a person that writes stuff.
`,
  'content/tags.njk': `---
permalink: /tags/
layout: layouts/home.njk
---
<h1>Tags</h1>

<ul>
{% for tag in collections.all | getAllTags | filterTagList %}
	<li><a href="/tags/{{ tag | slugify }}/" class="post-tag">{{ tag }}</a></li>
{% endfor %}
</ul>
`,
  'content/tag-pages.njk': `---
pagination:
  data: collections
  size: 1
  alias: tag
  filter: [all, posts]
eleventyComputed:
  title: Tagged “{{ tag }}”
permalink: /tags/{{ tag | slugify }}/
layout: layouts/home.njk
---
<h1>Tagged “{{ tag }}”</h1>

{% set postslist = collections[ tag ] %}
{% include "postslist.njk" %}

<p>See <a href="/tags/">all tags</a>.</p>
`,
  'content/404.md': `---
layout: layouts/home.njk
permalink: 404.html
eleventyExcludeFromCollections: true
---
# Content not found.

Go <a href="/">home</a>.
`,
  'content/blog/blog.11tydata.js': `export default { tags: ['posts'], layout: 'layouts/post.njk' };
`,
  'content/blog/firstpost.md': `---
title: This is my first post.
description: This is a post on My Blog about agile frameworks.
date: 2018-05-01
tags: [another tag]
---
Leverage agile frameworks to provide a robust synopsis for high level overviews.

## Section Header

Bring to the table win-win survival strategies to ensure proactive domination.
`,
  'content/blog/secondpost.md': `---
title: This is my second post with a much longer title.
description: This is a post on My Blog about leveraging agile frameworks.
date: 2018-07-04
tags: [number 2]
---
Leverage agile frameworks to provide a robust synopsis.

\`\`\`js
// this is a code block
let a = 1;
\`\`\`
`,
  'content/blog/thirdpost.md': `---
title: This is my third post.
description: This is a post on My Blog about win-win survival strategies.
date: 2018-08-24
tags: [second tag]
---
Bring to the table win-win survival strategies, with a <abbr title="abbreviation">abbr</abbr>.
`,
  'content/blog/fourthpost.md': `---
title: This is my fourth post.
description: This is a post on My Blog about touchpoints.
date: 2018-09-30
tags: [second tag]
---
Capitalize on low hanging fruit to identify a ballpark value added activity.
`,
};
