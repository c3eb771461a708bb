import type { DefaultTreeAdapterTypes } from 'parse5';
import { SiegelError } from './errors.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** One attribute condition: `[name]`, `[name=value]`, `[name~=value]`, `[name^=value]`, `[name$=value]`, `[name*=value]`, `[name|=value]`. */
interface AttributeTest {
  name: string;
  operator: '' | '=' | '~=' | '^=' | '$=' | '*=' | '|=';
  value: string;
}

/** A compound selector such as `article.post#main[data-x]`, plus how it relates to the compound on its left. */
interface Compound {
  tag: string | undefined;
  attributes: AttributeTest[];
  /** Combinator joining this compound to the previous (left) one; `undefined` for the leftmost. */
  combinator: ' ' | '>' | undefined;
}

/** A compiled selector: a list of alternatives (`a, b`), each a chain of compounds, left to right. */
export type CompiledSelector = Compound[][];

const IDENT = /^-?(?:[_a-zA-Z\u00a0-\uffff]|\\.)(?:[-\w\u00a0-\uffff]|\\.)*/;

function unescapeIdent(raw: string): string {
  return raw.replace(/\\(.)/g, '$1');
}

function invalid(selector: string, why: string): SiegelError {
  return new SiegelError(
    'invalid_options',
    `Unsupported selector \`${selector}\`: ${why}. Supported: tag, #id, .class, [attr], [attr=value] (also ~= ^= $= *= |=), *, descendant and \`>\` combinators, comma lists.`,
  );
}

/**
 * Compile the small CSS selector subset Siegel supports for choosing the signed element: type (`main`),
 * universal (`*`), `#id`, `.class`, attribute tests, the descendant and child (`>`) combinators and
 * comma-separated alternatives. Pseudo-classes are rejected so that a selector never means something
 * different here than in `document.querySelector`.
 *
 * @example
 * ```ts
 * const compiled = compileSelector('article.post > div[data-body]');
 * ```
 * @throws {SiegelError} `invalid_options` when the selector is empty or uses unsupported syntax.
 */
export function compileSelector(selector: string): CompiledSelector {
  const alternatives: CompiledSelector = [];
  let rest = selector.trim();
  if (rest === '') throw invalid(selector, 'it is empty');
  let chain: Compound[] = [];
  let combinator: Compound['combinator'];
  while (true) {
    const compound: Compound = { tag: undefined, attributes: [], combinator };
    let matchedSomething = false;
    const tag = /^(\*|-?[_a-zA-Z][-\w]*)/.exec(rest);
    if (tag) {
      compound.tag = tag[1] === '*' ? undefined : tag[1]?.toLowerCase();
      rest = rest.slice(tag[0].length);
      matchedSomething = true;
    }
    while (rest !== '') {
      const first = rest[0];
      if (first === '#' || first === '.') {
        const ident = IDENT.exec(rest.slice(1));
        if (!ident) throw invalid(selector, `expected a name after \`${first}\``);
        const value = unescapeIdent(ident[0]);
        compound.attributes.push(
          first === '#' ? { name: 'id', operator: '=', value } : { name: 'class', operator: '~=', value },
        );
        rest = rest.slice(1 + ident[0].length);
      } else if (first === '[') {
        const attribute =
          /^\[\s*([-\w:]+)\s*(?:([~^$*|]?=)\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([-\w]+))\s*)?\]/.exec(
            rest,
          );
        if (!attribute?.[1]) throw invalid(selector, `cannot read the attribute test at \`${rest}\``);
        const value = attribute[3] ?? attribute[4] ?? attribute[5] ?? '';
        compound.attributes.push({
          name: attribute[1].toLowerCase(),
          operator: (attribute[2] ?? '') as AttributeTest['operator'],
          value: unescapeIdent(value),
        });
        rest = rest.slice(attribute[0].length);
      } else {
        break;
      }
      matchedSomething = true;
    }
    if (!matchedSomething) throw invalid(selector, `unexpected \`${rest.slice(0, 20)}\``);
    chain.push(compound);
    const separator = /^\s*([>,])\s*|^\s+/.exec(rest);
    if (rest === '') break;
    if (!separator) throw invalid(selector, `unexpected \`${rest.slice(0, 20)}\``);
    rest = rest.slice(separator[0].length);
    if (separator[1] === ',') {
      alternatives.push(chain);
      chain = [];
      combinator = undefined;
    } else {
      combinator = separator[1] === '>' ? '>' : ' ';
    }
    if (rest === '') throw invalid(selector, 'it ends with a combinator');
  }
  alternatives.push(chain);
  return alternatives;
}

function readAttribute(element: Element, name: string): string | undefined {
  for (const attribute of element.attrs) {
    if (attribute.name === name && !attribute.prefix) return attribute.value;
  }
  return undefined;
}

function matchesCompound(element: Element, compound: Compound): boolean {
  if (compound.tag !== undefined) {
    const name = element.namespaceURI === HTML_NS ? element.tagName : element.tagName.toLowerCase();
    if (name !== compound.tag) return false;
  }
  for (const test of compound.attributes) {
    const actual = readAttribute(element, test.name);
    if (actual === undefined) return false;
    const { operator, value } = test;
    if (operator === '=' && actual !== value) return false;
    if (operator === '~=' && (value === '' || !actual.split(/[ \t\n\f\r]+/).includes(value))) return false;
    if (operator === '^=' && (value === '' || !actual.startsWith(value))) return false;
    if (operator === '$=' && (value === '' || !actual.endsWith(value))) return false;
    if (operator === '*=' && (value === '' || !actual.includes(value))) return false;
    if (operator === '|=' && actual !== value && !actual.startsWith(`${value}-`)) return false;
  }
  return true;
}

function parentElement(element: Element): Element | undefined {
  const parent = element.parentNode;
  return parent && 'tagName' in parent ? parent : undefined;
}

function matchesChain(element: Element, chain: Compound[], index: number): boolean {
  const compound = chain[index];
  if (!compound || !matchesCompound(element, compound)) return false;
  if (index === 0) return true;
  if (compound.combinator === '>') {
    const parent = parentElement(element);
    return parent !== undefined && matchesChain(parent, chain, index - 1);
  }
  for (let ancestor = parentElement(element); ancestor; ancestor = parentElement(ancestor)) {
    if (matchesChain(ancestor, chain, index - 1)) return true;
  }
  return false;
}

/**
 * Whether `element` matches a compiled selector (any of its alternatives).
 *
 * @example
 * ```ts
 * matchesSelector(element, compileSelector('main'));
 * ```
 */
export function matchesSelector(element: Element, selector: CompiledSelector): boolean {
  for (const chain of selector) {
    if (matchesChain(element, chain, chain.length - 1)) return true;
  }
  return false;
}

/**
 * The first element in tree order under `root` that matches `selector` — what `querySelector` returns.
 * Like `querySelector`, it does not look inside `<template>` contents.
 *
 * @example
 * ```ts
 * const main = selectFirst(parse(html), compileSelector('main'));
 * ```
 */
export function selectFirst(root: ParentNode, selector: CompiledSelector): Element | undefined {
  const stack: ParentNode[] = [root];
  const indices: number[] = [0];
  while (stack.length > 0) {
    const top = stack.length - 1;
    const parent = stack[top] as ParentNode;
    const index = indices[top] as number;
    const child = parent.childNodes[index];
    if (child === undefined) {
      stack.pop();
      indices.pop();
      continue;
    }
    indices[top] = index + 1;
    if ('tagName' in child) {
      if (matchesSelector(child, selector)) return child;
      stack.push(child);
      indices.push(0);
    }
  }
  return undefined;
}
