import { type DefaultTreeAdapterTypes, parse, serialize } from 'parse5';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

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

/** `element.innerHTML` per the HTML fragment serialization algorithm (parse5's serializer). */
export function serializeContent(element: Element): string {
  return serialize(element);
}

/** The HTML namespace of parse5's elements. */
export const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** True for an element node of parse5's tree (not text, a comment or the document). */
export function isElement(node: ChildNode | ParentNode | undefined): node is Element {
  return node !== undefined && 'tagName' in node;
}

/** The first direct child of `parent` that is the HTML element `tagName`. */
export function findChild(parent: ParentNode | undefined, tagName: string): Element | undefined {
  for (const child of parent?.childNodes ?? []) {
    if (isElement(child) && child.tagName === tagName && child.namespaceURI === HTML_NS) return child;
  }
  return undefined;
}

/** The value of attribute `name` of `element`, or `undefined`. */
export function readAttribute(element: Element, name: string): string | undefined {
  for (const attribute of element.attrs) if (attribute.name === name) return attribute.value;
  return undefined;
}
