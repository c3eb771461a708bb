// Issue 23, item 4 and acceptance 3: read the bytes as the browser does. A signed page whose bytes a
// browser decodes otherwise than as UTF-8 — a `<meta charset="iso-2022-jp">` with escape sequences around
// `<main>`, a UTF-16 byte order mark (LE and BE), `<meta http-equiv="Content-Type" content="…windows-1252">`,
// or a UTF-8 page served with `Content-Type: text/html; charset=iso-8859-1` — is not valid in `siegel verify`
// DIR, in URL mode and on the verify page in Debian's Chromium, each with `page.encoding` (the header only
// where it is seen: URL mode and the verify page); a UTF-8 byte order mark and `<meta charset="UTF-8">`
// stay valid. The sniffing itself is checked against Chromium's own `document.characterSet`.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, LocalKeySigner, signSite } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEncoding, sniffEncoding } from '../../packages/core/src/page/encoding.js';
import { runCli } from '../../packages/core/test/support/run-cli.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';
import { CASE_KEY } from '../support/verdict-cases.js';

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

const ESC = '\x1b';
/** Per page: how it is tampered after signing (bytes outside `<main>` only) and what each verifier says. */
const CASES: Record<
  string,
  { tamper?: (bytes: Buffer) => Buffer; dir: string[]; served: string[]; contentType?: string }
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
};

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
  for (const name of names)
    await writeFile(
      join(dir, name),
      page(name, name === 'meta-utf8-upper.html' ? '<meta charset="UTF-8">' : undefined),
    );
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
    });
  });

  it('siegel verify DIR --site: page.encoding for the bytes (no header in a directory)', async () => {
    const result = await runCli(['verify', dir, '--site', server.url, '--json'], root);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(verdicts(report, (page) => page)).toEqual(
      Object.fromEntries(Object.entries(CASES).map(([name, c]) => [name, c.dir])),
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
      Object.fromEntries(Object.entries(CASES).map(([name, c]) => [name, c.served])),
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
      if (name === 'http-latin1.html')
        expect(await status.textContent()).toContain(
          `not verifiable: the page is served with \`Content-Type: ${LATIN1}\``,
        );
    }
    await tab.close();
    expect(seen).toEqual(Object.fromEntries(Object.entries(CASES).map(([name, c]) => [name, c.served])));
  });
});

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
    // Past 1024 bytes the prescan finds nothing, but Chromium still switches: why checkEncoding refuses it.
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
    const late = SNIFF.find(([name]) => name === 'late meta latin1')?.[1] as Uint8Array;
    expect(checkEncoding(late)?.message).toMatch(
      /windows-1252 in a <meta> at byte \d+, and browsers may switch/,
    );
  });
});
