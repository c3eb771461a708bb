// Acceptance 3 of issue 9: forgeries that kept a page "valid" under siegel-page/1. A page is signed by the
// real `siegel` CLI against a real bunker process; each tamper below is applied to the signed file, and both
// `siegel verify` and the verify page in Chromium must call it invalid (never valid).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSignatureBlock } from '@siegel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSiegel } from '../site/support.js';
import { type RunningBunker, useBunker } from '../support/bunker-process.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';
import { readVerdict } from '../support/read-verdict.js';
import { type StaticServer, serveDirectory } from '../support/static-server.js';

// Timeouts (docs/testing.md): tampered pages through every verifier: 7 s among parallel files
vi.setConfig({ testTimeout: 45_000 });

const PAGE_PATH = 'seals/index.html';
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Order a seal</title>
</head>
<body>
<header><nav><a href="../">Home</a></nav></header>
<main>
<h1>Order a seal</h1>
<select name="kind"><option value="wax">Wax</option><option value="lead">Lead</option></select>
<form action="/order"><div><input name="q"></div></form>
<noscript>&lt;b&gt;&lt;/b&gt; needs no script</noscript>
</main>
</body>
</html>
`;

/** Each tamper: a name and how it changes the signed page (the block and the event stay as signed). */
const TAMPERS: Array<[string, (html: string) => string]> = [
  [
    'an <img> added inside the <select>',
    (html) => html.replace('</option></select>', '</option><img src="https://evil.example/x.png"></select>'),
  ],
  [
    'an attribute added to an <option>',
    (html) => html.replace('<option value="lead">', '<option value="lead" selected>'),
  ],
  ['<main hidden>', (html) => html.replace('<main>', '<main hidden>')],
  ['a second <main> before the signed one', (html) => html.replace('<main>', '<main>evil</main><main>')],
  ['a second <main> after the signed one', (html) => html.replace('</main>', '</main><main>evil</main>')],
  [
    'the signed <main> moved into a <template>',
    (html) =>
      html.replace('<main>', '<template><main>').replace('</main>', '</main></template><main>evil</main>'),
  ],
  // (A nested <form action="https://evil.example/"> was here: the standard drops it with nothing kept, so
  // since issue 23 it changes nothing a browser shows and the page stays valid. A stray <body> whose
  // attribute moves onto the page's own <body> is what an ignored tag can still smuggle in.)
  [
    'a stray <body onload> whose attribute moves onto the page’s <body>',
    (html) =>
      html.replace(
        '<div><input name="q">',
        '<div><body onload="location=\'https://evil.example/\'"><input name="q">',
      ),
  ],
  [
    'one </select> deleted, so the rest of <main> is swallowed into the dropdown',
    (html) => html.replace('</option></select>', '</option>'),
  ],
  [
    'the text &lt;b&gt;&lt;/b&gt; in <noscript> replaced by the element <b></b>',
    (html) => html.replace('&lt;b&gt;&lt;/b&gt; needs', '<b></b> needs'),
  ],
];

let bunker: RunningBunker;
let server: StaticServer;
let chromium: LaunchedChromium;
let root: string;
let dist: string;
let signed: string;
let eventId: string;

beforeAll(async () => {
  bunker = await useBunker();
  root = await mkdtemp(join(tmpdir(), 'siegel-e2e-tamper-'));
  dist = join(root, 'dist');
  await mkdir(join(dist, 'seals'), { recursive: true });
  await writeFile(join(dist, PAGE_PATH), PAGE);
  server = await serveDirectory(dist);
  await writeFile(
    join(root, '.env'),
    `BUNKER_URL=${bunker.url}\nBUNKER_API_TOKEN=${bunker.apiToken}\nBUNKER_KEY_NAME=${bunker.keyName}\nSITE_URL=${server.url}\n`,
  );
  chromium = await launchChromium();
  const sign = await runSiegel(['sign', 'dist'], { cwd: root });
  expect(sign.stdout).toContain('Siegel: 1 signed');
  expect(sign.code).toBe(0);
  signed = await readFile(join(dist, PAGE_PATH), 'utf8');
  eventId = readSignatureBlock(signed)?.eventId as string;
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await bunker?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

async function verdicts(html: string) {
  await writeFile(join(dist, PAGE_PATH), html);
  const browser = await readVerdict(await chromium.tab(), server.url, eventId);
  const cli = await runSiegel(['verify', 'dist', '--pubkey', bunker.pubkey], { cwd: root });
  return { browser, cli };
}

describe('tampered pages signed by `siegel sign` are invalid in `siegel verify` and in Chromium', () => {
  it('the untouched page is valid in both (siegel-page/2)', async () => {
    const { browser, cli } = await verdicts(signed);
    expect(browser).toMatchObject({ state: 'valid', reason: 'ok' });
    expect(browser.text).toContain('siegel-page/2');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('1 valid, 0 invalid');
  });

  for (const [name, tamper] of TAMPERS) {
    it(name, async () => {
      const html = tamper(signed);
      expect(html).not.toBe(signed);
      const { browser, cli } = await verdicts(html);
      expect(browser.state).toBe('invalid');
      expect(cli.code).toBe(1);
      expect(cli.stdout).toMatch(new RegExp(`^INVALID +${PAGE_PATH.replace('.', '\\.')}`, 'm'));
    });
  }
});
