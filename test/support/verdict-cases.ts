// The one table of verdict cases every verifier must agree on (issue 21): the CLI in directory and URL
// mode and the verify page in Chromium today; the site manifest, the browser extension and verify-by-URL
// reuse it. Each case is a page of one signed site, tampered the way its name says; `verdict` and `codes`
// are what the rule book must decide for it, whoever gathers the facts.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  analyzePage,
  applySignatureBlock,
  createPageEvent,
  LocalKeySigner,
  type NostrEvent,
  type ProblemCode,
  renderSignatureBlock,
  renderVerifyPage,
  signSite,
  VERIFY_SCRIPT_NAME,
  type Verdict,
} from '@siegel/core';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';

/** One case: a page of the case site and what every verifier must say about it. */
export interface VerdictCase {
  /** The page's path in the site (`{name}.html`). */
  page: string;
  /** What the case stands for. */
  what: string;
  verdict: Verdict;
  /** The problem codes, errors first, in the rule book's order. */
  codes: ProblemCode[];
  /** Which verify page a reader reaches: the page's own (`event`) or the site-wide one by `nevent` (`lookup`, when the event's own is gone). */
  reader: 'event' | 'lookup';
}

export const VERDICT_CASES: VerdictCase[] = [
  // Issue 36: every page whose event is sound is judged against its site manifest too; the case site's
  // manifest is on the site only and no verifier relay holds it, so currency is `manifest.unchecked`.
  {
    page: 'valid.html',
    what: 'signed, untouched',
    verdict: 'valid',
    codes: ['manifest.unchecked'],
    reader: 'event',
  },
  {
    page: 'edited.html',
    what: 'one word of <main> changed after signing',
    verdict: 'invalid',
    codes: ['hash.mismatch', 'block.hash', 'manifest.unchecked'],
    reader: 'event',
  },
  {
    page: 'kind1.html',
    what: 'a kind-1 event with the right x tag, by the same key',
    verdict: 'invalid',
    codes: ['event.kind'],
    reader: 'event',
  },
  {
    page: 'wrong-url.html',
    what: 'an event for this page’s hash, signed for another path on another origin',
    verdict: 'invalid',
    codes: ['event.url', 'manifest.unchecked'],
    reader: 'event',
  },
  {
    // Issue 39: the case site is served on 127.0.0.1, this machine — the owner's preview of a signed site.
    page: 'preview.html',
    what: 'an event for this page’s hash, signed for the same path on another origin (a local preview)',
    verdict: 'valid',
    codes: ['address.preview', 'manifest.unchecked'],
    reader: 'event',
  },
  {
    page: 'bad-sig.html',
    what: 'the event’s signature altered',
    verdict: 'invalid',
    codes: ['event.signature'],
    reader: 'event',
  },
  {
    page: 'other-pubkey.html',
    what: 'a valid event by another key than the block names',
    verdict: 'invalid',
    codes: ['signer.unexpected', 'manifest.unchecked'],
    reader: 'event',
  },
  // Issue 35: what a reader takes from the page besides <main> — where its links go, its title.
  ...(
    [
      ['base-elsewhere.html', 'a <base href> to another origin added after signing', 'page.base'],
      ['base-other.html', 'a same-origin <base href="/other/"> added after signing', 'page.base'],
      ['title-changed.html', 'the <title> changed after signing', 'page.title'],
      ['title-added.html', 'a <title> added to a page signed without one', 'page.title'],
      ['base-self.html', 'a <base href> equal to the page’s own address, added after signing'],
      ['base-recorded.html', 'signed with <base href="/">, which its event records'],
    ] as const
  ).map(
    ([page, what, code]): VerdictCase => ({
      page,
      what,
      verdict: code ? 'invalid' : 'valid',
      // base-self: valid, but its bytes are no longer the manifest's (issue 36: a host's rewrite, a warning).
      codes: code
        ? [code, 'manifest.unchecked']
        : page === 'base-self.html'
          ? ['manifest.unchecked', 'manifest.bytes_differ']
          : ['manifest.unchecked'],
      reader: 'event',
    }),
  ),
  {
    page: 'missing.html',
    what: 'the event in neither the site’s copy nor the relay',
    verdict: 'not_found',
    codes: ['event.not_found'],
    reader: 'lookup',
  },
  ...(
    [
      ['hidden-transparent.html', 'inline `color: transparent` on <main>'],
      ['hidden-offscreen.html', 'inline `position: absolute; left: -99999px` on <main>'],
      ['hidden-object.html', '<main> as the fallback content of an <object> that loads (an SVG of the site)'],
      ['hidden-video.html', '<main> as the fallback content of a <video>, which a browser never shows'],
      ['hidden-tiny.html', 'inline `font-size: 0.5px` on <main>'],
      ['hidden-covered.html', '<main> at `z-index: -1` under an opaque wrapper'],
    ] as const
  ).map(
    ([page, what]): VerdictCase => ({
      page,
      what: `${what}, after signing (hash unchanged)`,
      verdict: 'invalid',
      codes: ['page.not_shown', 'manifest.unchecked'],
      reader: 'event',
    }),
  ),
];

/**
 * How each hiding case of {@link VERDICT_CASES} hides a plain signed page ({@link pageHtml}): only
 * `<main>`'s own tag and what is around it change, so the hash (main's innerHTML) stays the one signed.
 */
export const HIDINGS: Record<string, (html: string) => string> = {
  'hidden-transparent.html': (html) => html.replace('<main>', '<main style="color:transparent">'),
  'hidden-offscreen.html': (html) => html.replace('<main>', '<main style="position:absolute;left:-99999px">'),
  'hidden-object.html': (html) =>
    html
      .replace('<main>', '<object data="cover.svg" type="image/svg+xml"><main>')
      .replace('</main>', '</main></object>'),
  'hidden-video.html': (html) =>
    html.replace('<main>', '<video><main>').replace('</main>', '</main></video>'),
  'hidden-tiny.html': (html) => html.replace('<main>', '<main style="font-size:0.5px">'),
  'hidden-covered.html': (html) =>
    html
      .replace(
        '<main>',
        '<div style="position:relative;z-index:0;background:#fff"><main style="position:relative;z-index:-1">',
      )
      .replace('</main>', '</main></div>'),
};

/** The image the `<object>` of `hidden-object.html` loads in place of its fallback (an opaque square). */
export const COVER_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="150"><rect width="300" height="150" fill="#888"/></svg>';

/** The signing key of the case site (a test key, never used elsewhere), and the other key. */
export const CASE_KEY = '3'.repeat(64);
const OTHER_KEY = '4'.repeat(64);

/** A plain signed-site page: `title`, one paragraph of `body` in `<main>`, `links` in a `<nav>`. */
export const pageHtml = (title: string, body: string, links = '') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
</head>
<body>
<nav>${links}</nav>
<main>
<h1>${title}</h1>
<p>${body}</p>
</main>
</body>
</html>
`;

/** What {@link buildCaseSite} made: the directory, its site URL and each case page's event and block. */
export interface CaseSite {
  dir: string;
  site: string;
  /** Per case page: the event id its block names and that block's `nevent` (without `nostr:`). */
  blocks: Record<string, { eventId: string; nevent: string }>;
}

function secretKey(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/**
 * Write the case site into `dir` (empty or missing) for the site URL `site` (ending in `/`), signed with
 * {@link CASE_KEY} through `signSite` (nothing published), then tamper each case page as its case says.
 * `relay` is the relay the tampered blocks name (the `missing` case's event is on neither the site nor it).
 */
export async function buildCaseSite(dir: string, site: string, relay: string): Promise<CaseSite> {
  const links = VERDICT_CASES.map((c) => `<a href="${c.page}">${c.page}</a>`).join(' ');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'index.html'), pageHtml('Cases', 'The verdict cases.', links));
  for (const c of VERDICT_CASES)
    await writeFile(join(dir, c.page), pageHtml(c.page, c.what.replace(/</g, '&lt;').replace(/>/g, '&gt;')));
  // Issue 35: pages signed with a `<base href>`, or without a title.
  const head = (page: string, edit: (html: string) => string) =>
    readFile(join(dir, page), 'utf8').then((html) => writeFile(join(dir, page), edit(html)));
  await head('base-recorded.html', (html) => html.replace('<title>', '<base href="/"><title>'));
  await head('title-added.html', (html) => html.replace(/<title>.*<\/title>\n/, ''));
  await signSite(dir, {
    site,
    signer: new LocalKeySigner(CASE_KEY),
    cacheFile: join(dirname(dir), `${Date.now()}.sign-cache.json`),
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
  const read = (page: string) => readFile(join(dir, page), 'utf8');
  const eventOf = async (page: string): Promise<NostrEvent> => {
    const id = analyzePage(await read(page)).signatureBlock?.eventId as string;
    return JSON.parse(await readFile(join(dir, 'verify', `${id}.json`), 'utf8')) as NostrEvent;
  };
  const scriptPath = `${new URL(site).pathname.replace(/\/+$/, '')}/verify/${VERIFY_SCRIPT_NAME}`;
  /** Write `event` as the site's copy (JSON and verify page) and make `page`'s block name it. */
  const publish = async (page: string, event: NostrEvent, blockEvent: NostrEvent = event) => {
    await mkdir(join(dir, 'verify', event.id), { recursive: true });
    await writeFile(join(dir, 'verify', `${event.id}.json`), JSON.stringify(event));
    await writeFile(
      join(dir, 'verify', event.id, 'index.html'),
      renderVerifyPage({ event, pageUrl: new URL(page, site).href, pagePath: `/${page}`, scriptPath }),
    );
    const html = await read(page);
    const block = renderSignatureBlock(blockEvent, {
      verifyUrl: `${site}verify/${event.id}`,
      relays: [relay],
    });
    await writeFile(join(dir, page), applySignatureBlock(html, analyzePage(html), block));
  };
  const resign = (template: ReturnType<typeof createPageEvent>, key = CASE_KEY) =>
    finalizeEvent(template, secretKey(key));
  const templateOf = async (page: string, url = new URL(page, site).href) =>
    createPageEvent({ hash: analyzePage(await read(page)).hash as string, url, title: page });

  // edited: one word of <main> changes after signing.
  await writeFile(join(dir, 'edited.html'), (await read('edited.html')).replace('changed', 'chanced'));
  // kind1: the same hash and url, but a kind-1 note.
  await publish('kind1.html', resign({ ...(await templateOf('kind1.html')), kind: 1 }));
  // wrong-url: signed for another path on another origin. The same path there, found on this loopback
  // server, is a local preview (preview.html); on another machine it would be `event.url` (rules.test.ts).
  await publish(
    'wrong-url.html',
    resign(await templateOf('wrong-url.html', 'https://elsewhere.example/copied/wrong-url.html')),
  );
  await publish(
    'preview.html',
    resign(await templateOf('preview.html', 'https://docs.example/preview.html')),
  );
  // bad-sig: the site's copy of the event with one character of its signature changed.
  const signed = await eventOf('bad-sig.html');
  await publish('bad-sig.html', {
    ...signed,
    sig: signed.sig.replace(/^./, signed.sig[0] === 'a' ? 'b' : 'a'),
  });
  // other-pubkey: a valid event by another key; the block still names the site's key.
  const other = resign(await templateOf('other-pubkey.html'), OTHER_KEY);
  await publish('other-pubkey.html', other, other);
  const otherPubkey = getPublicKey(secretKey(OTHER_KEY));
  const ownPubkey = getPublicKey(secretKey(CASE_KEY));
  await writeFile(
    join(dir, 'other-pubkey.html'),
    (await read('other-pubkey.html')).replace(
      `<meta name="nostr:pubkey" content="${otherPubkey}">`,
      `<meta name="nostr:pubkey" content="${ownPubkey}">`,
    ),
  );
  // Issue 35: a <base href> or a title added or changed after signing.
  const addBase = (href: string) => (html: string) => html.replace('<title>', `<base href="${href}"><title>`);
  await head('base-elsewhere.html', addBase('https://evil.example/'));
  await head('base-other.html', addBase('/other/'));
  await head('base-self.html', addBase('base-self.html'));
  await head('title-changed.html', (html) => html.replace(/<title>.*<\/title>/, '<title>Forged</title>'));
  await head('title-added.html', (html) => html.replace('</head>', '<title>Added</title>\n</head>'));
  // missing: the site's copy deleted; the block names the relay, which never had it.
  const gone = await eventOf('missing.html');
  const missingHtml = await read('missing.html');
  const missingBlock = renderSignatureBlock(gone, { verifyUrl: `${site}verify/${gone.id}`, relays: [relay] });
  await writeFile(
    join(dir, 'missing.html'),
    applySignatureBlock(missingHtml, analyzePage(missingHtml), missingBlock),
  );
  await rm(join(dir, 'verify', `${gone.id}.json`));
  await rm(join(dir, 'verify', gone.id), { recursive: true });
  // The hidings: the signed page, hidden after signing (issue 35); the block in <head> is kept.
  await writeFile(join(dir, 'cover.svg'), COVER_SVG);
  for (const [page, hide] of Object.entries(HIDINGS))
    await writeFile(join(dir, page), hide(await read(page)));

  const blocks: CaseSite['blocks'] = {};
  for (const c of VERDICT_CASES) {
    const block = analyzePage(await read(c.page)).signatureBlock;
    blocks[c.page] = { eventId: block?.eventId as string, nevent: block?.nevent as string };
  }
  return { dir, site, blocks };
}
