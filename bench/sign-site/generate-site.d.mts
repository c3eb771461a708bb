// Types for generate-site.mjs (plain JS so the bench runs without a build), for the tests that import it.

/** A small deterministic PRNG (mulberry32): a function returning numbers in [0, 1). */
export function createRandom(seed: number): () => number;
/** One page's HTML, 15–30 KB. */
export function generatePage(index: number, seed?: number): string;
/** Relative path of page `index`: mostly directory indexes, some plain files. */
export function pagePath(index: number): string;
/** Write N pages and the assets they reference into `dir`; returns the pages' relative paths. */
export function generateSite(dir: string, count: number, seed?: number): Promise<string[]>;
/** Site path of the image page `index` shows (`/img/photo-{index/10}.webp`): one image for every 10 pages. */
export function imagePath(index: number): string;
/** Relative paths of the assets a site of `count` pages references: the CSS/JS bundles, then the images. */
export function assetPaths(count: number): string[];
/** Write the assets of a site of `count` pages into `dir`. */
export function generateAssets(dir: string, count: number, seed?: number): Promise<void>;
