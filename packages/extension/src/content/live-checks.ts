/**
 * The live checks, on the reader's tab: what no build-time check can see, because stylesheets and scripts
 * decide it as the page is read. Each finding is a `live.*` problem of `PROBLEM_CODES`:
 *
 * - `live.not_shown`: the selected element is not rendered — `checkVisibility()` with the opacity and
 *   visibility checks (and `content-visibility: hidden`, always checked) fails, or its box is empty.
 *   `content-visibility: auto` is not asked: it skips what is off-screen and shows it on scroll.
 * - `live.hidden_part`: a part of it is not rendered and its author did not hide it (see
 *   {@link explainHiding}); the finding names the hidden text.
 * - `live.changed`: what a reader sees or follows differs from the served element (reader-view.ts), or the
 *   tab has more than one such element.
 */
import type { LiveFindings, LiveRequest } from '../common/messages.js';
import { compareReaderViews, type ReaderView, readReaderView } from './reader-view.js';

const SKIPPED = new Set(['script', 'style', 'template', 'noscript', 'link', 'meta']);
const MEDIA = new Set([
  'img',
  'video',
  'audio',
  'iframe',
  'embed',
  'object',
  'svg',
  'canvas',
  'picture',
  'input',
]);

type Problem = LiveFindings['problems'][number];
const problem = (code: 'live.not_shown' | 'live.hidden_part' | 'live.changed', message: string): Problem => ({
  code,
  severity: 'error',
  message,
});

function shown(element: Element): boolean {
  return element.checkVisibility({ opacityProperty: true, visibilityProperty: true });
}

/** The element at the same place (child element indices from the root) in `servedRoot`, if any. */
function counterpart(element: Element, root: Element, servedRoot: ParentNode): Element | undefined {
  const path: number[] = [];
  for (let at: Element = element; at !== root; ) {
    const parent = at.parentElement;
    if (!parent) return undefined;
    path.unshift([...parent.children].indexOf(at));
    at = parent;
  }
  let found: ParentNode | Element | undefined = servedRoot;
  for (const index of path) found = found?.children[index];
  return found instanceof Element && found.localName === element.localName ? found : undefined;
}

/** Whether a declaration block hides what it applies to. */
function hides(style: CSSStyleDeclaration): boolean {
  const visibility = style.getPropertyValue('visibility');
  return (
    style.getPropertyValue('display') === 'none' ||
    visibility === 'hidden' ||
    visibility === 'collapse' ||
    style.getPropertyValue('opacity') === '0' ||
    style.getPropertyValue('content-visibility') === 'hidden'
  );
}

function ruleHides(rules: CSSRuleList, element: Element): boolean {
  for (const rule of rules) {
    if (rule instanceof CSSStyleRule) {
      try {
        if (element.matches(rule.selectorText) && hides(rule.style)) return true;
      } catch {}
    } else if ('cssRules' in rule && ruleHides((rule as CSSGroupingRule).cssRules, element)) return true;
  }
  return false;
}

/**
 * Whether the author hid `element` (the topmost hidden part): by the signed markup itself — a closed
 * `<details>` the served element has closed too, a `hidden` attribute or an inline `style` the served
 * element has too — or, when the served page runs its own scripts, a `hidden` attribute or inline style
 * they set (tabs, accordions); or by a rule of a stylesheet the served page loads from its own origin or of
 * one of its own `<style>` elements. Nothing else is the author's: a stylesheet of another origin (whose
 * rules a page cannot even read), a style or attribute injected after load, another extension.
 */
function explainHiding(
  element: Element,
  main: Element,
  servedMain: ParentNode,
  request: LiveRequest,
): boolean {
  const served = counterpart(element, main, servedMain);
  const parent = element.parentElement;
  if (parent?.localName === 'details' && !parent.hasAttribute('open') && element.localName !== 'summary') {
    const servedParent = counterpart(parent, main, servedMain);
    if (parent === main || (servedParent && !servedParent.hasAttribute('open')) || request.scripted)
      return true;
  }
  if (element.hasAttribute('hidden') && (served?.hasAttribute('hidden') || request.scripted)) return true;
  const inline = element.getAttribute('style');
  if (inline !== null && (served?.getAttribute('style') === inline || request.scripted)) {
    if (element instanceof HTMLElement && hides(element.style)) return true;
  }
  for (const sheet of document.styleSheets) {
    const owner = sheet.ownerNode;
    const authors =
      sheet.href !== null
        ? request.authorSheets.includes(sheet.href)
        : owner instanceof HTMLStyleElement && request.authorStyles.includes(owner.textContent ?? '');
    if (!authors) continue;
    try {
      if (ruleHides(sheet.cssRules, element)) return true;
    } catch {}
  }
  return false;
}

/** The topmost hidden parts of `main`, each once. */
function hiddenParts(main: Element): Element[] {
  const roots = new Set<Element>();
  const visit = (element: Element) => {
    for (const child of element.children) {
      if (SKIPPED.has(child.localName)) continue;
      const content = MEDIA.has(child.localName) || (child.textContent ?? '').trim() !== '';
      if (!content) continue;
      if (!shown(child)) roots.add(child);
      else visit(child);
    }
  };
  visit(main);
  return [...roots];
}

const describe = (element: Element) => {
  const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
  const what =
    text ||
    `<${element.localName}${element.getAttribute('src') ? ` src="${element.getAttribute('src')}"` : ''}>`;
  return what.length > 200 ? `${what.slice(0, 200)}…` : what;
};

/** What the tab shows of the signed element, read without the served one: {@link readLive}. */
export interface LiveState {
  selector: string;
  /** How many elements the selector matches in the tab. */
  count: number;
  main: Element | undefined;
  visible: boolean;
  /** The topmost parts of `main` not rendered. */
  hidden: Element[];
  view: ReaderView | undefined;
}

/**
 * Read what the tab shows of `selector`'s element: everything the live checks need but the served element
 * (a signed page's content script reads it at `load`, while the served page is still being fetched).
 */
export function readLive(selector: string): LiveState {
  const mains = document.querySelectorAll(selector);
  const main = mains[0];
  if (!main) return { selector, count: 0, main, visible: false, hidden: [], view: undefined };
  const box = main.getBoundingClientRect();
  const visible = shown(main) && box.width > 0 && box.height > 0;
  return {
    selector,
    count: mains.length,
    main,
    visible,
    hidden: visible ? hiddenParts(main) : [],
    view: readReaderView(main, document.baseURI),
  };
}

/**
 * Run the live checks for `request` on this tab's document (`live`: its {@link readLive}, when read since
 * the tab last changed).
 *
 * @example
 * ```ts
 * const findings = checkLive({ type: 'siegel:live', selector: 'main', served, authorSheets: [], authorStyles: [], scripted: false });
 * ```
 */
export function checkLive(request: LiveRequest, live: LiveState = readLive(request.selector)): LiveFindings {
  const findings: LiveFindings = { problems: [], hidden: [], differences: [] };
  const { main, count } = live;
  if (!main || !live.view) {
    findings.problems.push(problem('live.not_shown', `the tab has no \`${request.selector}\``));
    return findings;
  }
  if (count > 1)
    findings.problems.push(problem('live.changed', `the tab has ${count} \`${request.selector}\` elements`));
  if (!live.visible)
    findings.problems.push(
      problem('live.not_shown', `the signed \`${request.selector}\` is not shown in this tab`),
    );
  const template = document.createElement('template');
  // Inert: a template's content runs no script and loads nothing (web-ext lint warns of any innerHTML).
  template.innerHTML = request.served;
  const servedMain = template.content;
  for (const part of live.hidden) {
    if (explainHiding(part, main, servedMain, request)) continue;
    const text = describe(part);
    findings.hidden.push(text);
    findings.problems.push(problem('live.hidden_part', `hidden in this tab, not by its author: “${text}”`));
  }
  findings.differences = compareReaderViews(readReaderView(servedMain, document.baseURI), live.view);
  if (findings.differences.length > 0)
    findings.problems.push(
      problem(
        'live.changed',
        `the ${findings.differences.map((difference) => difference.what).join(', ')} of the signed \`${request.selector}\` in this tab differ from the served page`,
      ),
    );
  return findings;
}
