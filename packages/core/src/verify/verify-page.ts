import { readFile } from 'node:fs/promises';
import type { NostrEvent } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import { encodeNevent, encodeNpub } from '../nostr/bech32.js';
import { MARK_SCRIPT_NAME } from '../options/mark-options.js';
import { readEventSpec } from '../page/parse.js';
import { DEFAULT_SELECTOR } from '../page/selector.js';
import { escapeHtml } from '../page/signature-block.js';

/** File name of the one shared browser script every verify page loads (written next to the verify pages). */
export const VERIFY_SCRIPT_NAME = 'siegel-verify.js';

/** File name of the site-wide verify page, `verify/index.html`: it checks the event named in its URL. */
export const LOOKUP_PAGE_NAME = 'index.html';

/** Input of {@link renderVerifyPage}. */
export interface VerifyPageInput {
  /** The signed page event (kind 1063). Required. */
  event: NostrEvent;
  /** Absolute URL of the signed page, shown and linked. Required. */
  pageUrl: string;
  /**
   * URL path of the page, e.g. `/blog/x/`, either site-relative or from the origin including the site's
   * base path (`/docs/blog/x/` when `scriptPath` is `/docs/verify/…`); the check fetches it. Required.
   */
  pagePath: string;
  /** URL path of the shared script, e.g. `/verify/siegel-verify.js` (`/docs/verify/…` under a base path). Required. */
  scriptPath: string;
  /** The selector the hash covers. Default `'main'`. */
  selector?: string;
}

/**
 * The site's base path as revealed by a root-relative `scriptPath` that ends in `/verify/{script}`:
 * `/docs/verify/siegel-verify.js` → `/docs`, `/verify/siegel-verify.js` → `` (site at the domain root).
 */
function readBasePath(scriptPath: string): string {
  return /^(\/[^?#]*?)?\/verify\/[^/?#]+$/.exec(scriptPath)?.[1] ?? '';
}

/**
 * A root-relative path (`/x/y`, with or without the site's base path) rewritten relative to
 * `verify/{id}/index.html`, so the verify page works wherever the site is served — at its real URL, under a
 * sub-path, or from a local preview at another base; other values (absolute or relative URLs) are kept.
 */
function fromVerifyDirectory(path: string, basePath: string): string {
  if (!path.startsWith('/') || path.startsWith('//')) return path;
  const inSite =
    basePath !== '' && (path === basePath || path.startsWith(`${basePath}/`))
      ? path.slice(basePath.length)
      : path;
  return `../..${inSite || '/'}`;
}

/** JSON that can sit inside `<script type="application/json">` without ending it. */
function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function readTag(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((tag) => tag[0] === name)?.[1];
}

/** One signer signs a whole site: encode its npub once, not per page. */
let lastNpub: { pubkey: string; npub: string } | undefined;
function npubOf(pubkey: string): string {
  if (lastNpub?.pubkey !== pubkey) lastNpub = { pubkey, npub: encodeNpub(pubkey) };
  return lastNpub.npub;
}

/**
 * The static verify page for one signed page (`verify/{event id}/index.html`): the event, who signed it
 * (npub), when, the page it covers, and a check that runs in the reader's browser with no network but
 * the site itself (once valid, the signer's NIP-05 name is looked up on the relays the page's block names
 * and confirmed by its domain, see script/identity.ts). The check lives in the shared script ({@link VERIFY_SCRIPT_NAME}, see
 * {@link readVerifyScript}); the event is embedded as JSON. When the check says valid, the script un-hides
 * the "What was signed" section (`#siegel-content`): the signed content rendered in an iframe with an empty
 * `sandbox` and as HTML text (the page's `frame-src 'none'` keeps a link clicked in that frame from loading
 * anything). Without JavaScript the page still shows the facts and says that the check needs JavaScript.
 *
 * @example
 * ```ts
 * const html = renderVerifyPage({
 *   event, pageUrl: 'https://example.com/blog/x/', pagePath: '/blog/x/',
 *   scriptPath: `/verify/${VERIFY_SCRIPT_NAME}`, selector: 'main',
 * });
 * await writeFile(`dist/verify/${event.id}/index.html`, html);
 * ```
 * @throws {SiegelError} `invalid_options` when the event pubkey is not valid hex.
 */
export function renderVerifyPage(input: VerifyPageInput): string {
  const { event } = input;
  const selector = input.selector ?? DEFAULT_SELECTOR;
  let npub: string;
  let nevent: string;
  try {
    npub = npubOf(event.pubkey);
    nevent = encodeNevent({ id: event.id, author: event.pubkey, kind: event.kind });
  } catch (cause) {
    throw new SiegelError('invalid_options', `The event \`${event.id}\` has an invalid id or pubkey.`, {
      cause,
    });
  }
  const title = event.content || input.pageUrl;
  const signedAt = new Date(event.created_at * 1000).toISOString();
  const hash = readTag(event, 'x') ?? '';
  const covered = selector === DEFAULT_SELECTOR ? 'main.innerHTML' : `innerHTML of ${selector}`;
  const basePath = readBasePath(input.scriptPath);
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
${pageHead(`Signature check: ${e(title)}`)}
<body>
<main>
<h1>Signature check</h1>
<p id="siegel-status" role="status" data-state="pending" data-page="${e(fromVerifyDirectory(input.pagePath, basePath))}" data-selector="${e(selector)}">Checking the signature…</p>
${checkedPage(input.pageUrl)}
<noscript><p>The check runs in your browser and needs JavaScript. Without it, compare the facts below by hand: the page hash is the SHA-256 of <code>${e(covered)}</code>.</p></noscript>
<dl>
<dt>Page</dt><dd><a href="${e(input.pageUrl)}">${e(title)}</a><br><code>${e(input.pageUrl)}</code></dd>
<dt>Signed by</dt><dd><code>${e(npub)}</code></dd>
<dt>Signed at</dt><dd><time datetime="${e(signedAt)}">${e(signedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time></dd>
<dt>Page hash (SHA-256 of <code>${e(covered)}</code>)</dt><dd><code>${e(hash)}</code></dd>
<dt>Nostr event</dt><dd><code>${e(event.id)}</code> · <a href="../${e(event.id)}.json">JSON</a> · <a href="nostr:${e(nevent)}">nostr:${e(nevent.slice(0, 20))}…</a></dd>
</dl>
<section id="siegel-content" hidden>
<h2>What was signed</h2>
<p>The frame shows the signed element’s content (<code>${e(covered)}</code>, exactly what was hashed) rendered without scripts, without the site’s stylesheets and without the network, so it may look plainer than the page; its HTML source follows below.</p>
<iframe id="siegel-content-frame" sandbox title="The signed content, rendered without scripts, site stylesheets or network"></iframe>
<pre id="siegel-content-text"></pre>
</section>
${independentCheck(input.pageUrl)}
<p>Signed with <a href="https://github.com/nostr-protocol/nips/blob/master/94.md">NIP-94</a> (spec <code>${e(readEventSpec(event) ?? 'unknown')}</code>). The check recomputes the event id, verifies the Schnorr signature, fetches the page and recomputes its hash with the same HTML parser the signer used.</p>
</main>
<script type="application/json" id="siegel-event">${embedJson(event)}</script>
<script src="${e(fromVerifyDirectory(input.scriptPath, basePath))}" defer></script>
</body>
</html>
`;
}

/** Input of {@link renderLookupPage}. */
export interface LookupPageInput {
  /** The site's public URL (`SITE_URL`): only events for pages under it are checked here. Required. */
  site: string;
  /** The selector the hash covers. Default `'main'`. */
  selector?: string;
}

/**
 * The site-wide verify page, `verify/index.html`, for an event whose own verify page is missing: opened as
 * `verify/#nevent1…` (the block's `nostr:` link; or `verify/#{event id}`), its script reads
 * `verify/{id}.json` from the site, or, when that is missing, asks the `nevent`'s relay hints for the event
 * (browser WebSocket; only an event with that id and a valid signature counts), shows who signed it, when,
 * and where the event came from, and checks the page as a verify page does. It checks only pages under
 * `site` (the event's `url` tag), fetched from where this page is served (`../` is the site's root).
 *
 * @example
 * ```ts
 * await writeFile('dist/verify/index.html', renderLookupPage({ site: 'https://example.com/', selector: 'main' }));
 * ```
 */
export function renderLookupPage(input: LookupPageInput): string {
  const selector = input.selector ?? DEFAULT_SELECTOR;
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
${pageHead('Signature check')}
<body>
<main>
<h1>Signature check</h1>
<p id="siegel-status" role="status" data-state="pending" data-lookup="" data-site="${e(input.site)}" data-selector="${e(selector)}">Looking for the signature event…</p>
${checkedPage()}
<noscript><p>The check runs in your browser and needs JavaScript.</p></noscript>
<p>Open this page with the signature's Nostr event after <code>#</code>: <code>verify/#nevent1…</code> (the page's <code>nostr:</code> link) or <code>verify/#{event id}</code>.</p>
<dl id="siegel-facts" hidden>
<dt>Page</dt><dd><a id="siegel-fact-page"></a></dd>
<dt>Signed by</dt><dd><code id="siegel-fact-signer"></code></dd>
<dt>Signed at</dt><dd><code id="siegel-fact-time"></code></dd>
<dt>Nostr event</dt><dd><code id="siegel-fact-event"></code><br>from <code id="siegel-fact-source"></code></dd>
</dl>
<section id="siegel-content" hidden>
<h2>What was signed</h2>
<p>The frame shows the signed element’s content rendered without scripts, without the site’s stylesheets and without the network, so it may look plainer than the page; its HTML source follows below.</p>
<iframe id="siegel-content-frame" sandbox title="The signed content, rendered without scripts, site stylesheets or network"></iframe>
<pre id="siegel-content-text"></pre>
</section>
${independentCheck()}
</main>
<script src="${VERIFY_SCRIPT_NAME}" defer></script>
</body>
</html>
`;
}

/**
 * The source of the one shared verify script ({@link VERIFY_SCRIPT_NAME}): parse5 and a Schnorr
 * verifier bundled into a single classic script, built with the package. Write it once per site, e.g.
 * to `dist/verify/siegel-verify.js`.
 *
 * @example
 * ```ts
 * await writeFile(join(outDir, 'verify', VERIFY_SCRIPT_NAME), await readVerifyScript());
 * ```
 * @throws {SiegelError} `io_error` when the bundle is missing (the package was not built: run `npm run build`).
 */
export function readVerifyScript(): Promise<string> {
  return readBundledScript(VERIFY_SCRIPT_NAME, 'verify script');
}

/**
 * The source of the reader's mark ({@link MARK_SCRIPT_NAME}, docs/mark.md): the `<siegel-mark>` element as
 * one small classic script, built with the package. A run with the `mark` option writes it to `verify/`.
 * @throws {SiegelError} `io_error` when the bundle is missing (the package was not built: run `npm run build`).
 */
export function readMarkScript(): Promise<string> {
  return readBundledScript(MARK_SCRIPT_NAME, 'mark script');
}

/** A browser script `scripts/build-verify-script.mjs` bundled into the package's `dist/`. */
async function readBundledScript(name: string, what: string): Promise<string> {
  // From dist/verify/verify-page.js and from src/verify/verify-page.ts alike this is the package's dist/ folder.
  const url = new URL(`../../dist/${name}`, import.meta.url);
  try {
    return await readFile(url, 'utf8');
  } catch (cause) {
    throw new SiegelError(
      'io_error',
      `The ${what} \`${url.pathname}\` is missing; build @siegel/core first (\`npm run build\`).`,
      { cause },
    );
  }
}

/**
 * The first fact beside the verdict on both verify pages: the address of the page checked (the script puts
 * in the address it fetched; the lookup page's is hidden until its event names one), and the place where
 * the script says whether the reader came from that page (`#siegel-referrer`, see script/checked-page.ts).
 */
function checkedPage(pageUrl?: string): string {
  const url = pageUrl === undefined ? '' : escapeHtml(pageUrl);
  return `<p id="siegel-checked"${pageUrl === undefined ? ' hidden' : ''}>Checked page: <a id="siegel-checked-page" href="${url}">${url}</a></p>
<p id="siegel-referrer" hidden></p>`;
}

/**
 * The sentence both verify pages carry: this check comes from the site it checks, and how to check without
 * trusting the site (the CLI, run by the reader; `pageUrl` fills in the command when known).
 */
function independentCheck(pageUrl?: string): string {
  const target = pageUrl ? escapeHtml(pageUrl) : '{page URL}';
  return `<p id="siegel-independent">This check is served by the site itself; to check without trusting the site, run the Siegel CLI on your own machine: <code>npx -p @siegel/core siegel verify ${target}</code>.</p>`;
}

/** The `<head>` both verify pages share: meta tags, `title` (already escaped) and the style sheet. */
function pageHead(title: string): string {
  return `<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta http-equiv="Content-Security-Policy" content="frame-src 'none'">
<title>${title}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
code{font-size:.85em;word-break:break-all}dt{font-weight:600;margin-top:.6rem}dd{margin:0}
#siegel-status{padding:.8rem 1rem;border-radius:.4rem;background:#f1f1f4;font-weight:600}
#siegel-status[data-state=valid]{background:#e3f6e8;color:#0d5b23}
#siegel-status[data-state=invalid],#siegel-status[data-state=error]{background:#fde8e8;color:#8a1111}
#siegel-status[data-state=not_found]{background:#fff4d6;color:#6b4a00}
#siegel-checked a{word-break:break-all}
#siegel-referrer{padding:.6rem 1rem;border-radius:.4rem;background:#f1f1f4}
#siegel-referrer[data-referrer=other]{background:#fff4d6;color:#6b4a00;font-weight:600}
#siegel-content-frame{display:block;width:100%;height:24rem;border:1px solid #d2d2d7;border-radius:.4rem;box-sizing:border-box}
#siegel-content-text{white-space:pre-wrap;overflow-wrap:anywhere;max-height:24rem;overflow:auto;padding:.8rem;border-radius:.4rem;background:#f6f6f8;font-size:.8rem}
</style>
</head>`;
}
