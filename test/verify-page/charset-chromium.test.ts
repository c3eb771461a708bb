// Issue 23, item 4 and acceptance 3: read the bytes as the browser does. A signed page whose bytes a
// browser decodes otherwise than as UTF-8 — a `<meta charset="iso-2022-jp">` with escape sequences around
// `<main>`, a UTF-16 byte order mark (LE and BE), `<meta http-equiv="Content-Type" content="…windows-1252">`,
// or a UTF-8 page served with `Content-Type: text/html; charset=iso-8859-1` — is not valid in `siegel verify`
// DIR, in URL mode and on the verify page in Debian's Chromium, each with `page.encoding` (the header only
// where it is seen: URL mode and the verify page); a UTF-8 byte order mark and `<meta charset="UTF-8">`
// stay valid. The sniffing itself is checked against Chromium's own `document.characterSet`.
// Issue 34: a page of plain ASCII bytes declared in an ASCII-compatible legacy encoding (`<meta charset=
// "ascii">`, windows-1252, shift_jis, or an HTTP charset iso-8859-1) is signed and valid everywhere, as an
// undeclared ASCII page is — Chromium reads its `<main>` exactly as DOMParser reads the bytes as UTF-8.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, LocalKeySigner, signSite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkEncoding, sniffEncoding } from '../../packages/core/src/page/encoding.js';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { readInDOMParser } from '../support/dom-parser.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { CASE_KEY } from '../support/verdict-cases.js';

// The verify page test opens the 12 cases' verify pages one after another: 12 s measured on an idle
// 2-core machine, 43 s with other files running beside it (load average 20).
vi.setConfig({ testTimeout: 90_000 });

interface JsonReport {
  pages: Array<{ page: string; verdict: string; problems: Array<{ code: string }> }>;
}

const LATIN1 = 'text/html; charset=iso-8859-1';
const page = (title: string, head = '<meta charset="utf-8">') => `<!doctype html>
<html lang="de">
<head>
${head}
<title>${title}</title>
</head>
<body>
<main>
<h1>${title}</h1>
<p>Grüße aus Köln — 3 × 4 € — ✓</p>
</main>
</body>
</html>
`;

/** A page of plain ASCII bytes: character references stand for Grüße, €, ✓; `\\` and `~` are ASCII too. */
const asciiPage = (title: string, head: string) =>
  page(title, head).replace(
    'Grüße aus Köln — 3 × 4 € — ✓',
    'Gr&uuml;&szlig;e aus K&ouml;ln &mdash; 3 &times; 4 &euro; &mdash; &#x2713; C:\\Users\\yen ~tilde',
  );

const ESC = '\x1b';
/**
 * Per page: its head when not `<meta charset="utf-8">` (`ascii`: the page is plain ASCII bytes), how it is
 * tampered after signing (bytes outside `<main>` only), and what each verifier says.
 */
const CASES: Record<
  string,
  {
    head?: string;
    ascii?: boolean;
    tamper?: (bytes: Buffer) => Buffer;
    dir: string[];
    served: string[];
    contentType?: string;
  }
> = {
  'meta-utf8-upper.html': { dir: ['valid'], served: ['valid'] },
  'utf8-bom.html': {
    tamper: (bytes) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]),
    dir: ['valid'],
    served: ['valid'],
  },
  'iso-2022-jp.html': {
    // The escape to JIS X 0208 before <main> and back after </main>: a browser reads <main> as kanji.
    tamper: (bytes) =>
      Buffer.from(
        bytes
          .toString('utf8')
          .replace('<meta charset="utf-8">', '<meta charset="iso-2022-jp">')
          .replace('<main>', `${ESC}$B<main>`)
          .replace('</main>', `</main>${ESC}(B`),
        'utf8',
      ),
    dir: ['invalid', 'page.encoding'],
    served: ['invalid', 'page.encoding'],
  },
  'iso-2022-jp-http-utf8.html': {
    // The same tamper, but the host names UTF-8: a browser ignores the <meta> then; a directory cannot know.
    tamper: (bytes) => CASES['iso-2022-jp.html']?.tamper?.(bytes) as Buffer,
    contentType: 'text/html; charset=utf-8',
    dir: ['invalid', 'page.encoding'],
    served: ['valid'],
  },
  'utf16le-bom.html': {
    // A UTF-16 byte order mark in front of the signed UTF-8 bytes: the parse that reads them as UTF-8
    // after it also finds the block in <body> (the mark is text before the doctype).
    tamper: (bytes) => Buffer.concat([Buffer.from([0xff, 0xfe]), bytes]),
    dir: ['invalid', 'block.missing', 'page.encoding'],
    served: ['invalid', 'block.missing', 'page.encoding'],
  },
  'utf16be-bom.html': {
    tamper: (bytes) => Buffer.concat([Buffer.from([0xfe, 0xff]), bytes]),
    dir: ['invalid', 'block.missing', 'page.encoding'],
    served: ['invalid', 'block.missing', 'page.encoding'],
  },
  'cp1252.html': {
    tamper: (bytes) =>
      Buffer.from(
        bytes
          .toString('utf8')
          .replace(
            '<meta charset="utf-8">',
            '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
          ),
        'utf8',
      ),
    dir: ['invalid', 'page.encoding'],
    served: ['invalid', 'page.encoding'],
  },
  'http-latin1.html': {
    // The bytes are untouched; the host sends another charset, which only a fetch sees.
    contentType: LATIN1,
    dir: ['valid'],
    served: ['invalid', 'page.encoding'],
  },
  // Plain ASCII, declared in a legacy encoding from the start: signed by the CLI's signSite, and valid.
  'ascii-cp1252.html': {
    head: '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
    ascii: true,
    dir: ['valid'],
    served: ['valid'],
  },
  'ascii-meta-ascii.html': { head: '<meta charset="ascii">', ascii: true, dir: ['valid'], served: ['valid'] },
  'ascii-shift-jis.html': {
    head: '<meta charset="shift_jis">',
    ascii: true,
    dir: ['valid'],
    served: ['valid'],
  },
  'ascii-http-latin1.html': { ascii: true, contentType: LATIN1, dir: ['valid'], served: ['valid'] },
};
const ASCII_CASES = Object.keys(CASES).filter((name) => CASES[name]?.ascii);

let root: string;
let dir: string;
let server: StaticServer;
let chromium: LaunchedChromium;
const contentTypes: Record<string, string> = {};
const eventIds: Record<string, string> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'siegel-charset-'));
  dir = join(root, 'site');
  await mkdir(dir, { recursive: true });
  server = await serveDirectory(dir, { contentTypes });
  const names = Object.keys(CASES);
  await writeFile(
    join(dir, 'index.html'),
    page('Zeichensätze').replace(
      '<body>',
      `<body><nav>${names.map((name) => `<a href="${name}">${name}</a>`).join(' ')}</nav>`,
    ),
  );
  for (const name of names) {
    const c = CASES[name];
    await writeFile(
      join(dir, name),
      c?.ascii
        ? asciiPage(name, c.head ?? '<meta charset="utf-8">')
        : page(name, name === 'meta-utf8-upper.html' ? '<meta charset="UTF-8">' : undefined),
    );
  }
  const summary = await signSite(dir, {
    site: server.url,
    signer: new LocalKeySigner(CASE_KEY),
    cacheFile: join(root, 'sign-cache.json'),
    logger: { info: () => {}, warn: () => {} },
    progress: false,
    parseWorkers: 0,
  });
  expect(summary.signed).toBe(names.length + 1);
  for (const [name, c] of Object.entries(CASES)) {
    const signed = await readFile(join(dir, name));
    eventIds[name] = analyzePage(signed.toString('utf8')).signatureBlock?.eventId as string;
    if (c.tamper) await writeFile(join(dir, name), c.tamper(signed));
    // A host that sends no charset (the test server's default names UTF-8, which outranks any <meta>).
    contentTypes[name] = c.contentType ?? 'text/html';
  }
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

function verdicts(report: JsonReport, name: (page: string) => string): Record<string, string[]> {
  return Object.fromEntries(
    Object.keys(CASES).map((page) => {
      const found = report.pages.find((p) => p.page === name(page));
      return [page, found ? [found.verdict, ...found.problems.map((p) => p.code)] : ['(not judged)']];
    }),
  );
}

describe('a page a browser would not decode as UTF-8 is not valid, in every verifier', () => {
  it('the example pages read in Chromium as the cases say (the oracle)', async () => {
    const tab = await chromium.context.newPage();
    const seen: Record<string, string> = {};
    for (const name of Object.keys(CASES)) {
      await tab.goto(`${server.url}${name}`);
      seen[name] = await tab.evaluate(() => document.characterSet);
    }
    await tab.close();
    expect(seen).toEqual({
      'meta-utf8-upper.html': 'UTF-8',
      'utf8-bom.html': 'UTF-8',
      'iso-2022-jp.html': 'ISO-2022-JP',
      'iso-2022-jp-http-utf8.html': 'UTF-8',
      'utf16le-bom.html': 'UTF-16LE',
      'utf16be-bom.html': 'UTF-16BE',
      'cp1252.html': 'windows-1252',
      'http-latin1.html': 'windows-1252',
      'ascii-cp1252.html': 'windows-1252',
      'ascii-meta-ascii.html': 'windows-1252',
      'ascii-shift-jis.html': 'Shift_JIS',
      'ascii-http-latin1.html': 'windows-1252',
    });
  });

  it('Chromium reads the <main> of a signed ASCII page in its legacy encoding as its bytes read as UTF-8', async () => {
    const signed = await Promise.all(ASCII_CASES.map((name) => readFile(join(dir, name))));
    // Signed, and still plain ASCII: the block adds no byte beyond it.
    expect(signed.map((bytes) => bytes.every((byte) => byte < 0x80))).toEqual(ASCII_CASES.map(() => true));
    const files = signed.map((bytes) => bytes.toString('utf8'));
    for (const html of files) expect(html).toContain('<meta name="nostr:event"');
    const tab = await chromium.context.newPage();
    const asUtf8 = await tab.evaluate(readInDOMParser, { pages: files, selector: 'main' });
    const seen: string[] = [];
    for (const name of ASCII_CASES) {
      await tab.goto(`${server.url}${name}`);
      seen.push(await tab.evaluate(() => document.querySelector('main')?.innerHTML ?? '(no main)'));
    }
    await tab.close();
    expect(seen).toEqual(asUtf8);
    expect(seen[0]).toContain('Grüße aus Köln — 3 × 4 € — ✓ C:\\Users\\yen ~tilde');
  });

  it('siegel verify DIR --site: page.encoding for the bytes (no header in a directory)', async () => {
    const result = await runCli(['verify', dir, '--site', server.url, '--json'], root);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(verdicts(report, (page) => page)).toEqual(
      Object.fromEntries(
        Object.entries(CASES).map(([name, c]) => [name, withManifest(c.dir, c.tamper !== undefined)]),
      ),
    );
    const text = await runCli(['verify', dir, '--site', server.url], root);
    expect(text.stdout).toContain(
      'not verifiable: the page declares the character encoding iso-2022-jp (at byte 40): browsers decode it as that, not as UTF-8 [page.encoding]',
    );
  });

  it('siegel verify URL: page.encoding, the Content-Type charset included', async () => {
    const result = await runCli(['verify', server.url, '--json'], root);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(verdicts(report, (page) => new URL(page, server.url).href)).toEqual(
      Object.fromEntries(
        Object.entries(CASES).map(([name, c]) => [name, withManifest(c.served, c.tamper !== undefined)]),
      ),
    );
  });

  it('the verify page in Chromium: the same verdicts and codes as URL mode', async () => {
    const tab = await chromium.context.newPage();
    const seen: Record<string, string[]> = {};
    for (const name of Object.keys(CASES)) {
      await tab.goto(`${server.url}verify/${eventIds[name]}/`);
      const status = tab.locator('#siegel-status:not([data-state="pending"])');
      await status.waitFor({ timeout: 30_000 });
      const codes = ((await status.getAttribute('data-codes')) ?? '').split(' ').filter(Boolean);
      seen[name] = [(await status.getAttribute('data-state')) ?? '', ...codes];
      if (name === 'http-latin1.html') {
        // The message's code span is shown as a <code> element (issue 39), not with its backticks.
        expect(await status.textContent()).toContain(
          `not verifiable: the page is served with Content-Type: ${LATIN1}`,
        );
        expect(await status.locator('code').allTextContents()).toContain(`Content-Type: ${LATIN1}`);
      }
    }
    await tab.close();
    expect(seen).toEqual(
      Object.fromEntries(
        Object.entries(CASES).map(([name, c]) => [
          name,
          withManifest(c.served, c.tamper !== undefined, true),
        ]),
      ),
    );
  });
});

/**
 * A case's codes with the site manifest's warnings (issue 36): every page whose event was read is judged
 * against the manifest too, and no verifier relay is in reach here, so its currency is unchecked.
 */
function withManifest(codes: string[], tampered: boolean, verifyPage = false): string[] {
  // Without the block `siegel verify` has no event to judge; the verify page knows its event all the same.
  if (codes.includes('block.missing')) return verifyPage ? [...codes, 'manifest.unchecked'] : codes;
  // A page still valid after its bytes were changed (after signing) no longer has the bytes the manifest
  // pins for it, while naming the same event and loads: manifest.bytes_differ (a warning). An invalid one
  // has its error instead.
  return codes[0] === 'valid' && tampered
    ? [...codes, 'manifest.unchecked', 'manifest.bytes_differ']
    : [...codes, 'manifest.unchecked'];
}

/** Bytes and a Content-Type; what Chromium decodes them as must be what `sniffEncoding` says. */
const SNIFF: Array<[string, Uint8Array, string?]> = (() => {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const doc = (head: string) =>
    utf8(`<!doctype html><html><head>${head}<title>t</title></head><body><main>x</main>`);
  const pad = `<!--${'x'.repeat(1024)}-->`;
  return [
    ['meta utf8 label', doc('<meta charset="utf8">')],
    ['meta unicode-1-1-utf-8', doc('<meta charset="unicode-1-1-utf-8">')],
    ['meta latin1', doc('<meta charset="latin1">')],
    ['meta utf-16 means utf-8', doc('<meta charset="utf-16">')],
    ['meta x-user-defined', doc('<meta charset="x-user-defined">')],
    ['meta sjis', doc('<meta charset="sjis">')],
    ['meta euc-kr', doc('<meta charset="euc-kr">')],
    ['http-equiv koi8-r', doc('<meta http-equiv="content-type" content="text/html; charset=koi8-r">')],
    ['content without http-equiv', doc('<meta content="text/html; charset=koi8-r"><meta charset="utf-8">')],
    ['comment first', doc('<!-- <meta charset="latin1"> --><meta charset="iso-8859-2">')],
    ['attribute value first', doc('<link title="<meta charset=latin1>"><meta charset="iso-8859-5">')],
    ['xml declaration', utf8('<?xml version="1.0" encoding="windows-1251"?><!doctype html><main>x</main>')],
    ['http beats meta', doc('<meta charset="latin1">'), 'text/html; charset=utf-8'],
    ['http latin1', doc('<meta charset="utf-8">'), 'text/html;charset="ISO-8859-1"'],
    ['http unknown label: meta', doc('<meta charset="iso-8859-7">'), 'text/html; charset=nonsense'],
    ['bom beats http', Uint8Array.from([0xef, 0xbb, 0xbf, ...doc('')]), 'text/html; charset=latin1'],
    ['utf-16le bom', Uint8Array.from([0xff, 0xfe, ...doc('')])],
    // Past 1024 bytes the prescan finds nothing, but Chromium still switches: why checkEncoding refuses it
    // (when the bytes are not plain ASCII).
    ['late meta latin1', doc(`${pad}<meta charset="latin1">`)],
  ];
})();

describe('sniffEncoding decides as Chromium decides', () => {
  it('document.characterSet is the sniffed encoding for every row that declares one', async () => {
    await mkdir(join(dir, 'sniff'), { recursive: true });
    const expected: Record<string, string | undefined> = {};
    for (const [index, [name, bytes, type]] of SNIFF.entries()) {
      await writeFile(join(dir, 'sniff', `${index}.html`), bytes);
      contentTypes[`sniff/${index}.html`] = type ?? 'text/html';
      expected[name] = sniffEncoding(bytes, { contentType: type ?? 'text/html' }).encoding ?? '(none)';
    }
    const tab = await chromium.context.newPage();
    const seen: Record<string, string> = {};
    for (const [index, [name]] of SNIFF.entries()) {
      await tab.goto(`${server.url}sniff/${index}.html`);
      const set = (await tab.evaluate(() => document.characterSet)).toLowerCase();
      seen[name] = expected[name] === '(none)' ? `(none), Chromium: ${set}` : set;
    }
    await tab.close();
    expect(seen).toEqual({ ...expected, 'late meta latin1': '(none), Chromium: windows-1252' });
    // Its bytes are plain ASCII, which windows-1252 reads as UTF-8 does; one byte beyond ASCII, and the switch counts.
    const late = SNIFF.find(([name]) => name === 'late meta latin1')?.[1] as Uint8Array;
    expect(checkEncoding(late)).toBeUndefined();
    expect(checkEncoding(Uint8Array.from([...late, 0xc3, 0xbc]))?.message).toMatch(
      /windows-1252 in a <meta> at byte \d+, and browsers may switch/,
    );
  });
});

/** Every byte below 0x80 but ISO-2022's ESC, SO and SI: what checkEncoding calls plain ASCII. */
const PLAIN_ASCII = Uint8Array.from({ length: 0x80 }, (_, byte) => byte).filter(
  (byte) => byte !== 0x1b && byte !== 0x0e && byte !== 0x0f,
);

describe('plain ASCII reads alike under every ASCII-compatible encoding, in Chromium', () => {
  it('a <main> of every plain ASCII byte is what DOMParser reads from the bytes as UTF-8; ISO-2022-JP is not', async () => {
    const labels = [
      'ascii',
      'windows-1252',
      'iso-8859-2',
      'iso-8859-8-i',
      'ibm866',
      'koi8-r',
      'macintosh',
      'x-mac-cyrillic',
      'windows-874',
      'gbk',
      'gb18030',
      'big5',
      'euc-jp',
      'shift_jis',
      'euc-kr',
      'x-user-defined',
    ];
    const rows: Array<[string, Uint8Array, string]> = [
      ...labels.map((label): [string, Uint8Array, string] => [
        `meta ${label}`,
        Buffer.concat([Buffer.from(`<meta charset="${label}"><main>`), PLAIN_ASCII, Buffer.from('</main>')]),
        'text/html',
      ]),
      ...['shift_jis', 'x-user-defined', 'koi8-u'].map((label): [string, Uint8Array, string] => [
        `http ${label}`,
        Buffer.concat([Buffer.from('<main>'), PLAIN_ASCII, Buffer.from('</main>')]),
        `text/html; charset=${label}`,
      ]),
      // The control: ISO-2022-JP's ESC $ B makes the ASCII bytes after it kanji.
      [
        'meta iso-2022-jp, escaped',
        Buffer.from('<meta charset="iso-2022-jp"><main>\x1b$B$3$s\x1b(B</main>'),
        'text/html',
      ],
    ];
    await mkdir(join(dir, 'ascii'), { recursive: true });
    for (const [index, [, bytes, type]] of rows.entries()) {
      await writeFile(join(dir, 'ascii', `${index}.html`), bytes);
      contentTypes[`ascii/${index}.html`] = type;
    }
    const tab = await chromium.context.newPage();
    const asUtf8 = await tab.evaluate(readInDOMParser, {
      pages: rows.map(([, bytes]) => new TextDecoder().decode(bytes)),
      selector: 'main',
    });
    const seen: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [index, [name, bytes, type]] of rows.entries()) {
      await tab.goto(`${server.url}ascii/${index}.html`);
      const main = await tab.evaluate(() => document.querySelector('main')?.innerHTML ?? '(no main)');
      seen[name] = main === asUtf8[index] ? 'as UTF-8' : `otherwise: ${JSON.stringify(main)}`;
      expected[name] = checkEncoding(bytes, { contentType: type }) ? 'refused' : 'as UTF-8';
    }
    await tab.close();
    expect(Object.values(expected).filter((verdict) => verdict === 'as UTF-8')).toHaveLength(rows.length - 1);
    expect(seen).toEqual({ ...expected, 'meta iso-2022-jp, escaped': 'otherwise: "こん"' });
    expect(expected['meta iso-2022-jp, escaped']).toBe('refused');
  });
});
