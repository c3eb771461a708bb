// "Not shown ⇒ not valid" (issues 23, 35): whether the selected element reaches the reader as signed, judged
// from the markup around it. Not a list of the ways to hide (issue 23's deny-list could never be finished)
// but three lists of what cannot hide: the element and every ancestor must be a plain container, carry only
// attributes that cannot hide or move content (the element's own too: the hash covers its innerHTML only),
// and inline `style` only with declarations and values that cannot hide, shrink, move, clip, mask, recolour
// or cover content; and none may host a declarative shadow root. Everything else is refused. Each entry's
// reason is in SPEC.md ("Shown as signed") and docs/verification.md; the names only are here, to keep the
// verify page's bundle small. Style sheets and scripts are not judged from the markup (the browser extension
// judges the live page).
import type { DefaultTreeAdapterTypes } from 'parse5';
import { readInlineStyle, type StyleToken, type StyleValue } from './inline-style.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** Plain containers: their rendering lays out their children and nothing else (no fallback, no toggle). */
const CONTAINERS = new Set('html body main div section article aside header footer nav search'.split(' '));

/** Attributes that cannot hide or move content (besides `data-*`, `aria-*` but `aria-hidden`, `xmlns:*`). */
const ATTRIBUTES = new Set(
  [
    'id class lang xml:lang dir translate title role tabindex accesskey xmlns',
    'itemscope itemprop itemtype itemid itemref prefix vocab typeof property resource about',
    'style', // its declarations are judged below
  ]
    .join(' ')
    .split(' '),
);

/** Inline declarations that cannot hide, shrink, move, clip, mask, recolour or cover: property → keywords. */
const DECLARATIONS: Record<string, Set<string>> = {
  'text-align': new Set('start end left right center justify match-parent'.split(' ')),
  'font-style': new Set(['normal', 'italic', 'oblique']),
  'font-weight': new Set(['normal', 'bold', 'bolder', 'lighter']),
};
/** CSS-wide keywords: the value comes from the parent (itself judged) or the style sheets (not judged). */
const WIDE = new Set(['inherit', 'initial', 'unset', 'revert', 'revert-layer']);

function isAllowedAttribute(name: string): boolean {
  return (
    ATTRIBUTES.has(name) ||
    name.startsWith('data-') ||
    (name.startsWith('aria-') && name !== 'aria-hidden') ||
    name.startsWith('xmlns:')
  );
}

const usesVar = (value: StyleValue) =>
  value.tokens.some((token) => token.kind === 'function' && token.name === 'var');

/** Whether a declaration's value is one the list allows for its property. */
function isAllowedValue(property: string, tokens: StyleToken[]): boolean {
  // A custom property does nothing by itself: only a `var()` reads it (refused inline; a style sheet's is not judged).
  if (property.startsWith('--')) return true;
  const keywords = DECLARATIONS[property];
  const [token, ...rest] = tokens;
  if (keywords === undefined || token === undefined || rest.length > 0) return false;
  if (token.kind === 'ident') return keywords.has(token.name) || WIDE.has(token.name);
  // `font-weight` as a number: any weight from 1 to 1000 draws the glyphs.
  return property === 'font-weight' && token.unit === '' && (token.value as number) >= 1;
}

/** Why `style`'s declarations may hide content, if one is not on the list (`var()` is never). */
function refusedDeclaration(style: string): string | undefined {
  for (const [property, value] of readInlineStyle(style)) {
    if (usesVar(value))
      return `inline \`${property}\` uses \`var()\`, which cannot be judged from the markup`;
    if (!isAllowedValue(property, value.tokens))
      return `inline \`${property}: ${value.tokens.map((token) => token.name).join(' ')}\`, not one of the declarations that cannot hide content`;
  }
  return undefined;
}

/** The element's declarative shadow root (a `<template shadowrootmode>` child), which hides what it does not slot. */
function hasShadowRoot(element: Element): boolean {
  return element.childNodes.some((child) => {
    const template = child as Element;
    if (template.namespaceURI !== HTML_NS || template.tagName !== 'template') return false;
    const mode = template.attrs.find((attr) => attr.name === 'shadowrootmode')?.value.toLowerCase();
    return mode === 'open' || mode === 'closed';
  });
}

/** Why `at` (the element itself when `self`) may keep its content from being shown, if it may. */
function refusedContainer(at: Element, self: boolean): string | undefined {
  const name = self ? `the element itself, <${at.tagName}>,` : `an ancestor <${at.tagName}>`;
  if (at.namespaceURI !== HTML_NS) return `${name} is not an HTML element`;
  if (!CONTAINERS.has(at.tagName)) return `${name} is not one of the plain containers`;
  for (const attr of at.attrs) {
    const qualified = attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name;
    if (!isAllowedAttribute(qualified))
      return `${name} carries \`${qualified}\`, not one of the attributes that cannot hide content`;
    if (attr.name === 'style') {
      const declaration = refusedDeclaration(attr.value);
      if (declaration) return `${name} has ${declaration}`;
    }
  }
  if (hasShadowRoot(at)) return `${name} carries a declarative shadow root (<template shadowrootmode>)`;
  return undefined;
}

/**
 * Why a reader might not be shown `element` as signed, judged from the markup: it or an ancestor is not one
 * of the plain containers (html, body, main, div, section, article, aside, header, footer, nav, search),
 * carries an attribute or an inline declaration that is not on the lists of what cannot hide content, or
 * hosts a declarative shadow root; or it is not in the document's tree (template contents). `undefined` when
 * every element from it up to `<html>` is on the lists.
 *
 * @example
 * ```ts
 * findHider(main); // 'an ancestor <object> is not one of the plain containers'
 * ```
 */
export function findHider(element: Element): string | undefined {
  let at: ParentNode = element;
  for (; 'tagName' in at; at = at.parentNode as ParentNode) {
    const refused = refusedContainer(at, at === element);
    if (refused) return refused;
    if (!at.parentNode) break;
  }
  return at.nodeName === '#document' ? undefined : 'it is not in the document (a template’s content)';
}
