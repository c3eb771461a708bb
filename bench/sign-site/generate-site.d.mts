// Types for generate-site.mjs (plain JS so the bench runs without a build), for the tests that import it.

/** A small deterministic PRNG (mulberry32): a function returning numbers in [0, 1). */
export function createRandom(seed: number): () => number;
/** One page's HTML, 15–30 KB. */
export function generatePage(index: number, seed?: number): string;
/** Relative path of page `index`: mostly directory indexes, some plain files. */
export function pagePath(index: number): string;
/** Write N pages into `dir`; returns their relative paths. */
export function generateSite(dir: string, count: number, seed?: number): Promise<string[]>;
