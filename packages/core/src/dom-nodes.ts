import type { DefaultTreeAdapterTypes } from 'parse5';

type Element = DefaultTreeAdapterTypes.Element;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

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
