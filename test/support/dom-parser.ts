/**
 * What the hash is taken of, as a browser's `DOMParser` has it: `innerHTML` of the first element matching
 * `selector`, for each page (`null` when none matches). Self-contained, so a browser driver (playwright-core
 * for Chromium, puppeteer-core for Firefox) can send it to a page as it is:
 * `page.evaluate(readInDOMParser, { pages, selector })` — one call for many pages.
 */
export function readInDOMParser({ pages, selector }: { pages: readonly string[]; selector: string }) {
  return pages.map(
    (html) => new DOMParser().parseFromString(html, 'text/html').querySelector(selector)?.innerHTML ?? null,
  );
}
