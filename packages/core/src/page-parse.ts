import { type DefaultTreeAdapterTypes, parse, serialize } from 'parse5';
import { type CompiledSelector, compileSelector, selectFirst } from './css-selector.js';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;

/** The selector used when none is given: the page's `<main>`. */
export const DEFAULT_SELECTOR = 'main';

const compiledSelectors = new Map<string, CompiledSelector>();

/**
 * Compile `selector` once and keep it: a site has one selector for thousands of pages.
 *
 * @example
 * ```ts
 * selectFirst(document, compileCachedSelector('main'));
 * ```
 * @throws {SiegelError} `invalid_options` for unsupported selector syntax.
 */
export function compileCachedSelector(selector: string): CompiledSelector {
  let compiled = compiledSelectors.get(selector);
  if (!compiled) {
    compiled = compileSelector(selector);
    if (compiledSelectors.size > 32) compiledSelectors.clear();
    compiledSelectors.set(selector, compiled);
  }
  return compiled;
}

/**
 * Parse a page as `DOMParser` does (`text/html`, scripting disabled), with or without source offsets.
 * A leading byte order mark (U+FEFF) is not part of the page: a browser strips it when it decodes the file
 * (a BOM left in the string would put the parser in quirks mode and push all of `<head>` into `<body>`).
 * Source offsets are then one less than in `html`.
 *
 * @example
 * ```ts
 * const document = parsePage('<!doctype html><main>Hi</main>');
 * ```
 */
export function parsePage(html: string, options: { locations?: boolean } = {}): Document {
  const text = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  return parse(text, { scriptingEnabled: false, sourceCodeLocationInfo: options.locations ?? false });
}

/**
 * The bytes `siegel-page/1` hashes, as a string: the `innerHTML` of the first element matching `selector`
 * (default `main`), or `undefined` when nothing matches. Pure: used by Node and by the browser verify script.
 *
 * @example
 * ```ts
 * readPageContent('<main><p>Hi &amp; bye</p></main>'); // '<p>Hi &amp; bye</p>'
 * ```
 * @throws {SiegelError} `invalid_options` for unsupported selector syntax.
 */
export function readPageContent(html: string, selector: string = DEFAULT_SELECTOR): string | undefined {
  const element = selectFirst(parsePage(html), compileCachedSelector(selector));
  return element === undefined ? undefined : serializeContent(element);
}

/** `element.innerHTML` per the HTML fragment serialization algorithm (parse5's serializer). */
export function serializeContent(element: Element): string {
  return serialize(element);
}
