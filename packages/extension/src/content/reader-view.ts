/**
 * What `live.changed` compares: the signed element as a reader sees and follows it — its text, its links,
 * its form targets and its media sources — read the same way from the live element in the tab and from the
 * served element (the bytes the extension fetched, parsed inert into a `<template>`). Hydration that
 * re-renders the same text, adds attributes, listeners or classes changes none of these, so it is no change.
 *
 * - text: every text node's data, in document order, whitespace collapsed, outside `<script>`, `<style>`,
 *   `<template>` and `<noscript>` (what scripts and templates hold is not shown as such);
 * - links: `href` of `<a>` and `<area>`, resolved against the page's base URL;
 * - forms: `action` of `<form>`, `formaction` of buttons and inputs, resolved (no action: the page itself);
 * - media: `src`, `srcset`, `poster` and `data` of `img`, `source`, `video`, `audio`, `track`, `iframe`,
 *   `embed`, `object`, `input[type=image]`.
 */
import type { LiveDifference } from '../common/messages.js';

/** The reader's view of an element. */
export interface ReaderView {
  text: string;
  links: string[];
  forms: string[];
  media: string[];
}

const SKIPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT']);
const MEDIA: Array<[string, string[]]> = [
  ['img', ['src', 'srcset']],
  ['source', ['src', 'srcset']],
  ['video', ['src', 'poster']],
  ['audio', ['src']],
  ['track', ['src']],
  ['iframe', ['src']],
  ['embed', ['src']],
  ['object', ['data']],
  ['input', ['src']],
];

function resolve(value: string, base: string): string {
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return value.trim();
  }
}

/** Read `root`'s reader view; relative URLs resolve against `base` (`document.baseURI`). */
export function readReaderView(root: ParentNode, base: string): ReaderView {
  const words: string[] = [];
  const view: ReaderView = { text: '', links: [], forms: [], media: [] };
  const walk = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) words.push(child.nodeValue ?? '');
      else if (child.nodeType === Node.ELEMENT_NODE) {
        const element = child as Element;
        if (SKIPPED.has(element.tagName.toUpperCase())) continue;
        const tag = element.localName;
        if ((tag === 'a' || tag === 'area') && element.hasAttribute('href'))
          view.links.push(resolve(element.getAttribute('href') ?? '', base));
        if (tag === 'form') view.forms.push(resolve(element.getAttribute('action') ?? '', base));
        if ((tag === 'button' || tag === 'input') && element.hasAttribute('formaction'))
          view.forms.push(resolve(element.getAttribute('formaction') ?? '', base));
        for (const [name, attributes] of MEDIA)
          if (tag === name)
            for (const attribute of attributes) {
              const value = element.getAttribute(attribute);
              if (value !== null)
                view.media.push(
                  `${attribute}=${attribute === 'srcset' ? value.trim() : resolve(value, base)}`,
                );
            }
        walk(element);
      }
    }
  };
  walk(root);
  view.text = words.join('').replace(/\s+/g, ' ').trim();
  return view;
}

/** The first place two word lists differ, with a few words of context on either side. */
function diffText(served: string, live: string): LiveDifference {
  const a = served.split(' ');
  const b = live.split(' ');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const from = Math.max(0, start - 4);
  const clip = (words: string[]) => {
    const text = words.slice(from, Math.min(words.length, words.length - end + 4)).join(' ');
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  };
  return { what: 'text', served: clip(a), live: clip(b) };
}

function diffList(what: string, served: string[], live: string[]): LiveDifference | undefined {
  const shown = (list: string[]) => (list.length === 0 ? '(none)' : list.join('\n'));
  if (served.length === live.length && served.every((value, index) => value === live[index]))
    return undefined;
  const extra = live.filter((value) => !served.includes(value));
  const gone = served.filter((value) => !live.includes(value));
  if (extra.length === 0 && gone.length === 0) return { what, served: shown(served), live: shown(live) };
  return { what, served: shown(gone), live: shown(extra) };
}

/** How the live view differs from the served one (empty: no change a reader sees or follows). */
export function compareReaderViews(served: ReaderView, live: ReaderView): LiveDifference[] {
  const differences: LiveDifference[] = [];
  if (served.text !== live.text) differences.push(diffText(served.text, live.text));
  for (const what of ['links', 'forms', 'media'] as const) {
    const difference = diffList(what, served[what], live[what]);
    if (difference) differences.push(difference);
  }
  return differences;
}
