import { parse, type Selector } from 'css-what';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { SiegelError } from '../errors.js';
import { HTML_NS } from './parse.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** The selector used when none is given: the page's `<main>`. */
export const DEFAULT_SELECTOR = 'main';

/** A selector as people read it in messages: `<main>` for a bare tag name, else the selector in backticks. */
export function describeSelector(selector: string): string {
  return /^[a-z][a-z0-9-]*$/i.test(selector) ? `<${selector}>` : `\`${selector}\``;
}

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

/** css-what's attribute actions that the supported subset has, as CSS operators. */
const OPERATORS: Partial<Record<string, AttributeTest['operator']>> = {
  exists: '',
  equals: '=',
  element: '~=',
  start: '^=',
  end: '$=',
  any: '*=',
  hyphen: '|=',
};

const SUPPORTED =
  'Supported: tag, #id, .class, [attr], [attr=value] (also ~= ^= $= *= |=), *, descendant and `>` combinators, comma lists.';

function invalid(selector: string, why: string): SiegelError {
  return new SiegelError('invalid_options', `Unsupported selector \`${selector}\`: ${why}. ${SUPPORTED}`);
}

/** One token of css-what's parse, checked against the supported subset. */
function describeToken(token: Selector): string {
  if (token.type === 'pseudo' || token.type === 'pseudo-element')
    return `\`:${token.name}\` is not supported`;
  if (token.type === 'attribute') return `the attribute test \`${token.name}\` uses unsupported syntax`;
  return `the ${token.type} combinator is not supported`;
}

/** One alternative (`a > b c`) of css-what's parse as a chain of compounds, or why it is not supported. */
function compileChain(tokens: Selector[]): Compound[] | string {
  const chain: Compound[] = [];
  let compound: Compound | undefined;
  let combinator: Compound['combinator'];
  for (const token of tokens) {
    if (token.type === 'descendant' || token.type === 'child') {
      if (!compound) return 'it starts or ends with a combinator';
      combinator = token.type === 'child' ? '>' : ' ';
      compound = undefined;
      continue;
    }
    if (!compound) {
      compound = { tag: undefined, attributes: [], combinator };
      chain.push(compound);
    }
    if (token.type === 'tag' && token.namespace === null) compound.tag = token.name.toLowerCase();
    else if (token.type === 'universal' && token.namespace === null) continue;
    else if (token.type === 'attribute' && token.namespace === null && token.ignoreCase !== true) {
      const operator = OPERATORS[token.action];
      if (operator === undefined) return describeToken(token);
      compound.attributes.push({ name: token.name.toLowerCase(), operator, value: token.value });
    } else {
      return describeToken(token);
    }
  }
  return compound ? chain : 'it starts or ends with a combinator';
}

/**
 * Compile the small CSS selector subset Siegel supports for choosing the signed element: type (`main`),
 * universal (`*`), `#id`, `.class`, attribute tests, the descendant and child (`>`) combinators and
 * comma-separated alternatives. The selector is read by css-what (a maintained CSS selector parser);
 * anything outside the subset — pseudo-classes, sibling combinators, namespaces, case flags — is refused,
 * so that a selector never means something different here than in `document.querySelector`.
 *
 * @example
 * ```ts
 * const compiled = compileSelector('article.post > div[data-body]');
 * ```
 * @throws {SiegelError} `invalid_options` when the selector is empty or uses unsupported syntax.
 */
export function compileSelector(selector: string): CompiledSelector {
  if (selector.trim() === '') throw invalid(selector, 'it is empty');
  let alternatives: Selector[][];
  try {
    alternatives = parse(selector);
  } catch (cause) {
    throw new SiegelError(
      'invalid_options',
      `Unsupported selector \`${selector}\`: ${(cause as Error).message}. ${SUPPORTED}`,
      {
        cause,
      },
    );
  }
  return alternatives.map((tokens) => {
    const chain = compileChain(tokens);
    if (typeof chain === 'string') throw invalid(selector, chain);
    return chain;
  });
}

const compiledSelectors = new Map<string, CompiledSelector>();

/**
 * {@link compileSelector}, once per selector: a site has one selector for thousands of pages.
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
  return selectAll(root, selector, 1)[0];
}

/**
 * The elements under `root` that match `selector`, in tree order, at most `limit` of them — what
 * `querySelectorAll` returns (template contents are not searched).
 *
 * @example
 * ```ts
 * const twoMains = selectAll(parse(html), compileSelector('main'), 2).length === 2;
 * ```
 */
export function selectAll(root: ParentNode, selector: CompiledSelector, limit = Infinity): Element[] {
  const found: Element[] = [];
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
      if (matchesSelector(child, selector) && found.push(child) >= limit) return found;
      stack.push(child);
      indices.push(0);
    }
  }
  return found;
}
