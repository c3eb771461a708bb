// The signature block as Chromium sees it: for every spec vector and for pages whose <head> is implied in
// different ways, the block that applySignatureBlock writes is parsed by DOMParser into <head> (3 metas,
// 2 links), and signing leaves the browser's innerHTML of <main> exactly as it was.
import { readFileSync } from 'node:fs';
import { analyzePage, applySignatureBlock, createPageEvent, renderSignatureBlock } from '@siegel/core';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlankPage, openBlankPage } from '../support/blank-page.js';

const directory = new URL('../../packages/core/fixtures/page-hash/', import.meta.url);
const { vectors } = JSON.parse(readFileSync(new URL('expected.json', directory), 'utf8')) as {
  vectors: Array<{ file: string }>;
};

const shapes: Array<[string, string]> = [
  ['no head tags', '<!doctype html><meta charset="utf-8"><title>T</title>\n<main>x</main>'],
  ['no head and nothing in it', '<!doctype html><main>x</main>'],
  ['head closed by <body>', '<!doctype html><html><head><title>T</title>\n<body><main>x</main>'],
  ['head closed by text', '<!doctype html><head><title>T</title>  hello<main>x</main>'],
  ['<html> then <body>', '<!doctype html><html lang="en"><body><main>x</main>'],
  ['text first', '<!doctype html>hello<main>x</main>'],
  ['unclosed noscript in head', '<!doctype html><head><noscript><p>no</p></noscript><main>x</main>'],
  ['link after </head>', '<head></head><link rel="x"><main>x</main>'],
  ['BOM', '\ufeff<!doctype html><html><head><title>T</title></head><body><main>x</main></body></html>'],
];
const pages = [
  ...vectors.map(({ file }) => [file, readFileSync(new URL(file, directory), 'utf8')] as [string, string]),
  ...shapes,
];

const secretKey = generateSecretKey();
const signedPages = pages.map(([name, html]) => {
  const analysis = analyzePage(html);
  const event = finalizeEvent(
    createPageEvent({ hash: analysis.hash ?? '0'.repeat(64), url: 'https://example.com/', createdAt: 1 }),
    secretKey,
  );
  const block = renderSignatureBlock(event, {
    verifyUrl: `https://example.com/verify/${event.id}`,
    relays: ['wss://relay.example.com'],
  });
  return { name, unsigned: html, signed: applySignatureBlock(html, analysis, block), eventId: event.id };
});

interface Seen {
  name: string;
  metas: string[];
  links: string[];
  same: boolean;
}

let blank: BlankPage;
let seen: Seen[];

beforeAll(async () => {
  blank = await openBlankPage();
  const { page } = blank;
  seen = await page.evaluate((items) => {
    const parse = (html: string) => new DOMParser().parseFromString(html, 'text/html');
    return items.map(({ name, unsigned, signed }) => {
      // A browser that loads the file drops a leading BOM while decoding; do the same here.
      const strip = (html: string) => html.replace(/^\ufeff/, '');
      const before = parse(strip(unsigned));
      const after = parse(strip(signed));
      return {
        name,
        metas: Array.from(
          after.head.querySelectorAll('meta[name^="nostr:"]'),
          (m) => m.getAttribute('content') ?? '',
        ),
        links: Array.from(after.head.querySelectorAll('link[rel]'), (l) => l.getAttribute('rel') ?? ''),
        same: before.querySelector('main')?.innerHTML === after.querySelector('main')?.innerHTML,
      };
    });
  }, signedPages);
});

afterAll(async () => {
  await blank?.close();
});

describe('signed pages in Chromium', () => {
  for (const [index, page] of signedPages.entries()) {
    it(`${page.name}: block in <head>, <main> unchanged`, () => {
      const result = seen[index] as Seen;
      expect(result.name).toBe(page.name);
      expect(result.metas).toHaveLength(3);
      expect(result.metas[0]).toBe(page.eventId);
      expect(result.links.filter((rel) => rel === 'nostr-verification' || rel === 'alternate')).toEqual([
        'nostr-verification',
        'alternate',
      ]);
      expect(result.same).toBe(true);
    });
  }
});
