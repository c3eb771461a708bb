/**
 * The reader's mark (docs/mark.md): the custom element `<siegel-mark>`, bundled for the browser by
 * `scripts/build-verify-script.mjs` into `siegel-mark.js`, which a signing run with the `mark` option writes
 * to `verify/` and names in each signed page's block (`<script src="…/verify/siegel-mark.js" defer>`).
 *
 * It invites the reader to check who signed the page and states no verdict of its own — the site runs this
 * script, and a site cannot vouch for itself: it shows the signer the block names as a claim, and links to
 * the checks that judge the page — the page's verify page, a file server's verify-by-URL
 * (`{server}/verify?url={this page}`), the browser extension. Settings: the script tag's `data-server` and
 * `data-extension`, overridden by the element's `server` and `extension` attributes.
 *
 * It never touches the signed element: it renders into its own shadow root, stays empty when placed inside
 * the signed element, and a page without a `<siegel-mark>` gets one appended to `<body>` (unless `<body>`
 * is, or lies in, the signed element). Every page-supplied value becomes text or a checked http(s) link.
 */
import { encodeNpub } from '../../nostr/bech32.js';
import { EXTENSION_README_URL, httpUrl, verifyByUrlLink } from '../check-links.js';

const TITLE = 'Check who signed this page';
const STYLE = `:host{display:block;margin:1em 0;font:inherit;color:inherit}
section{border:1px solid;border-color:color-mix(in srgb,currentColor 35%,transparent);border-radius:.4em;padding:.6em .9em}
p{margin:.3em 0}strong{font-weight:600}code{font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}
ul{margin:.3em 0;padding-left:1.2em}a{color:inherit;text-decoration:underline}small{opacity:.8}`;

/** The settings the block's script tag carries (read while it runs: `currentScript` is gone later). */
const tag = document.currentScript as HTMLScriptElement | null;
const configured = { server: tag?.dataset.server, extension: tag?.dataset.extension };
/** The address the page was loaded at: a client-side router may show another one later. */
const loadedPath = location.pathname;

/** What the page's block in `<head>` says (as core's block reader: the first of each, names lowercased). */
interface BlockClaim {
  signer: string | undefined;
  verifyUrl: string | undefined;
  selector: string;
}

function readBlock(): BlockClaim {
  const claim: BlockClaim = { signer: undefined, verifyUrl: undefined, selector: 'main' };
  for (const node of Array.from(document.head?.childNodes ?? [])) {
    if (node.nodeType === Node.COMMENT_NODE) {
      const text = node.textContent ?? '';
      if (/^\s*siegel-page\//.test(text))
        claim.selector = /innerHTML of (.+?)\s*$/.exec(text)?.[1] ?? claim.selector;
    } else if (node instanceof HTMLMetaElement && node.name.toLowerCase() === 'nostr:pubkey') {
      claim.signer ??= node.content.trim();
    } else if (node instanceof HTMLLinkElement && node.relList.contains('nostr-verification')) {
      claim.verifyUrl ??= node.href;
    }
  }
  return claim;
}

/** The signer as shown: an `npub` for a hex key, an `npub` as it is, anything else as its text (cut short). */
function showSigner(value: string): string {
  if (/^[0-9a-f]{64}$/i.test(value)) return encodeNpub(value.toLowerCase());
  return value.length > 120 ? `${value.slice(0, 120)}…` : value;
}

/** The signed element, when the block's selector finds one. */
function signedElement(selector: string): Element | null {
  try {
    return document.querySelector(selector);
  } catch {
    return document.querySelector('main');
  }
}

function element<K extends keyof HTMLElementTagNameMap>(
  name: K,
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(name);
  node.append(...children);
  return node;
}

function link(url: URL, text: string, note: string): HTMLLIElement {
  const anchor = element('a', text);
  anchor.href = url.href;
  anchor.rel = 'noopener';
  return element('li', anchor, ' ', element('small', note));
}

/** The mark's own style: a constructed sheet (no inline `<style>`, which a page's CSP may refuse). */
function styleRoot(root: ShadowRoot): void {
  if (root.adoptedStyleSheets.length > 0) return;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
    root.adoptedStyleSheets = [sheet];
  } catch {
    root.prepend(element('style', STYLE));
  }
}

class SiegelMark extends HTMLElement {
  static observedAttributes = ['server', 'extension'];
  #root: ShadowRoot | undefined;

  connectedCallback(): void {
    this.render();
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.render();
  }

  render(): void {
    const claim = readBlock();
    // Inside the signed element it shows nothing: what was signed stays as it was signed.
    if (signedElement(claim.selector)?.contains(this)) return;
    this.#root ??= this.attachShadow({ mode: 'open' });
    const section = element('section', element('p', element('strong', TITLE)));
    section.setAttribute('aria-label', TITLE);
    const moved = location.pathname !== loadedPath;
    const items = element('ul');
    if (moved) {
      section.append(
        element('p', 'This page was shown by the site’s script: reload it to check who signed it.'),
      );
    } else {
      const signer = claim.signer ? showSigner(claim.signer) : undefined;
      section.append(
        signer
          ? element(
              'p',
              'The page names its signer: ',
              element('code', signer),
              ' — a claim until a check confirms it.',
            )
          : element('p', 'The page names no signer.'),
      );
      const verify = httpUrl(claim.verifyUrl);
      if (verify) items.append(link(verify, 'The page’s verify page', '(served by this site itself)'));
    }
    const serverBase = httpUrl(this.getAttribute('server') ?? configured.server);
    if (serverBase) {
      const check = verifyByUrlLink(serverBase, location.href);
      items.append(link(check, `Check it on ${serverBase.host}`, '(a server that fetches this page itself)'));
    }
    const extension = httpUrl(this.getAttribute('extension') ?? configured.extension ?? EXTENSION_README_URL);
    if (extension)
      items.append(link(extension, 'The Siegel browser extension', '(checks the page your browser shows)'));
    section.append(
      items,
      element('p', element('small', 'A site cannot vouch for itself: the checks above can.')),
    );
    this.#root.replaceChildren(section);
    styleRoot(this.#root);
  }
}

if (!customElements.get('siegel-mark')) customElements.define('siegel-mark', SiegelMark);

// A page without a mark gets one at the end of <body>, unless <body> is the signed element or inside it.
const body = document.body;
const signed = signedElement(readBlock().selector);
if (body && !document.querySelector('siegel-mark') && !signed?.contains(body))
  body.append(document.createElement('siegel-mark'));

// A client-side router changes the address without a load: the mark follows it.
const rerender = () => {
  for (const mark of Array.from(document.querySelectorAll('siegel-mark')))
    if (mark instanceof SiegelMark) mark.render();
};
addEventListener('popstate', rerender);
(globalThis as { navigation?: EventTarget }).navigation?.addEventListener('navigatesuccess', rerender);
