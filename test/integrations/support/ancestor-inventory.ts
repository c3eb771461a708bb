// What real generators put around the signed element: for each page, the path from the document root to its
// `<main>` (to `<body>` when it has none), each element with its attribute names and inline style
// declarations, counted over a build. Issue 35 item 1 measures the ancestor allow-lists against this: a
// generator's page the lists would refuse shows here with the element, attribute or declaration that
// carries it, and with today's verdict (`analyzePage`) beside it.
import { analyzePage } from '@siegel/core';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** One distinct element on the path to the signed element, and on how many pages it stands there. */
export interface PathElement {
  /** Tag name. */
  element: string;
  /** Attribute names, sorted (values left out: they change per page). */
  attributes: string[];
  /** Inline `style` declarations as written (`property: value`), in order. */
  style: string[];
  /** Pages on whose path it stands. */
  pages: number;
}

/** What one page's path holds, and what signing says of it today. */
export interface PageOutcome {
  path: string;
  /** The element the path leads to: `main`, or `body` on a page without one. */
  target: 'main' | 'body';
  /** `undefined` when the page is signed (or has no `<main>`, which is not signed). */
  refusal: { code: string; message: string } | undefined;
}

/** A build's inventory: every distinct path element, the unusual ones, and each page's verdict. */
export interface AncestorInventory {
  elements: PathElement[];
  /** `element on page`: ancestors carrying a declarative shadow root (`<template shadowrootmode>`). */
  shadowRoots: string[];
  /** `element on page`: custom elements (a `-` in the name) on the path. */
  customElements: string[];
  pages: PageOutcome[];
}

/** Declarations of an inline `style`, split at `;` outside quotes and parentheses, trimmed. */
function declarations(style: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let current = '';
  for (const char of style) {
    if (quote) {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (char === ';' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim().replace(/\s*:\s*/, ': ')).filter((part) => part !== '');
}

const isElement = (node: { nodeName: string }): node is Element => 'tagName' in node;

/** The chain of elements from `<html>` to the first `<main>` in tree order (template contents excluded). */
function pathTo(root: ParentNode, tagName: string, chain: Element[] = []): Element[] | undefined {
  for (const child of root.childNodes) {
    if (!isElement(child)) continue;
    const next = [...chain, child];
    if (child.tagName === tagName) return next;
    const found = pathTo(child, tagName, next);
    if (found) return found;
  }
  return undefined;
}

/**
 * Inventory of `pages` (path and HTML) as `analyzePage` reads them with `selector` `main`: the path to each
 * page's `<main>` (or `<body>`), parsed as a browser's `DOMParser` does (scripting off).
 *
 * @example
 * ```ts
 * const inventory = inventoryPages([{ path: 'index.html', html: '<body class="a"><main>Hi</main>' }]);
 * inventory.elements.map((row) => row.element); // ['html', 'body', 'main']
 * inventory.elements[1]; // { element: 'body', attributes: ['class'], style: [], pages: 1 }
 * inventory.pages[0]; // { path: 'index.html', target: 'main', refusal: undefined }
 * ```
 */
export function inventoryPages(pages: readonly { path: string; html: string }[]): AncestorInventory {
  const rows = new Map<string, PathElement>();
  const shadowRoots: string[] = [];
  const customElements: string[] = [];
  const outcomes: PageOutcome[] = [];
  for (const { path, html } of pages) {
    const document = parse(html, { scriptingEnabled: false });
    const toMain = pathTo(document, 'main');
    const chain = toMain ?? pathTo(document, 'body') ?? [];
    const onThisPage = new Set<PathElement>();
    for (const element of chain) {
      const attributes = element.attrs.map((attr) => attr.name).sort();
      const style = declarations(element.attrs.find((attr) => attr.name === 'style')?.value ?? '');
      const key = JSON.stringify([element.tagName, attributes, style]);
      const row = rows.get(key) ?? { element: element.tagName, attributes, style, pages: 0 };
      rows.set(key, row);
      // Counted once per page, also when a page's path holds it twice (`<div class><div class>`).
      if (!onThisPage.has(row)) row.pages++;
      onThisPage.add(row);
      if (element.tagName.includes('-')) customElements.push(`<${element.tagName}> on ${path}`);
      const shadow = element.childNodes.find(
        (child) =>
          isElement(child) &&
          child.tagName === 'template' &&
          child.attrs.some((attr) => attr.name === 'shadowrootmode'),
      );
      if (shadow) shadowRoots.push(`<${element.tagName}> on ${path}`);
    }
    const refusal = toMain ? analyzePage(html).refusal : undefined;
    outcomes.push({
      path,
      target: toMain ? 'main' : 'body',
      refusal: refusal && { code: refusal.code, message: refusal.message },
    });
  }
  return { elements: [...rows.values()], shadowRoots, customElements, pages: outcomes };
}

/**
 * The inventory as Markdown: a table of the path elements, then shadow roots, custom elements and refusals.
 *
 * @example
 * ```ts
 * console.log(formatInventory('Eleventy', inventoryPages(pages)));
 * ```
 */
export function formatInventory(name: string, inventory: AncestorInventory): string {
  const withMain = inventory.pages.filter((page) => page.target === 'main');
  const refused = withMain.filter((page) => page.refusal);
  const cell = (items: string[]) =>
    items.length === 0 ? '—' : items.map((item) => `\`${item}\``).join(', ');
  const lines = [
    `### ${name}`,
    '',
    `${inventory.pages.length} pages: ${withMain.length} with <main>, ${withMain.length - refused.length} signed, ${refused.length} refused; ${inventory.pages.length - withMain.length} without <main> (path to <body>).`,
    '',
    '| element | attributes | inline style | pages |',
    '| --- | --- | --- | --- |',
    ...inventory.elements.map(
      (row) => `| ${row.element} | ${cell(row.attributes)} | ${cell(row.style)} | ${row.pages} |`,
    ),
    '',
    `Declarative shadow roots on the path: ${inventory.shadowRoots.length === 0 ? 'none' : inventory.shadowRoots.join('; ')}.`,
    `Custom elements on the path: ${inventory.customElements.length === 0 ? 'none' : inventory.customElements.join('; ')}.`,
    ...(refused.length === 0
      ? ['Refused: none.']
      : [
          'Refused:',
          ...refused.map((page) => `- ${page.path}: ${page.refusal?.code}: ${page.refusal?.message}`),
        ]),
    ...(inventory.pages.length === withMain.length
      ? []
      : [
          `Without <main>: ${inventory.pages
            .filter((page) => page.target === 'body')
            .map((page) => page.path)
            .join(', ')}.`,
        ]),
    '',
  ];
  return lines.join('\n');
}
