// Generates a realistic built static site: N pages of 15–30 KB with a head full of meta and assets, a nav,
// a footer, and a <main> with articles, code, tables, lists, entities, non-ASCII text and Astro islands —
// and the assets those pages reference: the shared CSS and JS bundles under /_astro/ and one image per 10
// pages under /img/ (pages i…i+9 share `/img/photo-{i/10}.webp`), so that work on assets is measured too.
// Deterministic for a given seed. Used by the sign-site bench and by test/site.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const WORDS = (
  'signatur nostr schlüssel seite inhalt prüfen hash ereignis über straße grüße café naïve résumé ' +
  'build deploy static site generator island hydrate component render content author publish verify ' +
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip'
).split(' ');

/** A small deterministic PRNG (mulberry32). */
export function createRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(random, min = 8, max = 20) {
  const count = min + Math.floor(random() * (max - min));
  const words = [];
  for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(random() * WORDS.length)]);
  const text = words.join(' ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

function paragraph(random) {
  const parts = [];
  const count = 3 + Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    let s = sentence(random);
    const r = random();
    if (r < 0.15) s = s.replace(/ (\w+) /, ' <strong>$1</strong> ');
    else if (r < 0.3) s = s.replace(/ (\w+) /, ' <a href="/blog/post-1/">$1</a> ');
    else if (r < 0.4) s = s.replace(/ (\w+) /, ' <code>$1()</code> ');
    else if (r < 0.48) s += ' Tom &amp; Jerry&nbsp;&mdash; &lt;ok&gt;.';
    parts.push(s);
  }
  return `<p>${parts.join(' ')}</p>`;
}

function nav(index) {
  const links = [];
  for (let i = 0; i < 24; i++)
    links.push(`<li><a href="/blog/post-${(index + i) % 500}/" class="nav-link">Beitrag ${i + 1}</a></li>`);
  return `<header class="site-header"><a href="/" class="logo">Siegel Demo</a><nav aria-label="Hauptmenü"><ul>${links.join('')}</ul></nav></header>`;
}

function footer() {
  return `<footer class="site-footer"><p>© 2026 Siegel Demo · <a href="/impressum/">Impressum</a> · <a href="/datenschutz/">Datenschutz</a></p><script type="module" src="/_astro/client.Cx2a9.js"></script></footer>`;
}

function island(random, index) {
  const props = JSON.stringify({
    items: [
      [0, index],
      [0, 'x & y'],
    ],
    label: [0, `Zähler ${Math.floor(random() * 100)}`],
  })
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;');
  return `<astro-island uid="Z1${index}" prefix="r${index}" component-url="/_astro/Counter.BQ2x.js" renderer-url="/_astro/client.Cx2a9.js" props="${props}" ssr client="visible" opts="{&quot;name&quot;:&quot;Counter&quot;}"><button class="counter">0</button></astro-island>`;
}

function table(random) {
  const rows = [];
  for (let i = 0; i < 6; i++)
    rows.push(
      `<tr><td>${i}</td><td>${sentence(random, 2, 4)}</td><td>${(random() * 100).toFixed(2)} €</td></tr>`,
    );
  return `<table><thead><tr><th>#</th><th>Name</th><th>Preis</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** One page's HTML, 15–30 KB. */
export function generatePage(index, seed = 1) {
  const random = createRandom(seed * 100_003 + index);
  const title = `Beitrag ${index}: ${sentence(random, 3, 6).slice(0, -1)}`;
  const target = 16_000 + Math.floor(random() * 12_500);
  const sections = [];
  let size = 0;
  let n = 0;
  while (size < target - 3_800) {
    let part;
    const r = random();
    if (r < 0.55) part = paragraph(random);
    else if (r < 0.65) part = `<h2 id="s${n}">${sentence(random, 2, 5)}</h2>`;
    else if (r < 0.72)
      part = `<pre><code class="language-js">const x = ${n} &lt; 10 &amp;&amp; "ok";\nconsole.log(x);\n</code></pre>`;
    else if (r < 0.8)
      part = `<ul>${[1, 2, 3, 4].map(() => `<li>${sentence(random, 3, 8)}</li>`).join('')}</ul>`;
    else if (r < 0.86) part = table(random);
    else if (r < 0.92) part = island(random, n);
    else
      part = `<figure><img src="${imagePath(index)}" alt="Bild ${n} &quot;quote&quot;" width="800" height="450" loading="lazy"><figcaption>${sentence(random, 4, 9)}</figcaption></figure>`;
    sections.push(part);
    size += part.length;
    n++;
  }
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<meta name="description" content="${sentence(random, 8, 14)}">`,
    `<link rel="canonical" href="https://example.com/blog/post-${index}/">`,
    '<link rel="stylesheet" href="/_astro/index.D3f2.css">',
    `<meta property="og:title" content="${title}">`,
    '<script type="module" src="/_astro/hoisted.Ab12.js"></script>',
  ].join('\n');
  return `<!DOCTYPE html>\n<html lang="de">\n<head>\n${head}\n</head>\n<body>\n${nav(index)}\n<main id="content"><article><h1>${title}</h1>\n${sections.join('\n')}\n</article></main>\n${footer()}\n</body>\n</html>\n`;
}

/** Site path of the image page `index` shows: one image for every 10 pages. */
export function imagePath(index) {
  return `/img/photo-${Math.floor(index / 10)}.webp`;
}

/** The shared bundles every page references (see `generatePage`), with their sizes in bytes. */
const BUNDLES = [
  ['_astro/index.D3f2.css', 32_000],
  ['_astro/hoisted.Ab12.js', 9_000],
  ['_astro/client.Cx2a9.js', 58_000],
  ['_astro/Counter.BQ2x.js', 3_500],
];

/** A CSS or JS file of about `size` bytes: text built from the generator's words, compressible as real code is. */
function bundleText(path, size, random) {
  const css = path.endsWith('.css');
  const lines = [];
  let length = 0;
  for (let n = 0; length < size; n++) {
    const word = WORDS[Math.floor(random() * WORDS.length)].replace(/[^a-z]/g, 'x');
    const line = css
      ? `.${word}-${n}{margin:${n % 7}px ${n % 5}rem;color:#${(n * 2654435761).toString(16).slice(-6).padStart(6, '0')}}`
      : `function ${word}${n}(e,t){return e&&t?e[${n % 9}]+t.${word}:void 0}`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** An image of 20–80 KB: a WebP (RIFF) header and deterministic noise, as incompressible as a photo. */
function imageBytes(random) {
  const size = 20_000 + 4 * Math.floor(random() * 15_000);
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) bytes.writeUInt32LE(Math.floor(random() * 4294967296), i);
  bytes.write('RIFF', 0, 'latin1');
  bytes.writeUInt32LE(size - 8, 4);
  bytes.write('WEBPVP8 ', 8, 'latin1');
  return bytes;
}

/** Relative paths of the assets a site of `count` pages references: the bundles, then the images. */
export function assetPaths(count) {
  const images = [];
  for (let group = 0; group * 10 < count; group++) images.push(imagePath(group * 10).slice(1));
  return [...BUNDLES.map(([path]) => path), ...images];
}

/** Write the assets of a site of `count` pages into `dir` (see {@link assetPaths}). */
export async function generateAssets(dir, count, seed = 1) {
  const random = createRandom(seed * 7_919);
  await mkdir(join(dir, '_astro'), { recursive: true });
  await mkdir(join(dir, 'img'), { recursive: true });
  for (const [path, size] of BUNDLES) await writeFile(join(dir, path), bundleText(path, size, random));
  for (const path of assetPaths(count).slice(BUNDLES.length))
    await writeFile(join(dir, path), imageBytes(random));
}

/** Relative path of page `index`: mostly directory indexes, some plain files. */
export function pagePath(index) {
  if (index === 0) return 'index.html';
  if (index % 10 === 0) return `docs/page-${index}.html`;
  return `blog/post-${index}/index.html`;
}

/** Write N pages and the assets they reference (see {@link generateAssets}) into `dir`; returns the pages' relative paths. */
export async function generateSite(dir, count, seed = 1) {
  await generateAssets(dir, count, seed);
  const paths = [];
  const made = new Set();
  for (let index = 0; index < count; index++) {
    const path = pagePath(index);
    const folder = dirname(join(dir, path));
    if (!made.has(folder)) {
      await mkdir(folder, { recursive: true });
      made.add(folder);
    }
    await writeFile(join(dir, path), generatePage(index, seed));
    paths.push(path);
  }
  return paths;
}
