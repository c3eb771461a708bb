// `<selectedcontent>` (customizable select): once the parser is done, each `selectedcontent` inside a
// drop-down `select` holds a copy of the selected option's content — what `DOMParser` returns, and what is
// hashed. Whatever the page itself put there is overwritten; cloneSelectedContent reports where that was
// different markup, so the coverage rule can refuse it (a browser may act on it before it is replaced).
import { type DefaultTreeAdapterTypes, html } from 'parse5';

type Document = DefaultTreeAdapterTypes.Document;
type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;

const NS = html.NS;

function isHtmlElement(node: unknown, tagName?: string): node is Element {
  const element = node as Element;
  return (
    typeof element?.tagName === 'string' &&
    element.namespaceURI === NS.HTML &&
    (tagName === undefined || element.tagName === tagName)
  );
}

function hasAttribute(element: Element, name: string): boolean {
  return element.attrs.some((attribute) => attribute.name === name);
}

/** A `select` shown as a drop-down box: no `multiple`, display size 1 (the only kind with `selectedcontent`). */
function isDropDown(select: Element): boolean {
  if (hasAttribute(select, 'multiple')) return false;
  const size = select.attrs.find((attribute) => attribute.name === 'size')?.value;
  if (size === undefined) return true;
  const match = /^[\t\n\f\r ]*\+?(\d+)/.exec(size);
  return match === null || Number(match[1]) <= 1;
}

/** Descendants of `root` in tree order, not entering template contents. Iterative: trees can be deep. */
function* descendants(root: ParentNode): Generator<ChildNode> {
  const stack: ChildNode[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as ChildNode;
    yield node;
    const children = (node as Element).childNodes;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as ChildNode);
  }
}

function isDisabledOption(option: Element): boolean {
  if (hasAttribute(option, 'disabled')) return true;
  const parent = option.parentNode;
  return isHtmlElement(parent, 'optgroup') && hasAttribute(parent, 'disabled');
}

function cloneNode<T extends ChildNode>(node: T, parentNode: ParentNode): T {
  const copy = { ...node, parentNode } as T & { childNodes?: ChildNode[]; content?: ParentNode };
  delete (copy as { sourceCodeLocation?: unknown }).sourceCodeLocation;
  const element = node as unknown as Element;
  if (isHtmlElement(element)) {
    (copy as unknown as Element).attrs = element.attrs.map((attribute) => ({ ...attribute }));
  }
  if (copy.childNodes) {
    const children = copy.childNodes;
    copy.childNodes = [];
    for (const child of children) copy.childNodes.push(cloneNode(child, copy as unknown as ParentNode));
  }
  if (copy.content) {
    const content = copy.content;
    copy.content = { ...content, childNodes: [] } as ParentNode;
    for (const child of content.childNodes) copy.content.childNodes.push(cloneNode(child, copy.content));
  }
  return copy;
}

/**
 * The DOM's state once parsing is done: each `selectedcontent` inside a drop-down `select` holds a copy of
 * the content of the select's selected option — the last option with `selected`, else the first one that is
 * not disabled. A select without options leaves its `selectedcontent` as parsed. Returns the
 * `selectedcontent` elements whose own content (as parsed; whitespace aside) differed from the copy that replaced it.
 *
 * @example
 * ```ts
 * const overwritten = cloneSelectedContent(document); // [] when no page markup was replaced
 * ```
 */
export function cloneSelectedContent(document: Document): Element[] {
  const overwritten: Element[] = [];
  const selects: Element[] = [];
  for (const node of descendants(document)) if (isHtmlElement(node, 'select')) selects.push(node);
  for (const select of selects) {
    if (!isDropDown(select)) continue;
    const options: Element[] = [];
    const targets: Element[] = [];
    for (const node of descendants(select)) {
      if (isHtmlElement(node, 'option')) options.push(node);
      else if (isHtmlElement(node, 'selectedcontent')) targets.push(node);
    }
    if (targets.length === 0 || options.length === 0) continue;
    let chosen: Element | undefined;
    for (const option of options) if (hasAttribute(option, 'selected')) chosen = option;
    chosen ??= options.find((option) => !isDisabledOption(option));
    if (!chosen) continue;
    for (const target of targets) {
      if (isInside(target, chosen)) continue;
      const copy = chosen.childNodes.map((child) => cloneNode(child, target));
      if (hasMarkup(target.childNodes) && !sameNodes(target.childNodes, copy)) overwritten.push(target);
      target.childNodes = copy;
    }
  }
  return overwritten;
}

/** Whether the page put anything but whitespace there (an empty `<selectedcontent>` is the usual markup). */
function hasMarkup(nodes: ChildNode[]): boolean {
  return nodes.some(
    (node) =>
      node.nodeName !== '#text' || /[^\t\n\f\r ]/.test((node as DefaultTreeAdapterTypes.TextNode).value),
  );
}

/** Whether two lists of nodes are the same markup (names, namespaces, attributes, text, children). */
function sameNodes(a: ChildNode[], b: ChildNode[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((node, i) => sameNode(node, b[i] as ChildNode));
}

function sameNode(a: ChildNode, b: ChildNode): boolean {
  if (a.nodeName !== b.nodeName) return false;
  type AnyNode = Partial<Element> & { value?: string; data?: string };
  const [left, right] = [a as AnyNode, b as AnyNode];
  if (left.value !== right.value || left.data !== right.data) return false;
  if (left.namespaceURI !== right.namespaceURI) return false;
  const [x, y] = [left.attrs ?? [], right.attrs ?? []];
  if (x.length !== y.length || x.some((attr, i) => attr.name !== y[i]?.name || attr.value !== y[i]?.value))
    return false;
  const [p, q] = [
    (a as DefaultTreeAdapterTypes.Template).content?.childNodes ?? [],
    (b as DefaultTreeAdapterTypes.Template).content?.childNodes ?? [],
  ];
  return sameNodes(left.childNodes ?? [], right.childNodes ?? []) && sameNodes(p, q);
}

function isInside(node: ParentNode, ancestor: ParentNode): boolean {
  for (let at: ParentNode | null = node; at; at = (at as Element).parentNode)
    if (at === ancestor) return true;
  return false;
}
