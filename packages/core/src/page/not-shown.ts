// "Not shown ⇒ not valid" (issue 23): whether a browser with scripts on and no style sheets would not show the
// selected element, judged from its place in the markup — its own attributes and inline style and those of
// its ancestors. Style sheets cannot be judged from the markup; they are out of scope here (docs/page-hash.md).
//
// Deliberately stricter than `checkVisibility()` plus a non-empty box (the oracle of the Chromium test), which
// sees neither clipping nor glyph size: `inert` (shown, but neither selectable nor findable), `clip-path` /
// `clip`, an ancestor of zero size that clips its overflow, `font-size: 0` (a line box may keep a height),
// an opacity below 0.1, and any `var()` in a property that could hide are refused too.
import type { DefaultTreeAdapterTypes } from 'parse5';
import { readInlineStyle, type StyleToken, type StyleValue } from './inline-style.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** HTML elements whose default `display` is not `inline` (sizes and transforms apply to them). */
const BLOCK_BY_DEFAULT = new Set(
  'html body main div section article aside nav header footer p details summary dialog blockquote figure figcaption form fieldset legend ul ol li dl dd dt h1 h2 h3 h4 h5 h6 hgroup address center search pre listing xmp plaintext menu table caption hr'.split(
    ' ',
  ),
);
/** Elements that may host a declarative shadow root (besides custom elements). */
const SHADOW_HOSTS = new Set(
  'article aside blockquote body div footer h1 h2 h3 h4 h5 h6 header main nav p section span'.split(' '),
);
const SIZE_PROPERTIES = ['width', 'height', 'max-width', 'max-height', 'inline-size', 'block-size'];
/** Properties whose value decides visibility here: a `var()` in any of them cannot be judged. */
const JUDGED = [
  'display',
  'visibility',
  'content-visibility',
  'opacity',
  'transform',
  'scale',
  'clip-path',
  'clip',
  'font-size',
  'font',
  'overflow',
  'overflow-x',
  'overflow-y',
  ...SIZE_PROPERTIES,
];

function attribute(element: Element, name: string): string | undefined {
  for (const attr of element.attrs) if (attr.name === name) return attr.value;
  return undefined;
}

function isHtml(node: ParentNode | null | undefined, tagName?: string): node is Element {
  const element = node as Element | null | undefined;
  return element?.namespaceURI === HTML_NS && (tagName === undefined || element.tagName === tagName);
}

const keyword = (value: StyleValue | undefined): string | undefined =>
  value?.tokens.length === 1 && value.tokens[0]?.kind === 'ident' ? value.tokens[0].name : undefined;
const isZero = (token: StyleToken | undefined): boolean => token?.kind === 'number' && token.value === 0;

/** The element's inline declarations (cached: an ancestor is read once per walk). */
function styleOf(element: Element, cache: Map<Element, Map<string, StyleValue>>): Map<string, StyleValue> {
  let style = cache.get(element);
  if (!style) {
    const text = attribute(element, 'style');
    style = text === undefined ? new Map() : readInlineStyle(text);
    cache.set(element, style);
  }
  return style;
}

/** Whether width/height/transform apply: the element's inline `display`, else its default. */
function isBlockLike(element: Element, style: Map<string, StyleValue>): boolean {
  const display = keyword(style.get('display'));
  if (display !== undefined && display !== 'inherit' && display !== 'initial' && display !== 'unset')
    return display !== 'inline' && display !== 'contents' && display !== 'none';
  return BLOCK_BY_DEFAULT.has(element.tagName);
}

/** A transform that flattens the box to nothing: a zero scale factor, or a singular `matrix()`. */
function flattens(value: StyleValue | undefined): boolean {
  const tokens = value?.tokens ?? [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as StyleToken;
    if (token.kind !== 'function') continue;
    const args: StyleToken[] = [];
    for (let j = i + 1; j < tokens.length && tokens[j]?.name !== ')'; j++)
      if (tokens[j]?.kind === 'number') args.push(tokens[j] as StyleToken);
    if (/^scale(x|y|z|3d)?$/.test(token.name) && args.some(isZero)) return true;
    if (token.name === 'matrix' && args.length === 6) {
      const [a, b, c, d] = args.map((arg) => arg.value as number) as [number, number, number, number];
      if (a * d - b * c === 0) return true;
    }
  }
  return false;
}

/** Why this element's own inline style hides it and what is inside it, if it does. */
function hidingDeclaration(
  element: Element,
  style: Map<string, StyleValue>,
  isSelf: boolean,
  clipsOverflow: boolean,
): string | undefined {
  for (const name of JUDGED)
    if (style.get(name)?.tokens.some((token) => token.kind === 'function' && token.name === 'var'))
      return `\`${name}\` uses \`var()\`, which cannot be judged from the markup`;
  if (keyword(style.get('display')) === 'none') return '`display: none`';
  const opacity = style.get('opacity')?.tokens[0];
  if (opacity?.kind === 'number' && (opacity.value as number) / (opacity.unit === '%' ? 100 : 1) < 0.1)
    return `\`opacity: ${opacity.name}\``;
  const clipPath = keyword(style.get('clip-path'));
  if (style.has('clip-path') && clipPath !== 'none') return '`clip-path`';
  if (style.has('clip') && keyword(style.get('clip')) !== 'auto') return '`clip`';
  if (!isBlockLike(element, style)) return undefined;
  // content-visibility (also from `hidden="until-found"`, unless inline style sets it) skips the contents of
  // a box that can be contained — not of an inline one.
  const contentVisibility =
    keyword(style.get('content-visibility')) ??
    (attribute(element, 'hidden')?.toLowerCase() === 'until-found' ? 'hidden' : undefined);
  if (contentVisibility === 'hidden')
    return style.has('content-visibility') ? '`content-visibility: hidden`' : '`hidden="until-found"`';
  if (flattens(style.get('transform')) || style.get('scale')?.tokens.some(isZero))
    return 'a zero-scale transform';
  const zero = SIZE_PROPERTIES.find((name) => {
    const tokens = style.get(name)?.tokens;
    return tokens?.length === 1 && isZero(tokens[0]);
  });
  if (zero === undefined) return undefined;
  if (isSelf) return `\`${zero}: 0\``;
  // `clip` always clips; `hidden` on the root (and on body while the root's overflow is visible) applies to
  // the viewport instead.
  const overflow = ['overflow', 'overflow-x', 'overflow-y'].flatMap(
    (name) => style.get(name)?.tokens.map((token) => token.name) ?? [],
  );
  const clipped = overflow.includes('clip') || (overflow.includes('hidden') && clipsOverflow);
  return clipped ? `\`${zero}: 0\` with hidden overflow` : undefined;
}

/** Font size along the path: the nearest absolute size decides; relative sizes multiply up to it. */
function hasZeroFontSize(path: Element[], cache: Map<Element, Map<string, StyleValue>>): boolean {
  for (const element of path) {
    const style = styleOf(element, cache);
    const size = style.get('font-size')?.tokens[0];
    const shorthand = style
      .get('font')
      ?.tokens.find(
        (token, i, all) =>
          token.kind === 'number' && all[i - 1]?.name !== '/' && (token.unit !== '' || token.value === 0),
      );
    const token = size ?? shorthand;
    if (token === undefined) continue;
    if (isZero(token)) return true;
    if (token.kind !== 'number' || !['em', '%', 'ex', 'ch', 'cap', 'ic', 'lh'].includes(token.unit ?? ''))
      return false;
  }
  return false;
}

/** Visibility is inherited: the nearest element that sets it decides. */
function hasHiddenVisibility(
  path: Element[],
  cache: Map<Element, Map<string, StyleValue>>,
): string | undefined {
  for (const element of path) {
    const value = keyword(styleOf(element, cache).get('visibility'));
    if (value === undefined || value === 'inherit' || value === 'unset') continue;
    return value === 'hidden' || value === 'collapse' ? `\`visibility: ${value}\`` : undefined;
  }
  return undefined;
}

/** The host's declarative shadow root (its first `<template shadowrootmode>` child), if the parser attaches one. */
function shadowRootOf(host: Element): DefaultTreeAdapterTypes.Template | undefined {
  if (!SHADOW_HOSTS.has(host.tagName) && !host.tagName.includes('-')) return undefined;
  for (const child of host.childNodes) {
    if (!isHtml(child as Element, 'template')) continue;
    const mode = attribute(child as Element, 'shadowrootmode')?.toLowerCase();
    if (mode === 'open' || mode === 'closed') return child as DefaultTreeAdapterTypes.Template;
  }
  return undefined;
}

/** Whether a shadow tree has a `<slot>` that takes `child` of its host (by `slot=`, or the default slot). */
function hasSlotFor(root: DefaultTreeAdapterTypes.Template, child: Element): boolean {
  const wanted = attribute(child, 'slot') ?? '';
  const stack: ParentNode[] = [root.content];
  while (stack.length > 0) {
    const node = stack.pop() as ParentNode;
    for (const next of node.childNodes) {
      if (!('tagName' in next)) continue;
      if (isHtml(next, 'slot') && (attribute(next, 'name') ?? '') === wanted) return true;
      if (!isHtml(next, 'template')) stack.push(next);
    }
  }
  return false;
}

/**
 * Why a browser with scripts on and no style sheets would not show `element`, judged from the markup: the
 * element or an ancestor is `hidden`, `inert`, a `popover`, a closed `<dialog>`, a `<template>`, a
 * `<noscript>` or a `<select>`; it lies in a closed `<details>` outside its summary, or in a shadow host with
 * no slot for it; or inline style hides it. `undefined` when it is shown.
 *
 * @example
 * ```ts
 * findHider(main); // 'an ancestor <body> has `visibility: hidden`'
 * ```
 */
export function findHider(element: Element): string | undefined {
  const path: Element[] = [];
  for (let at: ParentNode | null = element; at && 'tagName' in at; at = at.parentNode) path.push(at);
  const cache = new Map<Element, Map<string, StyleValue>>();
  const html = path[path.length - 1];
  const htmlOverflow = html ? styleOf(html, cache).get('overflow') : undefined;
  for (let i = 0; i < path.length; i++) {
    const at = path[i] as Element;
    const below = path[i - 1];
    const name = i === 0 ? 'the element itself' : `an ancestor <${at.tagName}>`;
    if (!isHtml(at)) continue;
    const style = styleOf(at, cache);
    const display = keyword(style.get('display'));
    const uaHidden = display === undefined || display === 'none';
    const hidden = attribute(at, 'hidden');
    if (at.tagName === 'template') return `it sits in ${name}`;
    if (hidden !== undefined && hidden.toLowerCase() !== 'until-found' && uaHidden)
      return `${name} has \`hidden\``;
    if (attribute(at, 'inert') !== undefined) return `${name} has \`inert\``;
    if (
      attribute(at, 'popover') !== undefined &&
      uaHidden &&
      !(at.tagName === 'dialog' && attribute(at, 'open') !== undefined)
    )
      return `${name} has \`popover\` (shown only when a script opens it)`;
    if (at.tagName === 'dialog' && attribute(at, 'open') === undefined && uaHidden)
      return `${name} is not \`open\``;
    if (below && at.tagName === 'details' && attribute(at, 'open') === undefined) {
      const summary = at.childNodes.find((child) => isHtml(child as Element, 'summary'));
      if (summary !== below) return `${name} is closed and the element is not in its summary`;
    }
    if (below && at.tagName === 'noscript') return `${name}: with scripts on its content is text, not markup`;
    if (below && at.tagName === 'select') return `${name}: its content is not shown as page content`;
    const root = below ? shadowRootOf(at) : undefined;
    if (root && below && !hasSlotFor(root, below)) return `${name} has a shadow root with no slot for it`;
    // The root element's overflow applies to the viewport, and so does body's while html's is visible.
    const clips =
      at !== html && !(at.tagName === 'body' && (keyword(htmlOverflow) ?? 'visible') === 'visible');
    const declaration = hidingDeclaration(at, style, i === 0, clips);
    if (declaration) return `${name} has ${declaration}`;
  }
  const visibility = hasHiddenVisibility(path, cache);
  if (visibility) return `the element has ${visibility} (inherited)`;
  if (hasZeroFontSize(path, cache)) return 'the element’s text has `font-size: 0`';
  return undefined;
}
